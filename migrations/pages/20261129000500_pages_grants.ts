// Permissions per section of the tree (issue 26, item 4): a grant gives a role some of
// the pages permissions on a page and its whole subtree, in addition to what the role
// holds site-wide. One grant per page and role (granting again replaces its list).
// The permissions a grant may hold are the pages ones the site checks per page; the
// CHECK keeps any other key out whatever writes the row.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE app_page_grants (
    id serial PRIMARY KEY,
    page_id integer NOT NULL REFERENCES app_pages(id) ON DELETE CASCADE,
    role_id integer NOT NULL REFERENCES app_auth_roles(id) ON DELETE CASCADE,
    permissions text[] NOT NULL,
    created_at timestamptz NOT NULL,
    created_by integer REFERENCES app_auth_users(id) ON DELETE SET NULL,
    CONSTRAINT app_page_grants_page_role UNIQUE (page_id, role_id),
    CONSTRAINT app_page_grants_permissions CHECK (
      cardinality(permissions) > 0
      AND permissions <@ ARRAY['pages.view', 'pages.manage', 'pages.manage_own', 'pages.publish', 'pages.publish_own', 'pages.review']::text[]
    )
  )`);
  // The session's user statement reads a user's grants by role; the walk up a page's
  // ancestors reads them by page (the UNIQUE index).
  await knex.raw('CREATE INDEX app_page_grants_role_id_index ON app_page_grants (role_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS app_page_grants');
}
