// The page tree's version (one row) and the indexes the sitemap files and the admin
// tree walk, frozen as of this version (nothing imported from the module).
//
// - app_pages_tree_state: a counter every page write moves forward in its own
//   transaction, and the time of that write. The sitemap's ETag and Last-Modified come
//   from it in one primary-key read; a deletion moves it too (no max(updated_at) sees one).
// - app_pages_public_id: the sitemap files' boundaries (the id at a position among public
//   pages) and their keyset batches read it as an index-only scan.
// - app_pages_tree_walk: every walk up the tree (a page's path, the sitemap's URLs, the
//   admin's paths) reads the parent, slug and visibility of each ancestor from this index
//   alone, never from the wide rows that carry the blocks.
import type { Knex } from 'knex';

const UP = [
  `CREATE TABLE app_pages_tree_state (
    id smallint PRIMARY KEY DEFAULT 1 CONSTRAINT app_pages_tree_state_single_row CHECK (id = 1),
    version bigint NOT NULL DEFAULT 0,
    changed_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `INSERT INTO app_pages_tree_state (id, version, changed_at)
   SELECT 1, count(*), COALESCE(max(updated_at), CURRENT_TIMESTAMP) FROM app_pages`,
  `CREATE INDEX app_pages_public_id ON app_pages (id) WHERE visibility = 'public'`,
  `CREATE INDEX app_pages_tree_walk ON app_pages (id) INCLUDE (parent_id, slug, visibility)`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS app_pages_tree_walk');
  await knex.raw('DROP INDEX IF EXISTS app_pages_public_id');
  await knex.raw('DROP TABLE IF EXISTS app_pages_tree_state');
}
