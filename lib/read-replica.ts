// The public reads' choice between a streaming replica (DATABASE_READ_URL) and the
// primary. A public read goes to the replica only when the replica is known to show
// every public change this process has heard of; otherwise it waits, briefly, for the
// replica to replay it, then reads the primary.
//
// What "every change heard of" means: the public read cache's listener (it runs even
// with PAGE_CACHE_MB=0 when a replica is configured) hears each committed public change,
// this process's own writes included (PublicCache.ready() waits for their notification).
// A notification's payload carries pg_current_wal_lsn() taken inside the writing
// transaction, before its commit record: a replica that replayed that position may
// still not show the commit. So after a notification (or when the listener starts)
// the target is read once from the primary, `SELECT pg_current_wal_lsn()`, which, once
// the notification has arrived, lies after the commit; one statement per burst of
// changes, none per read. A read then compares the target with what the replica was
// last seen to have replayed; only when it is behind does it ask the replica
// (`pg_last_wal_replay_lsn()`), every POLL_MS, for at most waitMs, then reads the
// primary. While the listener does not listen, nothing can be known: the primary.
import type { Knex } from 'knex';
import type { Logger } from './logger.js';
import type { PublicCache } from './public-cache.js';

/** How long a public read waits for the replica to catch up before reading the primary. */
const REPLICA_WAIT_MS = 200;
const POLL_MS = 10;
/** After a failed statement on the replica, public reads use the primary this long before trying it again. */
const REPLICA_RETRY_MS = 5000;

/** `16/B374D848` → a comparable number (a WAL position is 64 bits). */
function parseLsn(lsn: string | null | undefined): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(lsn ?? '');
  return match ? (BigInt('0x' + match[1]) << 32n) + BigInt('0x' + match[2]) : undefined;
}

export interface ReadReplicaOptions {
  primary: Knex;
  replica: Knex;
  cache: PublicCache;
  logger: Logger;
  waitMs?: number;
}

export interface ReplicaStats {
  /** Public reads answered by the replica, and by the primary (stale replica, no listener, error). */
  replicaReads: number;
  primaryReads: number;
}

export class ReadReplica {
  readonly stats: ReplicaStats = { replicaReads: 0, primaryReads: 0 };
  private readonly waitMs: number;
  /** The primary's WAL position after the last change heard of (0: none yet). */
  private target = 0n;
  /** What the replica was last seen to have replayed. */
  private replayed = 0n;
  /** Set by a notification until the target has been read again from the primary. */
  private targetPending?: Promise<void>;
  private changesSinceTarget = 0;
  private catchingUp?: { target: bigint; done: Promise<boolean> };
  /** Until when (Date.now()) the replica is left alone after a failure. */
  private downUntil = 0;

  constructor(private readonly options: ReadReplicaOptions) {
    this.waitMs = options.waitMs ?? REPLICA_WAIT_MS;
    const { events } = options.cache;
    events.on('listening', () => this.changed());
    events.on('change', () => this.changed());
  }

  /** The pool a public read (outside a transaction) should use now. */
  async choose(): Promise<Knex> {
    const { cache, primary, replica } = this.options;
    if (!(await cache.ready())) return this.count(primary);
    while (this.targetPending) await this.targetPending;
    if (!cache.hearsChanges) return this.count(primary);
    const target = this.target;
    if (target === 0n || Date.now() < this.downUntil) return this.count(primary);
    if (this.replayed >= target) return this.count(replica);
    return this.count((await this.catchUp(target)) ? replica : primary);
  }

  /**
   * A statement on the replica failed (it is down, or unreachable): the reads use the
   * primary for REPLICA_RETRY_MS, then the replica's position is checked again.
   */
  failed(error: unknown): void {
    if (Date.now() >= this.downUntil) {
      this.options.logger.warn(
        { err: error instanceof Error ? error.message : String(error), retryMs: REPLICA_RETRY_MS },
        'read replica: a statement failed; public reads use the primary',
      );
    }
    this.replayed = 0n;
    this.downUntil = Date.now() + REPLICA_RETRY_MS;
  }

  private count(db: Knex): Knex {
    if (db === this.options.replica) this.stats.replicaReads++;
    else this.stats.primaryReads++;
    return db;
  }

  private changed(): void {
    this.changesSinceTarget++;
    if (this.targetPending) return;
    this.targetPending = this.readTarget().finally(() => (this.targetPending = undefined));
  }

  // Runs again while changes keep coming in during the statement: the target read must
  // follow every notification it covers.
  private async readTarget(): Promise<void> {
    while (this.changesSinceTarget > 0) {
      this.changesSinceTarget = 0;
      try {
        const { rows } = await this.options.primary.raw<{ rows: Array<{ lsn: string }> }>('SELECT pg_current_wal_lsn()::text AS lsn');
        const lsn = parseLsn(rows[0]?.lsn);
        if (lsn !== undefined && lsn > this.target) this.target = lsn;
      } catch (error) {
        // Unknown target: until a later change succeeds, the replica may be behind.
        this.target = 2n ** 64n;
        this.options.logger.warn({ err: (error as Error).message }, 'read replica: the primary’s WAL position could not be read; public reads use the primary');
      }
    }
  }

  /** True once the replica has replayed `target`, within waitMs; shared by concurrent reads. */
  private catchUp(target: bigint): Promise<boolean> {
    if (this.catchingUp && this.catchingUp.target >= target) return this.catchingUp.done;
    const done = this.poll(target).finally(() => {
      if (this.catchingUp?.done === done) this.catchingUp = undefined;
    });
    this.catchingUp = { target, done };
    return done;
  }

  private async poll(target: bigint): Promise<boolean> {
    const attempts = Math.max(1, Math.ceil(this.waitMs / POLL_MS) + 1);
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      try {
        const { rows } = await this.options.replica.raw<{ rows: Array<{ lsn: string | null }> }>('SELECT pg_last_wal_replay_lsn()::text AS lsn');
        const lsn = parseLsn(rows[0]?.lsn);
        if (lsn === undefined) return false; // not a standby (promoted, or misconfigured)
        if (lsn > this.replayed) this.replayed = lsn;
        if (lsn >= target) return true;
      } catch (error) {
        this.failed(error);
        return false;
      }
    }
    return false;
  }
}
