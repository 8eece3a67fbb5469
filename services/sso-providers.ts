// The administration of single sign-on providers (/admin/sign-in and
// /app/api/admin/sign-in/providers): one use case per change, each audited in its
// transaction. The client secret never appears in an answer nor in an event.
import type { AppContext } from '../lib/context.js';
import { inTransaction } from '../lib/context.js';
import { UserFacingError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, type AuditTarget } from '../models/audit.js';
import { ssoMessages } from '../models/auth/messages.js';
import { deleteSsoProvider, insertSsoProvider, updateSsoProvider, type SsoProvider, type SsoProviderInput } from '../models/auth/sso-providers.js';
import { callbackUrl, insecureIssuerAllowed } from './sso.js';

export type ProviderAnswer = SsoProvider & { callback_url: string };

export function providerAnswer(ctx: AppContext, provider: SsoProvider): ProviderAnswer {
  return { ...provider, callback_url: callbackUrl(ctx, provider.id) };
}

function providerTarget(provider: SsoProvider): AuditTarget {
  return { type: 'sso_provider', id: provider.id, label: provider.label };
}

/** What changed, by field name, never a value of the secret. */
function changedFields(input: Partial<SsoProviderInput>): string[] {
  return Object.keys(input).filter((key) => input[key as keyof SsoProviderInput] !== undefined);
}

/** An issuer is https, or http on this machine outside production (a development provider). */
function checkIssuer(ctx: AppContext, issuer: string | undefined): void {
  if (issuer === undefined) return;
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !insecureIssuerAllowed(ctx, url)) {
    throw new UserFacingError(ssoMessages.issuerNotHttps, { code: 'validation_error', details: [{ field: 'issuer', message: ssoMessages.issuerNotHttps }] });
  }
}

export async function createProvider(ctx: AppContext, origin: Origin, input: SsoProviderInput): Promise<ProviderAnswer> {
  checkIssuer(ctx, input.issuer);
  const provider = await inTransaction(ctx, async (tx) => {
    const created = await insertSsoProvider(tx, input);
    await recordAudit(tx, { actor: actorOf(origin), ip: origin.ip, action: 'sign_in.provider_created', target: providerTarget(created) });
    return created;
  });
  return providerAnswer(ctx, provider);
}

export async function editProvider(ctx: AppContext, origin: Origin, id: number, input: Partial<SsoProviderInput>): Promise<ProviderAnswer> {
  checkIssuer(ctx, input.issuer);
  const provider = await inTransaction(ctx, async (tx) => {
    const updated = await updateSsoProvider(tx, id, input);
    await recordAudit(tx, {
      actor: actorOf(origin),
      ip: origin.ip,
      action: 'sign_in.provider_updated',
      target: providerTarget(updated),
      details: { fields: changedFields(input) },
    });
    return updated;
  });
  return providerAnswer(ctx, provider);
}

export async function removeProvider(ctx: AppContext, origin: Origin, id: number): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const removed = await deleteSsoProvider(tx, id);
    await recordAudit(tx, { actor: actorOf(origin), ip: origin.ip, action: 'sign_in.provider_deleted', target: providerTarget(removed) });
  });
}

function actorOf(origin: Origin): { id: number; name: string } | null {
  return origin.userId === null ? null : { id: origin.userId, name: origin.name ?? '' };
}
