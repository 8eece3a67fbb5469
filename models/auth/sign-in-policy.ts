// The sign-in policy of roles (issue 27, item 4): a role may list the ways its members
// sign in — `password`, `passkey`, `sso:<provider id>` — or leave it open (NULL: every
// way, what every role had before). An account holding several roles may use only the
// ways every restricting role lists (the intersection): a role that requires single
// sign-on is never loosened by another role of the same account.
// The roles' lists are read in the statement that reads the account at sign-in
// (SIGN_IN_POLICY_COLUMN), so the check costs no statement of its own.
import type { AppContext } from '../../lib/context.js';
import { ValidationError } from '../../lib/errors.js';
import { signInPolicyMessages } from './sign-in-policy-messages.js';

/** How a session was opened, as the audit log and the session list say it. */
type SignInMethod = 'password' | 'passkey' | 'sso';
/** The second step that completed a sign-in: a TOTP code, a recovery code, a passkey, or the provider's own MFA. */
type SecondFactorUsed = 'totp' | 'recovery' | 'passkey' | 'provider';

export interface SignInRecord {
  method: SignInMethod;
  /** The provider's id, for `sso`. */
  provider?: number;
  second_factor?: SecondFactorUsed;
}

/** The policy's name of a method: `password`, `passkey`, `sso:<id>`. */
export function policyKeyOf(record: Pick<SignInRecord, 'method' | 'provider'>): string {
  return record.method === 'sso' ? `sso:${record.provider}` : record.method;
}

/** The lists of the account's restricting roles (null: none restricts), read with the account. */
export const SIGN_IN_POLICY_COLUMN = `(
  SELECT json_agg(rr.sign_in_methods) FROM app_auth_roles rr
  WHERE rr.sign_in_methods IS NOT NULL
    AND (rr.id = u.role_id OR rr.id IN (SELECT role_id FROM app_auth_user_roles WHERE user_id = u.id))
) AS sign_in_policy`;

export type SignInPolicy = string[][] | null;

/** The ways the account may sign in; null: every way. */
export function allowedMethods(policy: SignInPolicy | undefined): string[] | null {
  if (!policy || policy.length === 0) return null;
  return policy.reduce((kept, list) => kept.filter((method) => list.includes(method)));
}

/** The row without the policy column: what callers and answers see. */
export function withoutPolicy<T extends object>(row: T & { sign_in_policy?: SignInPolicy }): T {
  const { sign_in_policy: _policy, ...rest } = row;
  return rest as T;
}

/**
 * The refusal's sentence, naming the ways left: «Ce compte se connecte avec « Okta ».»
 * One statement reads the providers' labels (the refusal path only).
 */
export async function policyRefusalMessage(ctx: AppContext, allowed: string[]): Promise<string> {
  if (allowed.length === 0) return signInPolicyMessages.noWayLeft;
  const ids = allowed.filter((key) => key.startsWith('sso:')).map((key) => Number(key.slice(4)));
  const labels = new Map<number, string>();
  if (ids.length > 0) {
    const rows = await ctx.db('app_auth_sso_providers').whereIn('id', ids).where({ enabled: true }).select('id', 'label');
    for (const row of rows as Array<{ id: number; label: string }>) labels.set(row.id, row.label);
  }
  const words: string[] = [];
  if (allowed.includes('password')) words.push(signInPolicyMessages.password);
  if (allowed.includes('passkey')) words.push(signInPolicyMessages.passkey);
  for (const id of ids) if (labels.has(id)) words.push(`« ${labels.get(id)} »`);
  if (words.length === 0) return signInPolicyMessages.noWayLeft;
  return signInPolicyMessages.useInstead(words);
}

/**
 * A role's list as given by a form or the API: null (every way) or a non-empty list of
 * known methods, providers that exist. Returned sorted and without repeats.
 */
export async function checkedSignInMethods(ctx: AppContext, methods: string[] | null | undefined): Promise<string[] | null | undefined> {
  if (methods === undefined || methods === null) return methods;
  const unique = [...new Set(methods)].sort();
  const fail = (message: string) => {
    throw new ValidationError(message, { code: 'invalid_sign_in_methods', details: [{ field: 'sign_in_methods', message }] });
  };
  if (unique.length === 0) fail(signInPolicyMessages.emptyList);
  const ids = unique.filter((key) => key.startsWith('sso:')).map((key) => Number(key.slice(4)));
  const known = new Set(ids.length ? (await ctx.db<{ id: number }>('app_auth_sso_providers').whereIn('id', ids).pluck('id')).map((id) => `sso:${id}`) : []);
  const unknown = unique.filter((key) => key !== 'password' && key !== 'passkey' && !known.has(key));
  if (unknown.length) fail(signInPolicyMessages.unknownMethods(unknown));
  return unique;
}
