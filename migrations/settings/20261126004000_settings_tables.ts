// The settings module's table, its permission section and its public cache trigger.
// Frozen as of this version (nothing imported from the module).
//   app_site_settings: at most one row (id is always true); no row means every default
//   (title APP_NAME, time zone APP_TIMEZONE, no logo…). NULL in a column means «the
//   default» too. home_page_id goes to NULL with its page.
//   Every committed change NOTIFYs `site_public_changes` with `all`: the title, the
//   colour, the footer or noindex are on every public answer.
//   The home page: today's root page `accueil`, when there is one, becomes the choice.
//   The permission `settings.manage` (section «Site»), given to the `admin` role.
import type { Knex } from 'knex';

// After the pages section (100): the catalogue lists the site's settings last.
const SECTION = { key: 'site', label: 'Site', position: 110 };
const PERMISSIONS = [{ key: 'settings.manage', section: 'site', label: 'Gérer les réglages du site', position: 0 }];

const UP = [
  `CREATE TABLE app_site_settings (
     id boolean PRIMARY KEY DEFAULT true CONSTRAINT app_site_settings_one_row CHECK (id),
     title text CONSTRAINT app_site_settings_title CHECK (length(title) BETWEEN 1 AND 120),
     tagline text NOT NULL DEFAULT '' CONSTRAINT app_site_settings_tagline CHECK (length(tagline) <= 300),
     accent_colour text CONSTRAINT app_site_settings_accent_colour CHECK (accent_colour ~ '^#[0-9a-f]{6}$'),
     home_page_id integer CONSTRAINT app_site_settings_home_page_id_foreign REFERENCES app_pages (id) ON DELETE SET NULL,
     footer text NOT NULL DEFAULT '' CONSTRAINT app_site_settings_footer CHECK (length(footer) <= 5000),
     time_zone text CONSTRAINT app_site_settings_time_zone CHECK (length(time_zone) BETWEEN 1 AND 100),
     noindex boolean NOT NULL DEFAULT false,
     theme text NOT NULL DEFAULT 'default' CONSTRAINT app_site_settings_theme CHECK (length(theme) BETWEEN 1 AND 100),
     logo text,
     favicon jsonb,
     social_image text,
     updated_by integer CONSTRAINT app_site_settings_updated_by_foreign REFERENCES app_auth_users (id) ON DELETE SET NULL,
     updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
   )`,
  `CREATE FUNCTION app_site_settings_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('site_public_changes', jsonb_build_object('all', true, 'lsn', pg_current_wal_lsn()::text)::text);
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER app_site_settings_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON app_site_settings
   FOR EACH STATEMENT EXECUTE FUNCTION app_site_settings_notify()`,
  `INSERT INTO app_site_settings (id, home_page_id)
   SELECT true, id FROM app_pages WHERE parent_id IS NULL AND slug = 'accueil' AND visibility = 'public' LIMIT 1`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(SECTION).onConflict('key').merge();
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin' AND p.section = 'site'
     ON CONFLICT DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('app_auth_permission_sections').where({ key: SECTION.key }).delete();
  await knex.raw('DROP TABLE IF EXISTS app_site_settings');
  await knex.raw('DROP FUNCTION IF EXISTS app_site_settings_notify()');
}
