// Autosave (issue 23): a revision written by the editor's autosave says when it was last
// continued. `recorded_at` stays when it began, so autosaves by the same person within
// ten minutes of it update it instead of adding one each; NULL for every other revision.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_page_revisions ADD COLUMN autosaved_at timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_page_revisions DROP COLUMN IF EXISTS autosaved_at');
}
