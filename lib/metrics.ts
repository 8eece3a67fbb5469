// Prometheus metrics of one application, through prom-client. Each app owns its own
// Registry, never prom-client's global one, so two apps in one process (the tests, a
// benchmark, a future cluster primary) never mix or collide on their series. Nothing is
// collected unless METRICS_TOKEN is set: /metrics answers 404 then, and every hook below
// is a no-op, so an instance nobody scrapes pays nothing.
//
// Cluster mode (WEB_CONCURRENCY above 1): each worker keeps its own registry, and the
// worker that takes a scrape answers with the sum of all of them, gathered through the
// primary (lib/cluster-metrics.ts). Nothing here assumes one process: every series is a
// counter, a histogram or a gauge that adds up across workers (pool sizes, queues).
import { AsyncLocalStorage } from 'node:async_hooks';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import { lazyRequire } from './lazy-require.js';

// Loaded only when METRICS_TOKEN is set (createMetrics): an instance nobody scrapes never loads it.
const promClient = lazyRequire<typeof PromClient>('prom-client');

/** What one request accumulates while it runs (SQL statements issued on the app's pool). */
interface RequestTally {
  statements: number;
}

interface PoolStats {
  inUse: number;
  idle: number;
  /** Acquires waiting for a connection. */
  waiting: number;
  max: number;
}

type MailOutcome = 'sent' | 'failed';
export type HashOperation = 'hash' | 'verify';

export interface Metrics {
  /** The registry /metrics answers from; undefined when collection is off. */
  readonly registry: Registry | undefined;
  /** A new request's tally; undefined when off. */
  startRequest(): RequestTally | undefined;
  /** Runs `next` with the tally as the current one, so the statements issued on the request's behalf count in it (AsyncLocalStorage). */
  runRequest(tally: RequestTally | undefined, next: () => void): void;
  /** Records a finished request under its route pattern (never the raw path). */
  endRequest(tally: RequestTally | undefined, method: string, route: string, status: number, seconds: number): void;
  /** One SQL statement issued on the pool (knex 'query' event), counted for the current request. */
  statement(): void;
  /** Reads the pool's state at each scrape. */
  watchPool(read: () => PoolStats): void;
  /** Reads the password-hash queue length at each scrape. */
  watchHashQueue(read: () => number): void;
  hashed(operation: HashOperation, seconds: number): void;
  rateLimited(operation: string): void;
  mail(template: string, outcome: MailOutcome): void;
}

function nothing(): void {}

/** The hooks when METRICS_TOKEN is unset: no registry, no work. */
export const metricsOff: Metrics = Object.freeze<Metrics>({
  registry: undefined,
  startRequest: () => undefined,
  runRequest(_tally, next) {
    next();
  },
  endRequest: nothing,
  statement: nothing,
  watchPool: nothing,
  watchHashQueue: nothing,
  hashed: nothing,
  rateLimited: nothing,
  mail: nothing,
});

// Nearly every route issues between 0 and 10 statements; a list or a tree page that
// issues dozens is what this histogram is there to show.
const STATEMENT_BUCKETS = [0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];
// bcrypt at cost 11–12 takes 100–400 ms on one core; the queue adds to it under load.
const HASH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10];
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

function statusClass(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100) - 1] ?? 'other';
}

const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The metrics of one application: its own registry, the default process metrics included. */
export function createMetrics(): Metrics {
  const { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } = promClient();
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which Prometheus's naming rules (and `promtool check
  // metrics`) refuse; each is the sum of the per-type gauge beside it (nodejs_active_handles…).
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name);

  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by route pattern (never the raw path), method and status class.',
    labelNames: ['route', 'method', 'status_class'] as const,
    registers,
  });
  const statements = new Histogram({
    name: 'site_db_statements_per_request',
    help: 'SQL statements issued on the pool while serving one request, by route pattern.',
    labelNames: ['route'] as const,
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  const hashDuration = new Histogram({
    name: 'site_password_hash_duration_seconds',
    help: 'Password hashing or verification, from submission to result (queue wait included).',
    labelNames: ['operation'] as const,
    buckets: HASH_BUCKETS,
    registers,
  });
  const refusals = new Counter({
    name: 'site_rate_limit_refusals_total',
    help: 'Requests refused with 429 because a per-address budget was spent, by operation.',
    labelNames: ['operation'] as const,
    registers,
  });
  const mailSent = new Counter({
    name: 'site_emails_sent_total',
    help: 'Emails handed to SMTP (or to the outbox folder), by template.',
    labelNames: ['template'] as const,
    registers,
  });
  const mailFailed = new Counter({
    name: 'site_emails_failed_total',
    help: 'Emails that could not be sent, by template.',
    labelNames: ['template'] as const,
    registers,
  });

  const tallies = new AsyncLocalStorage<RequestTally>();
  return {
    registry,
    startRequest: () => ({ statements: 0 }),
    runRequest(tally, next) {
      if (tally) tallies.run(tally, next);
      else next();
    },
    endRequest(tally, method, route, status, seconds) {
      duration.observe({ route, method, status_class: statusClass(status) }, seconds);
      if (tally) statements.observe({ route }, tally.statements);
    },
    statement() {
      const tally = tallies.getStore();
      if (tally) tally.statements++;
    },
    watchPool(read) {
      new Gauge({
        name: 'site_db_pool_connections',
        help: 'Connections of the pool, by state: in_use (lent to a query or a transaction) or idle.',
        labelNames: ['state'] as const,
        registers,
        collect() {
          const stats = read();
          this.set({ state: 'in_use' }, stats.inUse);
          this.set({ state: 'idle' }, stats.idle);
        },
      });
      new Gauge({
        name: 'site_db_pool_waiting',
        help: 'Queries waiting for a free connection of the pool.',
        registers,
        collect() {
          this.set(read().waiting);
        },
      });
      new Gauge({
        name: 'site_db_pool_max',
        help: 'Largest number of connections the pool opens (DATABASE_POOL_MAX).',
        registers,
        collect() {
          this.set(read().max);
        },
      });
    },
    watchHashQueue(read) {
      new Gauge({
        name: 'site_password_hash_queue_length',
        help: 'Password hashing jobs waiting for a free hashing thread.',
        registers,
        collect() {
          this.set(read());
        },
      });
    },
    hashed(operation, seconds) {
      hashDuration.observe({ operation }, seconds);
    },
    rateLimited(operation) {
      refusals.inc({ operation });
    },
    mail(template, outcome) {
      (outcome === 'sent' ? mailSent : mailFailed).inc({ template });
    },
  };
}
