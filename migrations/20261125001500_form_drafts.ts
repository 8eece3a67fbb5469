// What was typed in a form whose session had expired, frozen as of this version: kept
// for a few minutes under the SHA-256 of a random token (the token itself lives only in
// an HttpOnly cookie of that browser), given back once to the same page after login.
// Never a password or a token (routes/form-failure.ts echoedValues); no user column, so
// nothing to cascade when an account goes.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE app_auth_form_drafts (
    token_hash varchar(64) PRIMARY KEY,
    page varchar(2000) NOT NULL,
    form varchar(100),
    fields jsonb NOT NULL,
    expires_at timestamptz NOT NULL
  )`);
  await knex.raw(`CREATE INDEX app_auth_form_drafts_expires_at ON app_auth_form_drafts (expires_at)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE IF EXISTS app_auth_form_drafts`);
}
