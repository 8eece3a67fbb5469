// The site's menus (the header's and the footer's), and the permission to edit them.
// One row per menu that has been edited: no row, the site shows what it showed before
// menus existed (the header: the home page and the public root pages; the footer: its
// home link). `items` is the whole menu, as the API gives it:
// [{label, page_id, url, children: [{label, page_id, url}]}], checked by the model.
// A page link keeps its page id only (no foreign key): a deleted page's item stays,
// flagged on the menu screen and left out on the site.
//
// The public cache (lib/public-cache.ts) drops the answers that show the menus by the
// tag `nav` (models/pages/cache-tags.ts): sent on any change of a menu, and on a change
// of place, address, visibility or title (or the deletion) of a page a menu links to or
// of one of its ancestors (its address and its visibility depend on them).
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

const UP = [
  `CREATE TABLE app_page_menus (
    name varchar(32) PRIMARY KEY CONSTRAINT app_page_menus_name_shape CHECK (name ~ '^[a-z][a-z0-9-]*$'),
    items jsonb NOT NULL DEFAULT '[]' CONSTRAINT app_page_menus_items_array CHECK (jsonb_typeof(items) = 'array'),
    updated_by integer CONSTRAINT app_page_menus_updated_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE INDEX app_page_menus_updated_by ON app_page_menus (updated_by) WHERE updated_by IS NOT NULL`,

  // Every page id the menus link to, at any level.
  `CREATE FUNCTION app_page_menus_linked_ids() RETURNS SETOF integer LANGUAGE sql STABLE AS $$
     SELECT DISTINCT (v #>> '{}')::integer
     FROM app_page_menus m, jsonb_path_query(m.items, 'strict $.**.page_id') AS v
     WHERE jsonb_typeof(v) = 'number'
   $$`,

  `CREATE FUNCTION app_page_menus_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM app_pages_public_notify_send(jsonb_build_object('tags', jsonb_build_array('nav')));
     RETURN NULL;
   END $$`,

  `CREATE FUNCTION app_page_menus_notify_pages() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     changed integer[];
   BEGIN
     IF NOT EXISTS (SELECT 1 FROM app_page_menus) THEN
       RETURN NULL;
     END IF;
     IF TG_OP = 'DELETE' THEN
       SELECT array_agg(o.id) INTO changed FROM old_rows o;
     ELSE
       SELECT array_agg(o.id) INTO changed
       FROM old_rows o JOIN new_rows n ON n.id = o.id
       WHERE o.parent_id IS DISTINCT FROM n.parent_id OR o.slug IS DISTINCT FROM n.slug
          OR o.visibility IS DISTINCT FROM n.visibility OR o.title IS DISTINCT FROM n.title;
     END IF;
     IF changed IS NULL THEN
       RETURN NULL;
     END IF;
     IF EXISTS (
       WITH RECURSIVE up AS (
         SELECT p.id, p.parent_id, 1 AS depth FROM app_pages p WHERE p.id IN (SELECT app_page_menus_linked_ids())
         UNION ALL
         SELECT p.id, p.parent_id, up.depth + 1 FROM app_pages p JOIN up ON p.id = up.parent_id WHERE up.depth < 256
       )
       SELECT 1 FROM app_page_menus_linked_ids() AS l(id) WHERE l.id = ANY(changed)
       UNION ALL
       SELECT 1 FROM up WHERE up.id = ANY(changed)
     ) THEN
       PERFORM app_pages_public_notify_send(jsonb_build_object('tags', jsonb_build_array('nav')));
     END IF;
     RETURN NULL;
   END $$`,

  `CREATE TRIGGER app_page_menus_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_page_menus
   FOR EACH STATEMENT EXECUTE FUNCTION app_page_menus_notify()`,
  `CREATE TRIGGER app_page_menus_notify_update AFTER UPDATE ON app_pages
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_page_menus_notify_pages()`,
  `CREATE TRIGGER app_page_menus_notify_delete AFTER DELETE ON app_pages
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_page_menus_notify_pages()`,
];

// Editing the menus is an editor's job (issue 26's «Éditeur» role will hold it), apart
// from pages.manage: someone may keep the menus without writing pages, or the reverse.
const PERMISSION = { key: 'menus.manage', section: 'pages', label: 'Gérer les menus du site', position: 2 };

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
  await knex('app_auth_permissions').insert(PERMISSION).onConflict('key').merge();
  // The system role admin holds every permission.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, ? FROM app_auth_roles r WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
    [PERMISSION.key],
  );
}

export async function down(knex: Knex): Promise<void> {
  // Its grants go with it (ON DELETE CASCADE).
  await knex('app_auth_permissions').where({ key: PERMISSION.key }).delete();
  await knex.raw('DROP TRIGGER IF EXISTS app_page_menus_notify_update ON app_pages');
  await knex.raw('DROP TRIGGER IF EXISTS app_page_menus_notify_delete ON app_pages');
  await knex.raw('DROP TABLE IF EXISTS app_page_menus');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_menus_notify_pages()');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_menus_notify()');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_menus_linked_ids()');
}
