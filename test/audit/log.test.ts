// The audit table itself: what recordAudit writes, the trigger that keeps it
// append-only (TRUNCATE included), the daily prune (one process of two), and AUDIT_RETENTION_DAYS.
import { expect } from 'chai';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { ConfigError } from '../../lib/config.js';
import { recordAudit } from '../../models/audit.js';
import { pruneAuditLog } from '../../models/audit-prune.js';
import { startAuditRetention } from '../../services/audit-retention.js';
import { closeTestApp, contextOf, createTestApp, resetData, testConfig, type App } from '../support/app.js';

const DAY = 86_400_000;

async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('the audit log table', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('records one row with the actor snapshot, the address, the target and the details, at the injected clock', async () => {
    ctx.clock.set(() => Date.parse('2026-03-04T05:06:07.000Z'));
    await recordAudit(ctx, {
      actor: { id: 42, name: 'Alice' },
      ip: '203.0.113.9',
      action: 'page.updated',
      target: { type: 'page', id: 7, label: 'Accueil' },
      details: { fields: ['title'] },
    });
    const rows = await ctx.db('app_audit_events').select('*');
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      actor_id: 42,
      actor_name: 'Alice',
      ip: '203.0.113.9',
      action: 'page.updated',
      target_type: 'page',
      target_id: '7',
      target_label: 'Accueil',
      details: { fields: ['title'] },
    });
    expect(rows[0].at.toISOString()).to.equal('2026-03-04T05:06:07.000Z');
  });

  it('records an anonymous event with no actor, no target and empty details', async () => {
    await recordAudit(ctx, { actor: null, ip: null, action: 'auth.login_failed' });
    const row = await ctx.db('app_audit_events').first();
    expect(row).to.deep.include({ actor_id: null, actor_name: null, ip: null, target_type: null, target_id: null, target_label: null, details: {} });
  });

  it('goes away with the transaction it was written in', async () => {
    const error = await rejection(
      inTransaction(ctx, async (tx) => {
        await recordAudit(tx, { actor: null, ip: null, action: 'role.created' });
        throw new Error('the change failed after its event');
      }),
    );
    expect(error.message).to.equal('the change failed after its event');
    expect(await ctx.db('app_audit_events').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  describe('append-only trigger', () => {
    beforeEach(() => recordAudit(ctx, { actor: { id: 1, name: 'Alice' }, ip: '127.0.0.1', action: 'auth.login' }));

    it('refuses an UPDATE of any column, and the row stays as written', async () => {
      const error = await rejection(ctx.db('app_audit_events').update({ actor_name: 'Mallory' }));
      expect(error.code).to.equal('42501');
      expect(error.message).to.match(/append-only: UPDATE refused/);
      expect((await ctx.db('app_audit_events').first())?.actor_name).to.equal('Alice');
    });

    it('refuses a DELETE, even of one row by id', async () => {
      const error = await rejection(ctx.db('app_audit_events').where({ id: 1 }).delete());
      expect(error.message).to.match(/append-only: DELETE refused/);
      expect(await ctx.db('app_audit_events').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    });

    it('refuses a DELETE of a recent row even with the prune setting on (only rows older than it go)', async () => {
      const error = await rejection(
        inTransaction(ctx, async (tx) => {
          await tx.db.raw(`SELECT set_config('app.audit_prune_before', ?, true)`, ['2000-01-01T00:00:00Z']);
          await tx.db('app_audit_events').delete();
        }),
      );
      expect(error.message).to.match(/append-only: DELETE refused/);
      expect(await ctx.db('app_audit_events').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    });

    it('refuses a TRUNCATE (a statement the row trigger cannot see), even with the prune setting on, and the row stays', async () => {
      const error = await rejection(ctx.db.raw('TRUNCATE app_audit_events'));
      expect(error.code).to.equal('42501');
      expect(error.message).to.match(/append-only: TRUNCATE refused/);
      const pruning = await rejection(
        inTransaction(ctx, async (tx) => {
          await tx.db.raw(`SELECT set_config('app.audit_prune_before', ?, true)`, ['2999-01-01T00:00:00Z']);
          await tx.db.raw('TRUNCATE app_audit_events');
        }),
      );
      expect(pruning.message).to.match(/append-only: TRUNCATE refused/);
      expect(await ctx.db('app_audit_events').count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    });

    it('keeps the prune setting to its own transaction (SET LOCAL): the next one is refused again', async () => {
      await inTransaction(ctx, (tx) => tx.db.raw(`SELECT set_config('app.audit_prune_before', ?, true)`, ['2999-01-01T00:00:00Z']));
      const error = await rejection(ctx.db('app_audit_events').delete());
      expect(error.message).to.match(/append-only: DELETE refused/);
    });
  });
});

describe('the audit log retention', () => {
  let first: App;
  let second: App;
  let one: AppContext;
  let two: AppContext;
  before(() => {
    first = createTestApp({ AUDIT_RETENTION_DAYS: '30' });
    second = createTestApp({ AUDIT_RETENTION_DAYS: '30' });
    one = contextOf(first);
    two = contextOf(second);
  });
  after(async () => {
    await closeTestApp(second);
  });
  beforeEach(() => resetData(one));

  async function eventAt(at: number, action: string): Promise<void> {
    one.clock.set(() => at);
    await recordAudit(one, { actor: null, ip: null, action });
  }

  async function actions(): Promise<string[]> {
    return (await one.db('app_audit_events').orderBy('id').select('action')).map((row) => row.action);
  }

  it('deletes only the events older than AUDIT_RETENTION_DAYS', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    await eventAt(now - 31 * DAY, 'user.created');
    await eventAt(now - 30 * DAY - 1000, 'user.updated');
    await eventAt(now - 30 * DAY + 1000, 'user.invited');
    await eventAt(now - DAY, 'auth.login');
    one.clock.set(() => now);
    expect(await pruneAuditLog(one)).to.deep.equal({ ran: true, removed: 2 });
    expect(await actions()).to.deep.equal(['user.invited', 'auth.login']);
  });

  it('runs in one process of two started together, and again only a day later', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    await eventAt(now - 40 * DAY, 'user.created');
    await eventAt(now - 35 * DAY, 'user.updated');
    one.clock.set(() => now);
    two.clock.set(() => now);
    const outcomes = await Promise.all([pruneAuditLog(one), pruneAuditLog(two)]);
    expect(outcomes.filter((outcome) => outcome.ran)).to.have.length(1);
    expect(outcomes.map((outcome) => outcome.removed).sort()).to.deep.equal([0, 2]);
    expect(await actions()).to.deep.equal([]);

    // 23 hours later neither runs; 24 hours later exactly one does.
    await eventAt(now - 40 * DAY, 'role.created');
    one.clock.set(() => now + 23 * 3_600_000);
    two.clock.set(() => now + 23 * 3_600_000);
    expect(await Promise.all([pruneAuditLog(one), pruneAuditLog(two)])).to.deep.equal([
      { ran: false, removed: 0 },
      { ran: false, removed: 0 },
    ]);
    expect(await actions()).to.deep.equal(['role.created']);
    one.clock.set(() => now + DAY);
    two.clock.set(() => now + DAY);
    const later = await Promise.all([pruneAuditLog(two), pruneAuditLog(one)]);
    expect(later.filter((outcome) => outcome.ran)).to.have.length(1);
    expect(await actions()).to.deep.equal([]);
  });

  it('is asked at once when the server starts its hourly check, which stops with it', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    await eventAt(now - 31 * DAY, 'user.created');
    one.clock.set(() => now);
    const stop = startAuditRetention(one);
    stop();
    await one.background.settle();
    expect(await actions()).to.deep.equal([]);
    const state = await one.db('app_audit_prune_state').first();
    expect(state?.last_run_at.getTime()).to.equal(now);
  });

  it('reads AUDIT_RETENTION_DAYS: 365 by default, a whole number of days from 1, anything else refused with the variable named', () => {
    expect(testConfig().auditRetentionDays).to.equal(365);
    expect(testConfig({ AUDIT_RETENTION_DAYS: '7' }).auditRetentionDays).to.equal(7);
    for (const bad of ['0', '-1', '1.5', 'un an', '36501']) {
      expect(() => testConfig({ AUDIT_RETENTION_DAYS: bad }), bad)
        .to.throw(ConfigError)
        .with.property('message')
        .that.matches(/AUDIT_RETENTION_DAYS/);
    }
  });
});
