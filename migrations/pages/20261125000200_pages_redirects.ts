// Old public paths of pages, frozen as of this version (nothing imported from the module).
//
// - app_page_redirects: a path that no longer names a page (`/a/b`, unique) and the page
//   it belonged to; the target is that page's current path, computed when a visitor
//   asks, so a later move needs no rewrite and chains never form. page_id NULL is a
//   tombstone (the page was deleted: 410). kind: `automatic` (recorded by the triggers
//   below) or `manual` (the admin API); created_by is SET NULL with the account.
// - The paths are recorded by triggers on app_pages, in the writing transaction, so
//   every writer (the page form, the API, a draft's publication, a scheduled one) is
//   covered without remembering it:
//   * a page whose slug or parent changes: the old path of the page and of every page
//     of its subtree, one recursive statement; the rows at the new paths are dropped
//     (the pages take them over);
//   * a page inserted at a recorded path takes it over (its row is dropped);
//   * deleted pages: their current paths become tombstones (their earlier paths already
//     lose their page through the foreign key).
//   The old path is computed from the tree after the statement: right for the models'
//   writes, which move one row per statement.
// - Any change of app_page_redirects notifies the public read cache (`r`: redirect
//   answers and unknown paths are dropped in every process).
import type { Knex } from 'knex';

const PATH_OF = `COALESCE(app_pages_path_of`;

const UP = [
  `CREATE TABLE app_page_redirects (
    id serial PRIMARY KEY,
    path text NOT NULL CONSTRAINT app_page_redirects_path_unique UNIQUE CONSTRAINT app_page_redirects_path_shape CHECK (path LIKE '/_%'),
    page_id integer CONSTRAINT app_page_redirects_page_id_foreign REFERENCES app_pages (id) ON DELETE SET NULL,
    kind varchar(10) NOT NULL CONSTRAINT app_page_redirects_kind CHECK (kind IN ('manual', 'automatic')),
    created_by integer CONSTRAINT app_page_redirects_created_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  // The foreign keys' actions (a page or an account deleted) find their rows by these.
  `CREATE INDEX app_page_redirects_page_id ON app_page_redirects (page_id) WHERE page_id IS NOT NULL`,
  `CREATE INDEX app_page_redirects_created_by ON app_page_redirects (created_by) WHERE created_by IS NOT NULL`,

  // `/a/b` of a page whatever its visibility; NULL for no page.
  `CREATE FUNCTION app_pages_path_of(page integer) RETURNS text LANGUAGE sql STABLE AS $$
     WITH RECURSIVE up AS (
       SELECT id, parent_id, slug, 1 AS depth FROM app_pages WHERE id = page
       UNION ALL
       SELECT p.id, p.parent_id, p.slug, up.depth + 1 FROM app_pages p JOIN up ON p.id = up.parent_id WHERE up.depth < 256
     )
     SELECT '/' || string_agg(slug, '/' ORDER BY depth DESC) FROM up
   $$`,

  `CREATE FUNCTION app_pages_redirects_moved() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     old_base text := ${PATH_OF}(OLD.parent_id), '') || '/' || OLD.slug;
     new_base text := ${PATH_OF}(NEW.parent_id), '') || '/' || NEW.slug;
   BEGIN
     IF old_base = new_base THEN
       RETURN NULL;
     END IF;
     WITH RECURSIVE subtree AS (
       SELECT NEW.id AS id, ''::text AS rel, 0 AS depth
       UNION ALL
       SELECT p.id, s.rel || '/' || p.slug, s.depth + 1
       FROM app_pages p JOIN subtree s ON COALESCE(p.parent_id, 0) = s.id
       WHERE s.depth < 256
     ), taken AS (
       DELETE FROM app_page_redirects r USING subtree s WHERE r.path = new_base || s.rel
     )
     INSERT INTO app_page_redirects (path, page_id, kind, created_by, created_at)
     SELECT old_base || rel, id, 'automatic', NEW.updated_by, NEW.updated_at FROM subtree
     ON CONFLICT (path) DO UPDATE
       SET page_id = EXCLUDED.page_id, kind = 'automatic', created_by = EXCLUDED.created_by, created_at = EXCLUDED.created_at;
     RETURN NULL;
   END $$`,

  `CREATE FUNCTION app_pages_redirects_created() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF EXISTS (SELECT 1 FROM app_page_redirects) THEN
       DELETE FROM app_page_redirects r
       USING (SELECT ${PATH_OF}(n.parent_id), '') || '/' || n.slug AS path FROM new_rows n) created
       WHERE r.path = created.path;
     END IF;
     RETURN NULL;
   END $$`,

  // Top down from the highest deleted pages (their parents are still there), so a
  // 40,000-page subtree costs one pass per level, not one walk up per page.
  `CREATE FUNCTION app_pages_redirects_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     WITH RECURSIVE gone AS (
       SELECT o.id, ${PATH_OF}(o.parent_id), '') || '/' || o.slug AS path, 0 AS depth
       FROM old_rows o
       WHERE NOT EXISTS (SELECT 1 FROM old_rows above WHERE above.id = o.parent_id)
       UNION ALL
       SELECT o.id, g.path || '/' || o.slug, g.depth + 1
       FROM old_rows o JOIN gone g ON o.parent_id = g.id
       WHERE g.depth < 256
     )
     INSERT INTO app_page_redirects (path, page_id, kind)
     SELECT path, NULL, 'automatic' FROM gone
     ON CONFLICT (path) DO UPDATE SET page_id = NULL;
     RETURN NULL;
   END $$`,

  `CREATE TRIGGER app_pages_redirects_moved AFTER UPDATE ON app_pages FOR EACH ROW
   WHEN (OLD.slug IS DISTINCT FROM NEW.slug OR OLD.parent_id IS DISTINCT FROM NEW.parent_id)
   EXECUTE FUNCTION app_pages_redirects_moved()`,
  `CREATE TRIGGER app_pages_redirects_created AFTER INSERT ON app_pages
   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_redirects_created()`,
  `CREATE TRIGGER app_pages_redirects_deleted AFTER DELETE ON app_pages
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_pages_redirects_deleted()`,

  `CREATE FUNCTION app_page_redirects_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'INSERT' THEN
       IF NOT EXISTS (SELECT 1 FROM new_rows) THEN RETURN NULL; END IF;
     ELSIF TG_OP IN ('UPDATE', 'DELETE') THEN
       IF NOT EXISTS (SELECT 1 FROM old_rows) THEN RETURN NULL; END IF;
     END IF;
     PERFORM app_pages_public_notify_send(jsonb_build_object('r', true));
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER app_page_redirects_notify_insert AFTER INSERT ON app_page_redirects
   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_page_redirects_notify()`,
  `CREATE TRIGGER app_page_redirects_notify_update AFTER UPDATE ON app_page_redirects
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_page_redirects_notify()`,
  `CREATE TRIGGER app_page_redirects_notify_delete AFTER DELETE ON app_page_redirects
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_page_redirects_notify()`,
  `CREATE TRIGGER app_page_redirects_notify_truncate AFTER TRUNCATE ON app_page_redirects
   FOR EACH STATEMENT EXECUTE FUNCTION app_page_redirects_notify()`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const trigger of ['app_pages_redirects_moved', 'app_pages_redirects_created', 'app_pages_redirects_deleted']) {
    await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON app_pages`);
  }
  await knex.raw('DROP TABLE IF EXISTS app_page_redirects');
  for (const fn of ['app_page_redirects_notify', 'app_pages_redirects_deleted', 'app_pages_redirects_created', 'app_pages_redirects_moved']) {
    await knex.raw(`DROP FUNCTION IF EXISTS ${fn}()`);
  }
  await knex.raw('DROP FUNCTION IF EXISTS app_pages_path_of(integer)');
}
