// The pages module's tables and permission section, frozen as of this version (the DDL
// and the seed rows are written out here, not imported from the module). Pages reference
// app_auth_users, so this runs after the core migrations and is undone before them.
import type { Knex } from 'knex';

const TABLES = [
  // parent_id: NO ACTION (the default), so a page with children cannot be deleted alone,
  // while one DELETE removing a whole subtree passes (checked at the end of the statement).
  `CREATE TABLE app_pages (
    id serial PRIMARY KEY,
    parent_id integer CONSTRAINT app_pages_parent_id_foreign REFERENCES app_pages (id),
    title varchar(300) NOT NULL,
    slug varchar(100) NOT NULL,
    template varchar(64) NOT NULL DEFAULT 'default',
    blocks jsonb NOT NULL DEFAULT '[]',
    seo jsonb NOT NULL DEFAULT '{}',
    visibility varchar(10) NOT NULL DEFAULT 'public',
    author_id integer CONSTRAINT app_pages_author_id_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    updated_by integer CONSTRAINT app_pages_updated_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT app_pages_visibility_check CHECK (visibility IN ('public', 'private')),
    CONSTRAINT app_pages_not_own_parent CHECK (parent_id IS NULL OR parent_id <> id)
  )`,
  // The expression treats NULL (root) as parent 0, so root slugs are unique too. The
  // public lookups use the same expression, so this index also serves every step of a
  // path resolution.
  `CREATE UNIQUE INDEX app_pages_sibling_slug_unique ON app_pages ((COALESCE(parent_id, 0)), slug)`,
  `CREATE INDEX app_pages_children_by_title ON app_pages ((COALESCE(parent_id, 0)), title, id)`,
  // The foreign key's own checks (deleting a parent) look children up by plain parent_id.
  `CREATE INDEX app_pages_parent_id ON app_pages (parent_id)`,
  `CREATE INDEX app_pages_visibility_title ON app_pages (visibility, title, id)`,
  // filename: generated name of the stored file under the upload directory.
  `CREATE TABLE app_pages_media (
    id serial PRIMARY KEY,
    filename varchar(255) NOT NULL CONSTRAINT app_pages_media_filename_unique UNIQUE,
    original_name varchar(255) NOT NULL DEFAULT '',
    mime_type varchar(100) NOT NULL,
    size integer NOT NULL,
    alt varchar(500) NOT NULL DEFAULT '',
    caption varchar(1000) NOT NULL DEFAULT '',
    uploaded_by integer CONSTRAINT app_pages_media_uploaded_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
];

// The module's permission section as of this version (modules' sections from 100 on).
const SECTION = { key: 'pages', label: 'Pages', position: 100 };
const PERMISSIONS = [
  { key: 'pages.view', section: 'pages', label: 'Consulter les pages', position: 0 },
  { key: 'pages.manage', section: 'pages', label: 'Gérer les pages et les médias', position: 1 },
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of TABLES) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(SECTION).onConflict('key').merge();
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  // The system role admin holds every permission, including those modules add.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  // Deleting the section removes its permissions and their grants (ON DELETE CASCADE).
  await knex('app_auth_permission_sections').where({ key: SECTION.key }).delete();
  await knex.raw('DROP TABLE IF EXISTS app_pages_media');
  await knex.raw('DROP TABLE IF EXISTS app_pages');
}
