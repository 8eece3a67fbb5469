// A kept form belongs to the account whose session expired (routes/lost-session.ts): it
// is given back only to that account after its login, never to whoever signs in next in
// the same browser. Drafts kept before this version have no known owner: they go (they
// live 15 minutes anyway). An account's drafts go with it.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM app_auth_form_drafts`);
  await knex.raw(`ALTER TABLE app_auth_form_drafts
    ADD COLUMN user_id integer NOT NULL CONSTRAINT app_auth_form_drafts_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE app_auth_form_drafts DROP COLUMN user_id`);
}
