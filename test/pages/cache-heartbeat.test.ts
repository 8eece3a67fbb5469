// A hung listening connection (hardening issue): the listener's PostgreSQL backend frozen
// with SIGSTOP, as a half-open TCP connection would leave it (nothing arrives, nothing
// fails). Before, a second process served the old page on every read for as long as it
// lasted (1,112 of 1,112 over 15 s), /readyz said 200 and nothing was logged. Now a round
// trip every PUBLIC_CACHE_HEARTBEAT_MS, late after half of it, counts as a lost connection.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData } from '../support/app.js';
import { listening, makeChain, settled } from './helpers.js';

const HEARTBEAT_MS = 400;
// The round trip's allowance: half the interval.
const ROUND_TRIP_MS = HEARTBEAT_MS / 2;
// Timers and the read itself on a busy two-core machine.
const SLACK_MS = 150;

/** True when `pid` is a PostgreSQL backend of this machine that this process may signal. */
function signalableBackend(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}

describe('public read cache: a hung listening connection', function () {
  this.timeout(60_000);

  it('serves the old page no later than the heartbeat plus one round trip after a change, logs it, names it in /readyz, and listens again', async function () {
    const writerApp = createTestApp();
    const readerApp = createTestApp({ PUBLIC_CACHE_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    const writer = contextOf(writerApp);
    const reader = contextOf(readerApp);
    const warnings: string[] = [];
    const warn = reader.logger.warn.bind(reader.logger);
    const spy = (details: { err?: string }, message?: string) => {
      warnings.push(`${message ?? ''} ${details.err ?? ''}`);
      warn(details, message);
    };
    reader.logger.warn = spy;
    let frozen: number | undefined;
    try {
      await resetData(writer);
      await listening(reader);
      const [page] = await makeChain(writer, 1, 'hb', { blocks: [{ type: 'paragraph', text: 'Avant le gel' }] });
      await settled(reader);
      expect((await request(readerApp).get('/hb1')).text).to.include('Avant le gel');
      expect(reader.publicCache.stats.entries).to.be.greaterThan(0);
      const pid = reader.publicCache.listenerPid!;
      if (!signalableBackend(pid)) this.skip();

      process.kill(pid, 'SIGSTOP');
      frozen = pid;
      // Committed through another connection, as another process would: its notification
      // reaches a backend that no longer runs.
      await updatePage(writer, page, { blocks: [{ type: 'paragraph', text: 'Après le gel' }] });
      const changedAt = Date.now();
      let stale = 0;
      let fresh = 0;
      let lastStaleSentMs = 0;
      while (Date.now() - changedAt < 4 * HEARTBEAT_MS) {
        const sentMs = Date.now() - changedAt;
        const text = (await request(readerApp).get('/hb1')).text;
        if (text.includes('Avant le gel')) {
          stale++;
          lastStaleSentMs = sentMs;
          expect(fresh, 'the old page after the new one').to.equal(0);
        } else {
          expect(text).to.include('Après le gel');
          fresh++;
        }
      }
      expect(stale, 'reads of the old page right after the change (the cache did not know yet)').to.be.greaterThan(0);
      if (process.env.SHOW_STALENESS) console.log({ stale, fresh, lastStaleSentMs });
      expect(lastStaleSentMs, `${stale} stale, ${fresh} fresh`).to.be.below(HEARTBEAT_MS + ROUND_TRIP_MS + SLACK_MS);
      expect(fresh).to.be.greaterThan(0);
      expect(warnings.filter((line) => line.includes('the listening connection was lost') && line.includes('no answer to a round trip'))).to.have.length(1);

      // Meanwhile it listens again on a new connection (the frozen backend is left behind).
      await listening(reader);
      expect(reader.publicCache.listenerPid).not.to.equal(pid);
      const readiness = await request(readerApp).get('/readyz');
      expect(readiness.status).to.equal(200);
      expect(readiness.body.checks.cacheListener).to.equal('listening');
    } finally {
      if (frozen) process.kill(frozen, 'SIGCONT');
      await closeTestApp(readerApp);
      await closeTestApp(writerApp);
    }
  });

  it('names the listener "reconnecting" in /readyz while it is lost, the instance staying ready', async function () {
    const readerApp = createTestApp({ PUBLIC_CACHE_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    const reader = contextOf(readerApp);
    try {
      await listening(reader);
      const pid = reader.publicCache.listenerPid!;
      if (!signalableBackend(pid)) this.skip();
      // Bounded, so that the backend is always let go (finally) even when nothing notices.
      const lost = once(reader.publicCache.events, 'lost', { signal: AbortSignal.timeout(5000) });
      process.kill(pid, 'SIGSTOP');
      try {
        await lost;
        const readiness = await request(readerApp).get('/readyz');
        expect(readiness.status).to.equal(200);
        expect(readiness.body.checks.cacheListener).to.equal('reconnecting');
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    } finally {
      await closeTestApp(readerApp);
    }
  });

  it('closes within about a second while its backend is frozen (the stop does not wait for a hung peer)', async function () {
    // A heartbeat too slow to notice first: the close meets the hung connection itself.
    const app = createTestApp({ PUBLIC_CACHE_HEARTBEAT_MS: '60000' });
    const ctx = contextOf(app);
    let pid: number | undefined;
    try {
      await listening(ctx);
      pid = ctx.publicCache.listenerPid!;
      if (!signalableBackend(pid)) this.skip();
      process.kill(pid, 'SIGSTOP');
      const startedAt = Date.now();
      await ctx.publicCache.close();
      expect(Date.now() - startedAt).to.be.below(2000);
    } finally {
      if (pid) process.kill(pid, 'SIGCONT');
      await closeTestApp(app);
    }
  });
});
