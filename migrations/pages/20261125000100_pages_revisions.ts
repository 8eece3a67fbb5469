// Revisions, drafts and scheduled publishing of pages, frozen as of this version
// (nothing imported from the module).
//
// - app_page_revisions: every write of a page's content records the whole content as
//   one numbered row (parent_id without a foreign key: it is history, the parent may
//   be gone). author_id is SET NULL when the account goes; the page's deletion takes
//   its revisions.
// - app_pages.revision: the page's newest revision number, whatever its state (what
//   `if_revision` is compared with); published_revision: the one that is live;
//   draft_revision: the pending draft (its content is that revision's row, the live
//   columns are left alone); scheduled_at / scheduled_by: when the draft goes live, and
//   who asked. Existing pages get a revision 1 copied from their content. A page
//   inserted without the model starts at revision 0 (no revision recorded yet).
// - The NOTIFY trigger on UPDATE gets a second version that ignores these five columns:
//   a draft save, a schedule or its cancellation changes nothing public, so it drops
//   no public cache entry. INSERT, DELETE and TRUNCATE keep the first version.
import type { Knex } from 'knex';

const UP = [
  `CREATE TABLE app_page_revisions (
    id serial PRIMARY KEY,
    page_id integer NOT NULL CONSTRAINT app_page_revisions_page_id_foreign REFERENCES app_pages (id) ON DELETE CASCADE,
    number integer NOT NULL,
    title varchar(300) NOT NULL,
    slug varchar(100) NOT NULL,
    parent_id integer,
    template varchar(64) NOT NULL,
    blocks jsonb NOT NULL DEFAULT '[]',
    seo jsonb NOT NULL DEFAULT '{}',
    visibility varchar(10) NOT NULL,
    created_at timestamptz NOT NULL,
    author_id integer CONSTRAINT app_page_revisions_author_id_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    recorded_at timestamptz NOT NULL,
    CONSTRAINT app_page_revisions_page_number_unique UNIQUE (page_id, number)
  )`,
  // The foreign key's SET NULL on an account's deletion finds its rows by this index.
  `CREATE INDEX app_page_revisions_author_id ON app_page_revisions (author_id) WHERE author_id IS NOT NULL`,
  // Existing rows take the first default without a rewrite; rows inserted later get the second.
  `ALTER TABLE app_pages ADD COLUMN revision integer NOT NULL DEFAULT 1`,
  `ALTER TABLE app_pages ALTER COLUMN revision SET DEFAULT 0`,
  `ALTER TABLE app_pages ADD COLUMN published_revision integer DEFAULT 1`,
  `ALTER TABLE app_pages ALTER COLUMN published_revision DROP DEFAULT`,
  `ALTER TABLE app_pages ADD COLUMN draft_revision integer`,
  `ALTER TABLE app_pages ADD COLUMN scheduled_at timestamptz`,
  `ALTER TABLE app_pages ADD COLUMN scheduled_by integer CONSTRAINT app_pages_scheduled_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL`,
  `ALTER TABLE app_pages ADD CONSTRAINT app_pages_schedule_needs_draft CHECK (scheduled_at IS NULL OR draft_revision IS NOT NULL)`,
  // The scheduler's claim reads due pages from this index alone (few rows: only scheduled pages).
  `CREATE INDEX app_pages_scheduled_at ON app_pages (scheduled_at, id) WHERE scheduled_at IS NOT NULL`,
  `CREATE INDEX app_pages_scheduled_by ON app_pages (scheduled_by) WHERE scheduled_by IS NOT NULL`,
  `INSERT INTO app_page_revisions (page_id, number, title, slug, parent_id, template, blocks, seo, visibility, created_at, author_id, recorded_at)
   SELECT id, 1, title, slug, parent_id, template, blocks, seo, visibility, created_at, updated_by, updated_at FROM app_pages`,

  `CREATE FUNCTION app_pages_public_notify_pages_v2() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     tree_ids jsonb;
     content_ids jsonb;
     parent_ids jsonb;
   BEGIN
     WITH changed AS (
       SELECT o.id,
              COALESCE(o.parent_id, 0) AS old_parent,
              COALESCE(n.parent_id, 0) AS new_parent,
              (o.parent_id IS DISTINCT FROM n.parent_id OR o.slug IS DISTINCT FROM n.slug
               OR o.visibility IS DISTINCT FROM n.visibility OR o.title IS DISTINCT FROM n.title) AS tree
       FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE (to_jsonb(o) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
             IS DISTINCT FROM (to_jsonb(n) - ARRAY['revision', 'published_revision', 'draft_revision', 'scheduled_at', 'scheduled_by'])
     )
     SELECT COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE tree), '[]'),
            COALESCE(jsonb_agg(DISTINCT id) FILTER (WHERE NOT tree), '[]'),
            (SELECT COALESCE(jsonb_agg(DISTINCT parent), '[]')
               FROM (SELECT old_parent AS parent FROM changed UNION SELECT new_parent FROM changed) parents)
     INTO tree_ids, content_ids, parent_ids
     FROM changed;
     IF COALESCE(jsonb_array_length(tree_ids), 0) + COALESCE(jsonb_array_length(content_ids), 0) = 0 THEN
       RETURN NULL;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('t', tree_ids, 'c', content_ids, 'p', parent_ids));
     RETURN NULL;
   END $$`,
  `DROP TRIGGER app_pages_public_notify_update ON app_pages`,
  `CREATE TRIGGER app_pages_public_notify_update AFTER UPDATE ON app_pages
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_pages_v2()`,
];

const DOWN = [
  `DROP TRIGGER IF EXISTS app_pages_public_notify_update ON app_pages`,
  `CREATE TRIGGER app_pages_public_notify_update AFTER UPDATE ON app_pages
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_public_notify_pages()`,
  `DROP FUNCTION IF EXISTS app_pages_public_notify_pages_v2()`,
  `DROP INDEX IF EXISTS app_pages_scheduled_by`,
  `DROP INDEX IF EXISTS app_pages_scheduled_at`,
  `ALTER TABLE app_pages DROP CONSTRAINT IF EXISTS app_pages_schedule_needs_draft`,
  `ALTER TABLE app_pages DROP COLUMN IF EXISTS scheduled_by`,
  `ALTER TABLE app_pages DROP COLUMN IF EXISTS scheduled_at`,
  `ALTER TABLE app_pages DROP COLUMN IF EXISTS draft_revision`,
  `ALTER TABLE app_pages DROP COLUMN IF EXISTS published_revision`,
  `ALTER TABLE app_pages DROP COLUMN IF EXISTS revision`,
  `DROP TABLE IF EXISTS app_page_revisions`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
