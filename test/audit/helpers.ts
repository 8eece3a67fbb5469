// Reading the audit log in the tests of this folder: the events written since a mark.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import type { AuditEventRow } from '../../lib/tables.js';

/** The id of the newest event (0 when none): what a test compares against after acting. */
export async function auditMark(ctx: AppContext): Promise<number> {
  const row = await ctx.db('app_audit_events').max({ id: 'id' }).first();
  return Number(row?.id ?? 0);
}

export async function eventsSince(ctx: AppContext, mark: number): Promise<AuditEventRow[]> {
  return ctx.db('app_audit_events').where('id', '>', mark).orderBy('id').select('*');
}

/** The one event written since `mark` (fails when there are none or several). */
export async function onlyEventSince(ctx: AppContext, mark: number): Promise<AuditEventRow> {
  const events = await eventsSince(ctx, mark);
  expect(
    events.map((event) => event.action),
    'exactly one event',
  ).to.have.length(1);
  return events[0];
}

/** A trigger making every INSERT of a row matching `condition` into `table` fail, for rollback tests. */
export async function failInserts(ctx: AppContext, table: string, condition: string): Promise<() => Promise<void>> {
  await ctx.db.raw(`CREATE OR REPLACE FUNCTION test_fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'test: insert refused' USING ERRCODE = 'check_violation'; END $$`);
  await ctx.db.raw(`CREATE TRIGGER test_fail_insert BEFORE INSERT ON ${table} FOR EACH ROW WHEN (${condition}) EXECUTE FUNCTION test_fail_insert()`);
  return async () => {
    await ctx.db.raw(`DROP TRIGGER IF EXISTS test_fail_insert ON ${table}`);
  };
}
