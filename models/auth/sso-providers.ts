// Single sign-on providers (OpenID Connect): every SQL statement on
// app_auth_sso_providers. The client secret is encrypted before it is written and never
// leaves this file in a row: callers get `client_secret_set`; only providerSecret()
// decrypts it, for the token request (services/sso.ts).
import type { AppContext } from '../../lib/context.js';
import type { SsoProviderRow } from '../../lib/tables.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { decryptProviderSecret, encryptProviderSecret } from './two-factor-crypto.js';
import { authMessages } from './messages.js';
import { signInPolicyMessages } from './sign-in-policy-messages.js';

export interface SsoProvider {
  id: number;
  label: string;
  issuer: string;
  client_id: string;
  /** Whether a client secret is stored (never the secret). */
  client_secret_set: boolean;
  scopes: string[];
  allow_signup: boolean;
  allowed_domains: string[];
  /** The role name given to accounts created at a first sign-in; null: the base role. */
  signup_role: string | null;
  enabled: boolean;
  /** The provider's assertion of several factors stands for the site's second step. */
  trust_mfa: boolean;
  /** `acr` values meaning several factors at this provider (besides `amr` containing `mfa`). */
  mfa_acr_values: string[];
  created_at: Date;
  updated_at: Date;
}

export interface SsoProviderInput {
  label: string;
  issuer: string;
  client_id: string;
  /** undefined: keep; null or '': none (a public client). */
  client_secret?: string | null;
  scopes?: string[];
  allow_signup?: boolean;
  allowed_domains?: string[];
  signup_role?: string | null;
  enabled?: boolean;
  trust_mfa?: boolean;
  mfa_acr_values?: string[];
}

/** The provider key of a linked account in app_auth_accounts. */
export function ssoAccountProvider(providerId: number): string {
  return `sso:${providerId}`;
}

const COLUMNS = `p.id, p.label, p.issuer, p.client_id, p.client_secret IS NOT NULL AS client_secret_set,
  string_to_array(p.scopes, ' ') AS scopes, p.allow_signup, p.allowed_domains, r.name AS signup_role, p.enabled,
  p.trust_mfa, p.mfa_acr_values, p.created_at, p.updated_at`;
const FROM = 'app_auth_sso_providers p LEFT JOIN app_auth_roles r ON r.id = p.signup_role_id';

export async function listSsoProviders(ctx: AppContext, options: { enabledOnly?: boolean } = {}): Promise<SsoProvider[]> {
  const { rows } = await ctx.db.raw<{ rows: SsoProvider[] }>(
    `SELECT ${COLUMNS} FROM ${FROM} ${options.enabledOnly ? 'WHERE p.enabled' : ''} ORDER BY lower(p.label), p.id`,
  );
  return rows;
}

export async function findSsoProvider(ctx: AppContext, id: number): Promise<SsoProvider | undefined> {
  const { rows } = await ctx.db.raw<{ rows: SsoProvider[] }>(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.id = ?`, [id]);
  return rows[0];
}

export async function getSsoProvider(ctx: AppContext, id: number): Promise<SsoProvider> {
  const provider = await findSsoProvider(ctx, id);
  if (!provider) throw new NotFoundError(authMessages.ssoProviderNotFound);
  return provider;
}

/** The decrypted client secret, for the token request only; undefined when none is stored or it cannot be read. */
export async function providerSecret(ctx: AppContext, id: number): Promise<string | undefined> {
  const row = await ctx.db('app_auth_sso_providers').where({ id }).first('client_secret');
  if (!row?.client_secret) return undefined;
  const secret = decryptProviderSecret(ctx, id, row.client_secret);
  if (secret === undefined) ctx.logger.warn({ provider: id }, 'single sign-on client secret cannot be decrypted');
  return secret;
}

async function signupRoleId(ctx: AppContext, name: string | null | undefined): Promise<number | null | undefined> {
  if (name === undefined) return undefined;
  if (name === null || name === '') return null;
  const row = await ctx.db('app_auth_roles').where({ name }).first('id');
  if (!row) throw new ConflictError(authMessages.unknownRole, { code: 'unknown_role' });
  return row.id;
}

type ProviderColumns = Partial<Omit<SsoProviderRow, 'id' | 'created_at'>>;

function columnsOf(input: Partial<SsoProviderInput>): ProviderColumns {
  const columns: ProviderColumns = {};
  if (input.label !== undefined) columns.label = input.label.trim();
  if (input.issuer !== undefined) columns.issuer = input.issuer.trim();
  if (input.client_id !== undefined) columns.client_id = input.client_id.trim();
  if (input.scopes !== undefined) columns.scopes = [...new Set(['openid', ...input.scopes])].join(' ');
  if (input.allow_signup !== undefined) columns.allow_signup = input.allow_signup;
  if (input.allowed_domains !== undefined) columns.allowed_domains = [...new Set(input.allowed_domains.map((domain) => domain.trim().toLowerCase()))];
  if (input.enabled !== undefined) columns.enabled = input.enabled;
  if (input.trust_mfa !== undefined) columns.trust_mfa = input.trust_mfa;
  if (input.mfa_acr_values !== undefined) columns.mfa_acr_values = [...new Set(input.mfa_acr_values.map((value) => value.trim()).filter(Boolean))];
  return columns;
}

function isLabelTaken(error: unknown): boolean {
  return (error as { constraint?: string }).constraint === 'app_auth_sso_providers_label_unique';
}

/** Inserts a provider; its id is drawn first, so the secret is encrypted bound to it. */
export async function insertSsoProvider(ctx: AppContext, input: SsoProviderInput): Promise<SsoProvider> {
  const { rows } = await ctx.db.raw<{ rows: Array<{ id: number }> }>(`SELECT nextval('app_auth_sso_providers_id_seq')::int AS id`);
  const id = rows[0].id;
  const roleId = await signupRoleId(ctx, input.signup_role);
  try {
    await ctx.db('app_auth_sso_providers').insert({
      id,
      label: input.label.trim(),
      issuer: input.issuer.trim(),
      client_id: input.client_id.trim(),
      ...columnsOf(input),
      client_secret: input.client_secret ? encryptProviderSecret(ctx, id, input.client_secret) : null,
      signup_role_id: roleId ?? null,
    });
  } catch (error) {
    if (isLabelTaken(error)) throw new ConflictError(authMessages.ssoLabelTaken, { code: 'label_taken' });
    throw error;
  }
  return (await findSsoProvider(ctx, id))!;
}

export async function updateSsoProvider(ctx: AppContext, id: number, input: Partial<SsoProviderInput>): Promise<SsoProvider> {
  const columns = columnsOf(input);
  const roleId = await signupRoleId(ctx, input.signup_role);
  if (roleId !== undefined) columns.signup_role_id = roleId;
  if (input.client_secret !== undefined) columns.client_secret = input.client_secret ? encryptProviderSecret(ctx, id, input.client_secret) : null;
  columns.updated_at = ctx.clock.now();
  try {
    const updated = await ctx.db('app_auth_sso_providers').where({ id }).update(columns);
    if (updated === 0) throw new NotFoundError(authMessages.ssoProviderNotFound);
  } catch (error) {
    if (isLabelTaken(error)) throw new ConflictError(authMessages.ssoLabelTaken, { code: 'label_taken' });
    throw error;
  }
  return (await findSsoProvider(ctx, id))!;
}

/**
 * Deletes the provider and the links to it (app_auth_accounts has no foreign key to it).
 * Refused while a role's sign-in policy names it: its members would be left with a way
 * that no longer exists, perhaps with none.
 */
export async function deleteSsoProvider(ctx: AppContext, id: number): Promise<SsoProvider> {
  const provider = await getSsoProvider(ctx, id);
  const requiring: string[] = await ctx
    .db('app_auth_roles')
    .whereRaw('? = ANY(sign_in_methods)', [ssoAccountProvider(id)])
    .orderBy('label')
    .pluck('label');
  if (requiring.length) throw new ConflictError(signInPolicyMessages.providerRequired(requiring), { code: 'provider_in_sign_in_policy' });
  await ctx
    .db('app_auth_accounts')
    .where({ provider: ssoAccountProvider(id) })
    .delete();
  await ctx.db('app_auth_sso_providers').where({ id }).delete();
  return provider;
}
