// The audit log refuses TRUNCATE too, frozen as of this version. Its row trigger
// (20261124000100) refuses every UPDATE and DELETE but cannot see a TRUNCATE, which
// empties the table without touching a row: a statement trigger refuses it, with the
// same error as the row trigger's. The retention prune (a DELETE of old rows) is
// unchanged.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION app_audit_events_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'app_audit_events is append-only: TRUNCATE refused' USING ERRCODE = 'insufficient_privilege';
  END
  $$`);
  await knex.raw(`CREATE TRIGGER app_audit_events_refuse_truncate BEFORE TRUNCATE ON app_audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION app_audit_events_refuse_truncate()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS app_audit_events_refuse_truncate ON app_audit_events');
  await knex.raw('DROP FUNCTION IF EXISTS app_audit_events_refuse_truncate()');
}
