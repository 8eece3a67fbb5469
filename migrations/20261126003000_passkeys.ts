// Passkeys (WebAuthn), frozen as of this version:
// - app_auth_passkeys: one row per credential of an account. `credential_id` is the
//   authenticator's id (base64url, as the browser gives it), `public_key` its COSE key;
//   `counter` the last signature counter seen (one going back is a cloned authenticator);
//   `device_type` and `backed_up` as the authenticator says (a synced passkey or not).
// - app_auth_passkey_challenges: a challenge waits here at most five minutes and is
//   deleted by the answer that uses it (single use). `token_hash` is the SHA-256 of what
//   binds it: for a sign-in a random token in an HttpOnly cookie of that browser, for an
//   addition the session's id (and `user_id` the account adding it).
import type { Knex } from 'knex';

const STATEMENTS = [
  `CREATE TABLE app_auth_passkeys (
    id serial CONSTRAINT app_auth_passkeys_pkey PRIMARY KEY,
    user_id integer NOT NULL CONSTRAINT app_auth_passkeys_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    credential_id varchar(1400) NOT NULL CONSTRAINT app_auth_passkeys_credential_id_unique UNIQUE,
    public_key bytea NOT NULL,
    counter bigint NOT NULL DEFAULT 0,
    transports text[] NOT NULL DEFAULT '{}',
    device_type varchar(32) NOT NULL,
    backed_up boolean NOT NULL DEFAULT false,
    name varchar(100) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    last_used_at timestamptz
  )`,
  `CREATE INDEX app_auth_passkeys_user_id_index ON app_auth_passkeys (user_id)`,
  `CREATE TABLE app_auth_passkey_challenges (
    token_hash varchar(64) CONSTRAINT app_auth_passkey_challenges_pkey PRIMARY KEY,
    purpose varchar(16) NOT NULL,
    user_id integer CONSTRAINT app_auth_passkey_challenges_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    challenge varchar(128) NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
  `CREATE INDEX app_auth_passkey_challenges_expires_at_index ON app_auth_passkey_challenges (expires_at)`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of STATEMENTS) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS app_auth_passkey_challenges');
  await knex.raw('DROP TABLE IF EXISTS app_auth_passkeys');
}
