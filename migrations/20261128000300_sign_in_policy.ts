// Sign-in policy and sign-in methods (issue 27, items 4–5), frozen as of this version.
// - app_auth_roles.sign_in_methods: the ways a role's members may sign in (`password`,
//   `passkey`, `sso:<provider id>`); NULL means every way (existing roles change nothing).
// - app_auth_sso_providers.trust_mfa, mfa_acr_values: whether the provider's assertion of
//   several factors (`amr` containing `mfa`, or an `acr` listed) stands for the site's
//   second step. Providers made before this version trusted `amr` already: kept so.
// - app_auth_sessions.sign_in_method, second_factor: how each session was opened, for
//   the profile's session list.
// - app_auth_pending_logins.method: the first step's method, for the `auth.login` event
//   written after the second step.
import type { Knex } from 'knex';

const STATEMENTS = [
  `ALTER TABLE app_auth_roles ADD COLUMN sign_in_methods text[]`,
  `ALTER TABLE app_auth_sso_providers ADD COLUMN trust_mfa boolean NOT NULL DEFAULT false`,
  `ALTER TABLE app_auth_sso_providers ADD COLUMN mfa_acr_values text[] NOT NULL DEFAULT '{}'`,
  `UPDATE app_auth_sso_providers SET trust_mfa = true`,
  `ALTER TABLE app_auth_sessions ADD COLUMN sign_in_method varchar(40)`,
  `ALTER TABLE app_auth_sessions ADD COLUMN second_factor varchar(16)`,
  `ALTER TABLE app_auth_pending_logins ADD COLUMN method varchar(40)`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of STATEMENTS) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_auth_pending_logins DROP COLUMN IF EXISTS method');
  await knex.raw('ALTER TABLE app_auth_sessions DROP COLUMN IF EXISTS second_factor');
  await knex.raw('ALTER TABLE app_auth_sessions DROP COLUMN IF EXISTS sign_in_method');
  await knex.raw('ALTER TABLE app_auth_sso_providers DROP COLUMN IF EXISTS mfa_acr_values');
  await knex.raw('ALTER TABLE app_auth_sso_providers DROP COLUMN IF EXISTS trust_mfa');
  await knex.raw('ALTER TABLE app_auth_roles DROP COLUMN IF EXISTS sign_in_methods');
}
