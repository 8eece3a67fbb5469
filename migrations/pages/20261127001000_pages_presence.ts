// Who has a page open in the editor (issue 23, presence): one row per page and account,
// refreshed by the editor's heartbeat. `since` is when the account's continuous presence
// began, `seen_at` its last heartbeat; a row older than a minute means gone (the reads
// say so; no lock, nothing else depends on it). In PostgreSQL so that every process of a
// cluster sees the same editors.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE app_page_presence (
    page_id integer NOT NULL REFERENCES app_pages(id) ON DELETE CASCADE,
    user_id integer NOT NULL REFERENCES app_auth_users(id) ON DELETE CASCADE,
    since timestamptz NOT NULL,
    seen_at timestamptz NOT NULL,
    CONSTRAINT app_page_presence_pkey PRIMARY KEY (page_id, user_id)
  )`);
  await knex.raw('CREATE INDEX app_page_presence_seen_at_index ON app_page_presence (seen_at)');
  await knex.raw('CREATE INDEX app_page_presence_user_id_index ON app_page_presence (user_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS app_page_presence');
}
