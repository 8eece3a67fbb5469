// Account lifecycle, frozen as of this version: an account can be suspended (it keeps
// its data, loses its sessions, and its logins are refused) and restored.
//
// Deletion needs no schema change: every table that names an account already either
// goes with it (sessions, tokens, credentials, extra roles: ON DELETE CASCADE) or keeps
// its row with the reference emptied (pages' author_id and updated_by, media's
// uploaded_by: ON DELETE SET NULL, shown as «Compte supprimé»); the audit log has no
// foreign key and keeps the actor's name as a snapshot.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE app_auth_users ADD COLUMN suspended_at timestamptz, ADD COLUMN suspended_reason varchar(500)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE app_auth_users DROP COLUMN IF EXISTS suspended_reason, DROP COLUMN IF EXISTS suspended_at`);
}
