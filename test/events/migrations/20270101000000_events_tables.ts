// The events fixture module's table, its permission section and its public cache
// trigger. Frozen: nothing imported from the module.
//   app_events: a title, a day, a description, published or not.
//   Every committed change NOTIFYs `site_public_changes` with the tags `events` (the
//   public list) and `event:<id>`; TRUNCATE with `all`.
import type { Knex } from 'knex';

// The position of the pages section: sections of one position go by key, so this one is
// listed before pages, which the site's own catalogue tests expect last.
const SECTION = { key: 'events', label: 'Événements', position: 100 };
const PERMISSIONS = [
  { key: 'events.view', section: 'events', label: 'Consulter les événements', position: 0 },
  { key: 'events.manage', section: 'events', label: 'Gérer les événements', position: 1 },
];

const UP = [
  `CREATE TABLE app_events (
     id serial PRIMARY KEY,
     title text NOT NULL CHECK (length(title) BETWEEN 1 AND 200),
     starts_on date NOT NULL,
     description text NOT NULL DEFAULT '',
     published boolean NOT NULL DEFAULT false,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE FUNCTION app_events_public_notify() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     ids jsonb;
   BEGIN
     IF TG_OP = 'TRUNCATE' THEN
       PERFORM pg_notify('site_public_changes', jsonb_build_object('all', true)::text);
       RETURN NULL;
     ELSIF TG_OP = 'INSERT' THEN
       SELECT jsonb_agg(n.id) INTO ids FROM new_rows n;
     ELSE
       SELECT jsonb_agg(o.id) INTO ids FROM old_rows o;
     END IF;
     IF ids IS NULL THEN
       RETURN NULL;
     END IF;
     PERFORM pg_notify('site_public_changes', jsonb_build_object(
       'tags', (SELECT jsonb_agg('event:' || e.id) FROM jsonb_array_elements_text(ids) AS e(id)) || '["events"]'::jsonb,
       'lsn', pg_current_wal_lsn()::text)::text);
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER app_events_public_notify_insert AFTER INSERT ON app_events
   REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION app_events_public_notify()`,
  `CREATE TRIGGER app_events_public_notify_update AFTER UPDATE ON app_events
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_events_public_notify()`,
  `CREATE TRIGGER app_events_public_notify_delete AFTER DELETE ON app_events
   REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION app_events_public_notify()`,
  `CREATE TRIGGER app_events_public_notify_truncate AFTER TRUNCATE ON app_events
   FOR EACH STATEMENT EXECUTE FUNCTION app_events_public_notify()`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(SECTION).onConflict('key').merge();
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex('app_auth_permission_sections').where({ key: SECTION.key }).delete();
  await knex.raw('DROP TABLE IF EXISTS app_events');
  await knex.raw('DROP FUNCTION IF EXISTS app_events_public_notify()');
}
