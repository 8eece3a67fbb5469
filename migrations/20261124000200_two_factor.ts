// Two-step verification (TOTP, RFC 6238), frozen as of this version:
// - app_auth_two_factor: one row per account that started an enrolment. Secrets are
//   stored encrypted (AES-256-GCM, models/auth/two-factor-crypto.ts): `pending_secret`
//   until the first code confirms it, then `secret` with `enabled_at`. `last_step` is the
//   last TOTP time step accepted, so a code is accepted once (a replay is refused).
// - app_auth_recovery_codes: ten single-use codes per account, only their SHA-256
//   (codes of 80 random bits; bound to the account in the hash).
// - app_auth_pending_logins: a correct password of an account with two-step
//   verification opens no session, only this row (5 minutes, 5 wrong codes), named by the
//   SHA-256 of a random token held in an HttpOnly cookie of that browser.
// - app_auth_roles.require_2fa: holders must enrol before they can reach anything else.
import type { Knex } from 'knex';

const STATEMENTS = [
  `CREATE TABLE app_auth_two_factor (
    user_id integer CONSTRAINT app_auth_two_factor_pkey PRIMARY KEY
      CONSTRAINT app_auth_two_factor_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    pending_secret text,
    pending_at timestamptz,
    secret text,
    enabled_at timestamptz,
    last_step integer,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT app_auth_two_factor_enabled_has_secret CHECK ((secret IS NULL) = (enabled_at IS NULL))
  )`,
  `CREATE TABLE app_auth_recovery_codes (
    id serial CONSTRAINT app_auth_recovery_codes_pkey PRIMARY KEY,
    user_id integer NOT NULL CONSTRAINT app_auth_recovery_codes_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    code_hash varchar(64) NOT NULL,
    used_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT app_auth_recovery_codes_user_id_code_hash_unique UNIQUE (user_id, code_hash)
  )`,
  `CREATE TABLE app_auth_pending_logins (
    token_hash varchar(64) CONSTRAINT app_auth_pending_logins_pkey PRIMARY KEY,
    user_id integer NOT NULL CONSTRAINT app_auth_pending_logins_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next varchar(2000),
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE INDEX app_auth_pending_logins_user_id_index ON app_auth_pending_logins (user_id)`,
  `CREATE INDEX app_auth_pending_logins_expires_at_index ON app_auth_pending_logins (expires_at)`,
  `ALTER TABLE app_auth_roles ADD COLUMN require_2fa boolean NOT NULL DEFAULT false`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of STATEMENTS) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_auth_roles DROP COLUMN IF EXISTS require_2fa');
  await knex.raw('DROP TABLE IF EXISTS app_auth_pending_logins');
  await knex.raw('DROP TABLE IF EXISTS app_auth_recovery_codes');
  await knex.raw('DROP TABLE IF EXISTS app_auth_two_factor');
}
