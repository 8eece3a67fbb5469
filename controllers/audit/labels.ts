// The audit log in French: each module declares its actions and target types through
// its register() call (auditActions, auditTargets); the screen, its filters and the
// dashboard read them here. An action without a label (an old one) shows its name.
import type { SiteRegistry } from '../../lib/modules.js';

export function actionLabel(site: SiteRegistry, action: string): string {
  return site.auditActions.get(action)?.label ?? action;
}

export function targetTypeLabel(site: SiteRegistry, type: string): string {
  return site.auditTargets.get(type)?.label ?? type;
}

/** Where the target of `action` is shown, when the viewer may open it (`can` the type's permission). */
export function targetHref(site: SiteRegistry, action: string, type: string, id: string | null, can: (permission: string) => boolean): string | undefined {
  const link = site.auditActions.get(action)?.target;
  const target = site.auditTargets.get(type);
  if (!id || !link || !target || !can(target.permission)) return undefined;
  return link(id);
}

/** The actions and target types for the screen's filters, as declared. */
export function auditFilterOptions(site: SiteRegistry): {
  actions: Array<{ value: string; label: string }>;
  targetTypes: Array<{ value: string; label: string }>;
} {
  return {
    actions: [...site.auditActions].map(([value, { label }]) => ({ value, label })),
    targetTypes: [...site.auditTargets].map(([value, { label }]) => ({ value, label })),
  };
}
