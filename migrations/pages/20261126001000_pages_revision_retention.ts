// Retention of page revisions, frozen as of this version (nothing imported from the
// module). Every published revision is kept; the drafts between two publications are
// pruned to the newest REVISIONS_KEEP_DRAFTS once a day.
//
// - published: whether the revision has ever been live. The database keeps it: a row
//   trigger on app_pages marks the revision that published_revision names (a publication,
//   a live write, the scheduler, a restore), and a row trigger on app_page_revisions marks
//   a revision inserted after its page already names it. Existing revisions are all
//   marked (nothing tells which of them were live): no history from before is pruned.
// - preview_until: the latest expiry of a preview link made for the revision; a link
//   carries its revision's number, so that revision stays until the link expires.
// - app_page_revision_prune_state: the one-row claim that lets one process of all prune
//   once a day (as app_audit_prune_state does for the audit log).
import type { Knex } from 'knex';

const UP = [
  // Existing rows take the first default without a rewrite; rows inserted later get the second.
  `ALTER TABLE app_page_revisions ADD COLUMN published boolean NOT NULL DEFAULT true`,
  `ALTER TABLE app_page_revisions ALTER COLUMN published SET DEFAULT false`,
  `ALTER TABLE app_page_revisions ADD COLUMN preview_until timestamptz`,
  `CREATE FUNCTION app_page_revisions_mark_published() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.published_revision IS NOT NULL THEN
       UPDATE app_page_revisions SET published = true
        WHERE page_id = NEW.id AND number = NEW.published_revision AND NOT published;
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER app_pages_mark_published_revision
     AFTER INSERT OR UPDATE OF published_revision ON app_pages
     FOR EACH ROW EXECUTE FUNCTION app_page_revisions_mark_published()`,
  `CREATE FUNCTION app_page_revisions_published_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.published := NEW.published
       OR EXISTS (SELECT 1 FROM app_pages WHERE id = NEW.page_id AND published_revision = NEW.number);
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER app_page_revisions_published_on_insert
     BEFORE INSERT ON app_page_revisions
     FOR EACH ROW EXECUTE FUNCTION app_page_revisions_published_on_insert()`,
  `CREATE TABLE app_page_revision_prune_state (
     id smallint PRIMARY KEY CONSTRAINT app_page_revision_prune_state_one_row CHECK (id = 1),
     last_run_at timestamptz NOT NULL
   )`,
];

const DOWN = [
  `DROP TABLE app_page_revision_prune_state`,
  `DROP TRIGGER app_page_revisions_published_on_insert ON app_page_revisions`,
  `DROP FUNCTION app_page_revisions_published_on_insert()`,
  `DROP TRIGGER app_pages_mark_published_revision ON app_pages`,
  `DROP FUNCTION app_page_revisions_mark_published()`,
  `ALTER TABLE app_page_revisions DROP COLUMN preview_until`,
  `ALTER TABLE app_page_revisions DROP COLUMN published`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
