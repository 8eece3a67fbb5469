// The audit log, frozen as of this version: one append-only table of events, the
// one-row state of its daily prune, and the permission section «Journal».
//
// actor_id has no foreign key: an event outlives the account that caused it (the name
// is kept as a snapshot), and ON DELETE SET NULL would be an UPDATE the trigger refuses.
// Ids are never reused (serial), so a deleted account's id names no one else.
//
// Append-only: a trigger refuses every UPDATE and every DELETE, except a DELETE run
// after `SET LOCAL app.audit_prune_before = '<timestamp>'` in the same transaction, and
// then only of rows older than that timestamp (the retention prune). TRUNCATE is not
// refused: it needs the table's owner, who can drop the trigger anyway.
import type { Knex } from 'knex';

const STATEMENTS = [
  `CREATE TABLE app_audit_events (
    id bigserial CONSTRAINT app_audit_events_pkey PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    actor_id integer,
    actor_name varchar(300),
    ip varchar(64),
    action varchar(64) NOT NULL,
    target_type varchar(32),
    target_id varchar(64),
    target_label varchar(500),
    details jsonb NOT NULL DEFAULT '{}'
  )`,
  // The listings read newest first (id descending) within each filter.
  `CREATE INDEX app_audit_events_actor ON app_audit_events (actor_id, id) WHERE actor_id IS NOT NULL`,
  `CREATE INDEX app_audit_events_target ON app_audit_events (target_type, target_id, id) WHERE target_type IS NOT NULL`,
  `CREATE INDEX app_audit_events_action ON app_audit_events (action, id)`,
  // Date ranges and the prune.
  `CREATE INDEX app_audit_events_at ON app_audit_events (at)`,
  `CREATE FUNCTION app_audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    prune_before text := current_setting('app.audit_prune_before', true);
  BEGIN
    IF TG_OP = 'DELETE' AND prune_before IS NOT NULL AND prune_before <> '' AND OLD.at < prune_before::timestamptz THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'app_audit_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END
  $$`,
  `CREATE TRIGGER app_audit_events_append_only BEFORE UPDATE OR DELETE ON app_audit_events
    FOR EACH ROW EXECUTE FUNCTION app_audit_events_append_only()`,
  // One row: when the prune last ran. A process claims a run with a conditional
  // UPDATE, so one process of several prunes each day.
  `CREATE TABLE app_audit_prune_state (
    id integer CONSTRAINT app_audit_prune_state_pkey PRIMARY KEY CONSTRAINT app_audit_prune_state_one_row CHECK (id = 1),
    last_run_at timestamptz NOT NULL
  )`,
];

const SECTION = { key: 'audit', label: 'Journal', position: 40 };
const PERMISSIONS = [{ key: 'audit.view', section: 'audit', label: 'Consulter le journal', position: 0 }];

export async function up(knex: Knex): Promise<void> {
  for (const statement of STATEMENTS) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(SECTION).onConflict('key').merge();
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  // The system role admin holds every permission.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  // Deleting the section removes its permission and the grants (ON DELETE CASCADE).
  await knex('app_auth_permission_sections').where({ key: SECTION.key }).delete();
  await knex.raw('DROP TABLE IF EXISTS app_audit_prune_state');
  await knex.raw('DROP TABLE IF EXISTS app_audit_events');
  await knex.raw('DROP FUNCTION IF EXISTS app_audit_events_append_only()');
}
