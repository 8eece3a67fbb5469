// The application context: everything one application needs, built once by
// createApp(config) and passed down explicitly to routers, controllers and models.
// Nothing in the source keeps state at module level, so two applications in one
// process (on two databases) never see each other's data.
import type { Knex } from 'knex';
import type { RequestHandler } from 'express';
import type nunjucks from 'nunjucks';
import { Mailer } from '../mail/index.js';
import { BackgroundTasks } from './background.js';
import { Clock } from './clock.js';
import type { Config } from './config.js';
import { noteDatabaseDown, watchDatabaseOutage } from './database-outage.js';
import { createKnex } from './db.js';
import { createLogger, prettyLogsWanted, type Logger } from './logger.js';
import { createMetrics, metricsOff, type Metrics } from './metrics.js';
import type { SiteRegistry } from './modules.js';
import { createPasswordHasher, type PasswordHasher } from './password-hasher.js';
import { PublicCache } from './public-cache.js';
import { PublicHits } from './public-hits.js';
import { ReadReplica } from './read-replica.js';
import { newSetupCode } from './setup-code.js';
import { createUploadStore, type UploadStore } from './upload-storage.js';
import { createViews } from './views.js';

// The hit path's memos (one per URL answered from the cache) take a sixteenth of PAGE_CACHE_MB.
const HIT_SHARE = 1 / 16;

/** Facts an application learns once and keeps for its lifetime. */
interface AppMemo {
  /** Set once the first account exists: that answer never changes back. */
  accountExists: boolean;
  /** A hash compared against when an address is unknown, so that costs the same time. */
  dummyHash?: Promise<string>;
  /** When expired rate-limit rows were last swept (ms). */
  lastRateLimitSweep: number;
  /** True from the first request refused for a database outage until a statement succeeds. */
  databaseDown: boolean;
  /** Warnings already logged once (keys chosen by their authors). */
  loggedOnce: Set<string>;
  /** The first-run form's one-time code when HOST is not loopback (lib/setup-code.ts); new at each start. */
  readonly setupCode: string;
  /** Set when the server begins its graceful stop: /healthz answers 503 from then on. */
  stopping: boolean;
  /** The key of the stored TOTP secrets, derived once from SESSION_SECRET (models/auth/two-factor-crypto.ts). */
  twoFactorKey?: Buffer;
  /** What a module keeps per application, under its name (the settings module: the site's settings, read once). */
  modules: Map<string, unknown>;
  /** The session steps a public row runs when it finds it needs the reader (middleware/session-on-demand.ts). */
  sessionOnDemand?: RequestHandler[];
}

export interface AppContext {
  readonly config: Config;
  /** The pool; inside inTransaction() the transaction, so a model's statements join it. */
  readonly db: Knex;
  readonly hasher: PasswordHasher;
  readonly mailer: Mailer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly background: BackgroundTasks;
  /** What the core and the modules registered: routes, admin screens, permission sections… */
  readonly site: SiteRegistry;
  readonly memo: AppMemo;
  /** This app's Prometheus registry and hooks (lib/metrics.ts); no-ops unless METRICS_TOKEN is set. */
  readonly metrics: Metrics;
  /** The public read cache (lib/public-cache.ts): off when PAGE_CACHE_MB=0. */
  readonly publicCache: PublicCache;
  /** The URLs the hit path answers from that cache (lib/public-hits.ts); unset when either is off. */
  readonly publicHits?: PublicHits;
  /** The replica's pool (DATABASE_READ_URL), else `db`; inside inTransaction() the transaction.
   *  Public reads take it through publicReads(), which checks the replica is fresh enough. */
  readonly readDb: Knex;
  /** Chooses between the replica and the primary (lib/read-replica.ts); unset without DATABASE_READ_URL. */
  readonly readReplica?: ReadReplica;
  /** Uploaded files (lib/upload-storage.ts): on disk or in PostgreSQL per UPLOAD_STORAGE. */
  readonly uploads: UploadStore;
  /** The Nunjucks environment of the app's views (lib/views.ts): res.render and the use cases that render. */
  readonly views: nunjucks.Environment;
}

export function createContext(config: Config & { databaseUrl: string }, site: SiteRegistry): AppContext {
  const logger = createLogger(config.logLevel, config.worker === undefined ? undefined : { worker: config.worker, pid: process.pid }, {
    pretty: prettyLogsWanted(config),
  });
  const clock = new Clock();
  // Collected only when someone may read them: without a token /metrics does not exist.
  const metrics = config.metricsToken ? createMetrics() : metricsOff;
  const db = createKnex(config.databaseUrl, { poolMax: config.databasePoolMax, logger, metrics });
  const hitBytes = config.publicHitPath && config.pageCacheBytes > 0 ? Math.max(4096, Math.floor(config.pageCacheBytes * HIT_SHARE)) : 0;
  const publicCache = new PublicCache({
    maxBytes: config.pageCacheBytes,
    reservedBytes: hitBytes,
    // LISTEN needs a session of its own: a direct connection when DATABASE_URL goes through a pooler.
    databaseUrl: config.databaseListenUrl ?? config.databaseUrl,
    logger,
    listen: !!config.databaseReadUrl || site.followsChanges,
    heartbeatMs: config.publicCacheHeartbeatMs,
  });
  publicCache.watchWrites(db);
  const publicHits = hitBytes > 0 ? new PublicHits(publicCache, hitBytes) : undefined;
  const readDb = config.databaseReadUrl ? createKnex(config.databaseReadUrl, { poolMax: config.databasePoolMax, logger, metrics: metricsOff }) : db;
  const readReplica = readDb === db ? undefined : new ReadReplica({ primary: db, replica: readDb, cache: publicCache, logger });
  const memo: AppMemo = {
    accountExists: false,
    databaseDown: false,
    lastRateLimitSweep: 0,
    loggedOnce: new Set(),
    modules: new Map(),
    setupCode: config.setupCode ?? newSetupCode(),
    stopping: false,
  };
  // An outage is logged when it starts and when it ends, whoever meets it (lib/database-outage.ts).
  watchDatabaseOutage(db, memo, logger);
  return {
    config,
    db,
    hasher: createPasswordHasher({ cost: config.passwordHashCost, threads: config.passwordHashThreads, nice: config.passwordHashNice, logger, metrics }),
    mailer: new Mailer(config, logger, clock, metrics),
    clock,
    logger,
    background: new BackgroundTasks(logger, (error, task) => noteDatabaseDown(memo, logger, error, task)),
    site,
    memo,
    metrics,
    publicCache,
    publicHits,
    readDb,
    readReplica,
    uploads: createUploadStore(config, db),
    views: createViews(config, clock, site.viewDirectories),
  };
}

/** Releases what createContext() opened, after the background work has finished. */
export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.background.settle();
  await ctx.publicCache.close();
  ctx.mailer.close();
  await ctx.db.destroy();
  if (ctx.readDb !== ctx.db) await ctx.readDb.destroy();
  await ctx.hasher.close();
}

/**
 * Runs `work` in one transaction: the context it receives carries the transaction as
 * `db`, so every model called with it writes in that transaction (nested calls use a
 * savepoint).
 */
export function inTransaction<T>(ctx: AppContext, work: (tx: AppContext) => Promise<T>): Promise<T> {
  return ctx.db.transaction((trx) => work({ ...ctx, db: trx, readDb: trx }));
}

/**
 * The context a public read (page by path, child lists, the site, the sitemap) runs its
 * statements with: `db` is the replica when it has replayed every change heard of,
 * else the primary (lib/read-replica.ts). Inside a transaction, or without a replica,
 * `ctx` itself.
 */
export async function publicReads(ctx: AppContext): Promise<AppContext> {
  if (!ctx.readReplica || ctx.readDb === ctx.db) return ctx;
  const db = await ctx.readReplica.choose();
  return db === ctx.db ? ctx : { ...ctx, db };
}

/**
 * Runs a public read with publicReads()' context. A replica that fails is left alone
 * for a while (lib/read-replica.ts) and the read is run again on the primary, so a lost
 * replica costs a slower answer, never an error page.
 */
export async function withPublicReads<T>(ctx: AppContext, run: (reads: AppContext) => Promise<T>): Promise<T> {
  const reads = await publicReads(ctx);
  if (reads === ctx || !ctx.readReplica) return run(ctx);
  const replica = ctx.readReplica;
  return run(reads).catch((error: unknown) => {
    replica.failed(error);
    return run(ctx);
  });
}

/** Logs `message` once per application for `key`. */
export function warnOnce(ctx: AppContext, key: string, message: string, details: Record<string, unknown> = {}): void {
  if (ctx.memo.loggedOnce.has(key)) return;
  ctx.memo.loggedOnce.add(key);
  ctx.logger.warn(details, message);
}
