// The modules' first-run choices ticked on the form (lib/modules.ts FirstRunChoice), done
// once the administrator exists, in the order the modules registered them. A choice that
// fails is logged and skipped: the new account and its session stay, and the site
// simply starts without what that choice would have added (nothing the person typed is
// lost, and the administration can add it by hand).
import type { AppContext } from '../lib/context.js';

export async function applyFirstRunChoices(
  ctx: AppContext,
  actor: { id: number; name: string; ip: string | null },
  ticked: (field: string) => boolean,
): Promise<void> {
  for (const choice of ctx.site.firstRunChoices) {
    if (!ticked(choice.field)) continue;
    try {
      await choice.apply(ctx, actor);
    } catch (error) {
      ctx.logger.error({ err: error, choice: choice.field }, 'a first-run choice could not be carried out: the site starts without it');
    }
  }
}
