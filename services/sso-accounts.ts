// A person's links to single sign-on providers, from /account: removing one, never the
// last way to sign in (models/auth/linked-accounts.ts checks it on the locked rows).
import type { AppContext } from '../lib/context.js';
import { inTransaction } from '../lib/context.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, userTarget } from '../models/audit.js';
import { unlinkAccount } from '../models/auth/linked-accounts.js';
import { getSsoProvider } from '../models/auth/sso-providers.js';

/** Unlinks the provider from the caller's account; returns the provider's label. */
export async function unlinkOwnAccount(ctx: AppContext, origin: Origin, caller: { id: number; name: string }, providerId: number): Promise<string> {
  return inTransaction(ctx, async (tx) => {
    const provider = await getSsoProvider(tx, providerId);
    await unlinkAccount(tx, caller.id, providerId);
    await recordAudit(tx, { actor: caller, ip: origin.ip, action: 'auth.sso_unlinked', target: userTarget(caller), details: { provider: providerId } });
    return provider.label;
  });
}
