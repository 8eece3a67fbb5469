// The only reader of process.env. Every variable is validated here, once, at start;
// a bad value stops the start with a message that names the variable.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Joi from 'joi';
import { ConfigError, parseDuration, parseHstsMaxAge, parseRateLimit, parseTrustProxy, type RateLimitBudget, type TrustProxySetting } from './config-values.js';
import { projectRoot } from './paths.js';

export { ConfigError };

const RATE_LIMITED_OPERATIONS = [
  'login',
  'register',
  'forgot_password',
  'reset_password',
  'setup_account',
  'verify_email',
  'resend_verification',
  'api',
  // /auth/2fa, per client address (its own counter: a sign-in with a code is two POSTs).
  'second_factor',
  // Per account, every client address together, counting failures only (services/sign-in-guard.ts).
  'login_account',
  'login_account_daily',
  'second_factor_account',
  'second_factor_account_daily',
] as const;
export type RateLimitedOperation = (typeof RATE_LIMITED_OPERATIONS)[number];

// Documented in the README's configuration table; `api` is the anonymous budget
// (a logged-in caller gets three times it, never on the public forms).
export const DEFAULT_RATE_LIMITS: Record<RateLimitedOperation, string> = {
  login: '10/15m',
  register: '5/1h',
  forgot_password: '5/1h',
  reset_password: '10/1h',
  setup_account: '10/1h',
  verify_email: '10/1h',
  resend_verification: '5/1h',
  api: '300/5m',
  second_factor: '10/15m',
  login_account: '10/15m',
  login_account_daily: '50/1d',
  second_factor_account: '10/15m',
  second_factor_account_daily: '30/1d',
};

export const UPLOAD_STORAGE_KINDS = ['disk', 'database'] as const;
export type UploadStorageKind = (typeof UPLOAD_STORAGE_KINDS)[number];

export interface Config {
  nodeEnv: string;
  isProduction: boolean;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Connections of this process's pool (DATABASE_POOL_MAX). */
  databasePoolMax: number;
  /** A streaming replica for the public reads (DATABASE_READ_URL); unset → everything reads the primary. */
  databaseReadUrl: string | undefined;
  /** A direct connection for the public cache's LISTEN (DATABASE_LISTEN_URL), when DATABASE_URL goes through a pooler in transaction mode. */
  databaseListenUrl: string | undefined;
  port: number;
  host: string;
  baseUrl: string;
  sessionSecret: string;
  appName: string;
  /** IANA time zone of the dates on screens and in emails (APP_TIMEZONE, or its older name APP_TIME_ZONE; default Europe/Paris). */
  timeZone: string;
  /** Raw APP_AUTH_REGISTRATION: only the exact string 'false' closes registration. */
  registrationFlag: string | undefined;
  trustProxy: TrustProxySetting;
  /** Strict-Transport-Security max-age in seconds, sent in production over HTTPS (HSTS_MAX_AGE, default a year); null: none (`off`). */
  hstsMaxAge: number | null;
  /** A session unused this long ends (SESSION_IDLE_TIMEOUT, default 2 days), beside its absolute lifetime. */
  sessionIdleTimeoutMs: number;
  smtpUrl: string | undefined;
  /** Messages are written to <dataDir>/outbox/ instead of sent: no SMTP_URL (in production only with MAIL_OUTBOX=true). */
  mailOutbox: boolean;
  mailFrom: string;
  uploadDir: string;
  /** The site's own themes (THEMES_DIR, default ./data/themes from the working directory): outside the core, so an upgrade never touches them. */
  themesDir: string;
  /** Where uploaded files live (UPLOAD_STORAGE): `disk` under uploadDir (default) or `database` (PostgreSQL). */
  uploadStorage: UploadStorageKind;
  /** Largest image the media library takes, in bytes (MEDIA_MAX_MB, default 10). */
  mediaMaxBytes: number;
  logLevel: string;
  passwordHashCost: number;
  passwordHashThreads: number;
  /** Nice value of the hashing threads on Linux (PASSWORD_HASH_NICE, default 19; 0 = the process's priority). */
  passwordHashNice: number;
  rateLimits: Record<RateLimitedOperation, RateLimitBudget>;
  /** Bearer token of GET /metrics (METRICS_TOKEN); unset → /metrics is 404 and nothing is collected. */
  metricsToken: string | undefined;
  /** Days an audit event is kept (AUDIT_RETENTION_DAYS, default 365); older ones are pruned daily. */
  auditRetentionDays: number;
  /** Drafts kept between two publications of a page (REVISIONS_KEEP_DRAFTS, default 50); published revisions are all kept. */
  revisionsKeepDrafts: number;
  /** How often an open editor says it is there and the tree asks who is editing (PAGE_PRESENCE_INTERVAL_MS, default 20000). */
  pagePresenceIntervalMs: number;
  /** Bytes of the public read cache (PAGE_CACHE_MB, default 32; 0 turns it off). */
  pageCacheBytes: number;
  /** `s-maxage` of public answers for a shared cache in front (PUBLIC_CACHE_SECONDS, default 0). */
  publicCacheSeconds: number;
  /** Cached public answers sent before Express's pipeline (PUBLIC_HIT_PATH, default on; lib/public-hits.ts). */
  publicHitPath: boolean;
  /** The drain window of a graceful stop (SHUTDOWN_DELAY_MS, default 0): probes answer 503, requests are still served. */
  shutdownDelayMs: number;
  /** Interval of the round trip that checks the public cache's listening connection (PUBLIC_CACHE_HEARTBEAT_MS, default 2000). */
  publicCacheHeartbeatMs: number;
  /** Processes serving the site (WEB_CONCURRENCY: a number, or `auto` = CPU cores); above 1 a node:cluster primary forks them. */
  webConcurrency: number;
  /**
   * The first-run setup code handed down by the cluster primary (SITE_SETUP_CODE, set by
   * lib/cluster.ts in its workers' environment), so every worker asks for the same one.
   */
  setupCode: string | undefined;
  /** This process's number among the cluster's workers (set by the worker's start, never from the environment). */
  worker?: number;
}

/** What the database needs and nothing else (the knex CLI's knexfile). */
export interface DatabaseConfig {
  databaseUrl: string | undefined;
  databasePoolMax: number;
}

/** The variables as validated: defaults applied, numbers converted. */
interface DatabaseEnv {
  DATABASE_URL?: string;
  DATABASE_POOL_MAX: number;
  DATABASE_READ_URL?: string;
  DATABASE_LISTEN_URL?: string;
}

interface Env extends DatabaseEnv {
  NODE_ENV: 'production' | 'development' | 'test';
  DATA_DIR?: string;
  PORT: number;
  HOST: string;
  BASE_URL?: string;
  SESSION_SECRET?: string;
  APP_NAME: string;
  APP_TIMEZONE?: string;
  APP_TIME_ZONE?: string;
  APP_AUTH_REGISTRATION?: string;
  APP_TRUST_PROXY?: string;
  HSTS_MAX_AGE?: string;
  SESSION_IDLE_TIMEOUT?: string;
  SMTP_URL?: string;
  MAIL_OUTBOX?: 'true' | 'false';
  MAIL_FROM?: string;
  UPLOAD_DIR?: string;
  THEMES_DIR?: string;
  UPLOAD_STORAGE: UploadStorageKind;
  MEDIA_MAX_MB: number;
  LOG_LEVEL: string;
  PASSWORD_HASH_COST: number;
  PASSWORD_HASH_THREADS?: number;
  PASSWORD_HASH_NICE: number;
  METRICS_TOKEN?: string;
  AUDIT_RETENTION_DAYS: number;
  REVISIONS_KEEP_DRAFTS: number;
  PAGE_PRESENCE_INTERVAL_MS: number;
  PAGE_CACHE_MB: number;
  PUBLIC_CACHE_SECONDS: number;
  PUBLIC_HIT_PATH: boolean;
  SHUTDOWN_DELAY_MS: number;
  PUBLIC_CACHE_HEARTBEAT_MS: number;
  WEB_CONCURRENCY: number | 'auto';
  SITE_SETUP_CODE?: string;
}

const databaseKeys = {
  DATABASE_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_POOL_MAX: Joi.number().integer().min(1).max(200).default(10),
  DATABASE_READ_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
  DATABASE_LISTEN_URL: Joi.string().uri({ scheme: ['postgres', 'postgresql'] }),
};

// One message whatever the mistake (0, 2.5, 65, "many").
const concurrencyMessage = '{{#label}} must be a number of processes from 1 to 64, or "auto" (one per CPU core)';
const concurrencyKeys = ['number.base', 'number.integer', 'number.min', 'number.max', 'number.unsafe', 'any.only', 'alternatives.types', 'alternatives.match'];
const concurrencyMessages = Object.fromEntries(concurrencyKeys.map((key) => [key, concurrencyMessage]));

function timeZoneSchema(): Joi.StringSchema {
  return Joi.string()
    .max(64)
    .custom((zone: string) => {
      // The list of canonical zones costs a millisecond; building a formatter (which
      // throws RangeError on an unknown zone) loads a locale's data, tens of them at
      // every start. Only an alias (US/Pacific) takes the slow path.
      if (!Intl.supportedValuesOf('timeZone').includes(zone)) new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return zone;
    })
    .messages({ 'any.custom': '{{#label}} must be an IANA time zone such as Europe/Paris' });
}

const envSchema = Joi.object<Env>({
  NODE_ENV: Joi.string().valid('production', 'development', 'test').default('development'),
  DATA_DIR: Joi.string(),
  ...databaseKeys,
  PORT: Joi.number().integer().min(0).max(65535).default(3000),
  HOST: Joi.string().hostname().default('127.0.0.1'),
  BASE_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  SESSION_SECRET: Joi.string().min(32),
  APP_NAME: Joi.string().max(100).default('Site'),
  // Any zone the runtime's Intl knows (Europe/Paris, America/Montreal, UTC…). APP_TIMEZONE is the
  // documented name; APP_TIME_ZONE, the first one, still works (APP_TIMEZONE wins when both are set).
  APP_TIMEZONE: timeZoneSchema(),
  APP_TIME_ZONE: timeZoneSchema(),
  APP_AUTH_REGISTRATION: Joi.string().allow(''),
  APP_TRUST_PROXY: Joi.string().allow(''),
  // Read by parseHstsMaxAge() and parseDuration(): seconds or `off`; a duration such as 2d.
  HSTS_MAX_AGE: Joi.string().allow(''),
  SESSION_IDLE_TIMEOUT: Joi.string(),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  MAIL_OUTBOX: Joi.string().valid('true', 'false').messages({ 'any.only': '{{#label}} must be "true" (write emails to the outbox folder) or "false"' }),
  MAIL_FROM: Joi.string(),
  UPLOAD_DIR: Joi.string(),
  THEMES_DIR: Joi.string(),
  UPLOAD_STORAGE: Joi.string()
    .valid(...UPLOAD_STORAGE_KINDS)
    .default('disk')
    .messages({ 'any.only': '{{#label}} must be "disk" (files under UPLOAD_DIR) or "database" (files in PostgreSQL)' }),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  PASSWORD_HASH_COST: Joi.number().integer().min(4).max(15).default(11),
  // Default: defaultHashThreads() below, once the nice value is known.
  PASSWORD_HASH_THREADS: Joi.number().integer().min(1).max(16),
  // 19: the hashing threads take only the CPU time nothing else wants (Linux; 0 turns it off).
  PASSWORD_HASH_NICE: Joi.number().integer().min(0).max(19).default(19),
  // Sent as `Authorization: Bearer <token>`: the characters a bearer token may hold (RFC 6750).
  METRICS_TOKEN: Joi.string()
    .min(32)
    .pattern(/^[A-Za-z0-9._~+/=-]+$/)
    .messages({ 'string.pattern.base': '{{#label}} may hold only letters, digits and . _ ~ + / = -' }),
  // Whole days, at least one; a hundred years at most.
  AUDIT_RETENTION_DAYS: Joi.number().integer().min(1).max(36500).default(365),
  REVISIONS_KEEP_DRAFTS: Joi.number().integer().min(1).max(100000).default(50),
  // Under the minute after which an editor counts as gone, with room for a late beat.
  PAGE_PRESENCE_INTERVAL_MS: Joi.number().integer().min(200).max(30_000).default(20_000),
  // Megabytes, fractions allowed; a file is held in memory while it is checked and resized.
  MEDIA_MAX_MB: Joi.number().min(0.1).max(100).default(10),
  // Megabytes, fractions allowed (0.5); 0 turns the public read cache off.
  PAGE_CACHE_MB: Joi.number().min(0).max(65536).default(32),
  // A year at most, as for any max-age.
  PUBLIC_CACHE_SECONDS: Joi.number().integer().min(0).max(31_536_000).default(0),
  // Off only to compare answers or to look for a fault (the two must answer alike).
  PUBLIC_HIT_PATH: Joi.boolean().truthy('1', 'on').falsy('0', 'off').default(true),
  // A minute at most: a stop must stay well within what process managers wait (systemd: 90 s).
  SHUTDOWN_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(0),
  // A hung listener is noticed within 1.5 × this; below 100 ms the round trips would cost more than they tell.
  PUBLIC_CACHE_HEARTBEAT_MS: Joi.number().integer().min(100).max(60_000).default(2000),
  WEB_CONCURRENCY: Joi.alternatives()
    .try(Joi.number().integer().min(1).max(64).messages(concurrencyMessages), Joi.string().valid('auto').messages(concurrencyMessages))
    .default(1)
    .messages(concurrencyMessages),
  SITE_SETUP_CODE: Joi.string().pattern(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/),
})
  .unknown(true)
  .messages({ 'any.only': '{{#label}} must be one of {{#valids}}' });

// Two processes starting together on one DATA_DIR must end with one secret: the file is
// created exclusively (`wx`), and whoever loses the race reads the winner's. A cluster
// primary reads it once and hands it to its workers (lib/cluster.ts).
function readOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  if (existsSync(file)) return readSecretFile(file);
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readSecretFile(file);
    throw error;
  }
  return secret;
}

// The winner of the race may not have written its line yet: an empty file is read again.
function readSecretFile(file: string): string {
  for (let attempt = 0; ; attempt++) {
    const secret = readFileSync(file, 'utf8').trim();
    if (secret || attempt === 50) return secret;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}

/**
 * Hashing threads when PASSWORD_HASH_THREADS is unset, 1 to 4. Threads at a lower
 * priority (Linux, nice above 0) cannot take a core from the event loop, which the
 * scheduler hands back the CPU as soon as a request arrives: one per core, so logins
 * use every idle core. Threads at the event loop's priority would share its core and
 * delay every request behind a hash: one core stays free for the event loop.
 */
export function defaultHashThreads(nice: number, cores = os.availableParallelism(), platform: NodeJS.Platform = process.platform): number {
  const niced = nice > 0 && platform === 'linux';
  return Math.min(4, Math.max(1, niced ? cores : cores - 1));
}

/** WEB_CONCURRENCY as a number: `auto` is the CPU cores this process may use (1 on a one-core box: no cluster). */
export function resolveConcurrency(value: number | 'auto', cores = os.availableParallelism()): number {
  return value === 'auto' ? Math.max(1, Math.min(64, cores)) : value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = envSchema.validate(env, { abortEarly: true, convert: true });
  if (result.error) throw new ConfigError(`Invalid configuration: ${result.error.message}`);
  const { value } = result;
  const isProduction = value.NODE_ENV === 'production';
  const dataDir = path.resolve(projectRoot, value.DATA_DIR ?? 'data');

  if (isProduction && !value.SESSION_SECRET) {
    throw new ConfigError('SESSION_SECRET is required when NODE_ENV=production (at least 32 characters)');
  }
  // Without it every request would name a host the server does not answer (421), and
  // the links in emails would point to localhost.
  if (isProduction && !value.BASE_URL) {
    throw new ConfigError(
      'BASE_URL is required when NODE_ENV=production: the public address of the site, e.g. https://example.org (links in emails, the host check)',
    );
  }
  if (value.SMTP_URL && value.MAIL_OUTBOX === 'true') {
    throw new ConfigError('MAIL_OUTBOX=true and SMTP_URL are both set: emails go either to the SMTP server or to the outbox folder, not both');
  }
  // An outbox nobody reads means invitations and reset links that never arrive while the
  // screens say they were sent: in production only when chosen on purpose.
  if (isProduction && !value.SMTP_URL && value.MAIL_OUTBOX !== 'true') {
    throw new ConfigError(
      'SMTP_URL is required when NODE_ENV=production (e.g. smtp://user:password@mail.example.org:587), or MAIL_OUTBOX=true to write the emails to the outbox folder on purpose',
    );
  }
  if (value.DATABASE_READ_URL && !value.DATABASE_URL) {
    throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: a replica follows a primary server, not the embedded database');
  }
  if (value.DATABASE_LISTEN_URL && !value.DATABASE_URL) {
    throw new ConfigError('DATABASE_LISTEN_URL needs DATABASE_URL: it reaches the same server directly');
  }
  if (isProduction && value.PASSWORD_HASH_COST < 11) {
    throw new ConfigError('PASSWORD_HASH_COST must be 11 or more when NODE_ENV=production');
  }

  const rateLimits = {} as Record<RateLimitedOperation, RateLimitBudget>;
  for (const operation of RATE_LIMITED_OPERATIONS) {
    const variable = `RATE_LIMIT_${operation.toUpperCase()}`;
    rateLimits[operation] = parseRateLimit(env[variable] ?? DEFAULT_RATE_LIMITS[operation], variable);
  }

  const port = value.PORT;
  const appName = value.APP_NAME;
  return {
    nodeEnv: value.NODE_ENV,
    isProduction,
    dataDir,
    databaseUrl: value.DATABASE_URL,
    databasePoolMax: value.DATABASE_POOL_MAX,
    databaseReadUrl: value.DATABASE_READ_URL,
    databaseListenUrl: value.DATABASE_LISTEN_URL,
    port,
    host: value.HOST,
    baseUrl: (value.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    sessionSecret: value.SESSION_SECRET ?? readOrCreateSecret(dataDir),
    appName,
    timeZone: value.APP_TIMEZONE ?? value.APP_TIME_ZONE ?? 'Europe/Paris',
    registrationFlag: value.APP_AUTH_REGISTRATION,
    trustProxy: parseTrustProxy(value.APP_TRUST_PROXY),
    hstsMaxAge: parseHstsMaxAge(value.HSTS_MAX_AGE),
    // Ten minutes at least (a session's last use is written every five), thirty days at most.
    sessionIdleTimeoutMs: parseDuration(value.SESSION_IDLE_TIMEOUT ?? '2d', 'SESSION_IDLE_TIMEOUT', 10 * 60_000, 30 * 86_400_000),
    smtpUrl: value.SMTP_URL,
    mailOutbox: !value.SMTP_URL,
    mailFrom: value.MAIL_FROM ?? `"${appName.replace(/"/g, '')}" <no-reply@localhost>`,
    uploadDir: path.resolve(projectRoot, value.UPLOAD_DIR ?? path.join(dataDir, 'uploads')),
    uploadStorage: value.UPLOAD_STORAGE,
    mediaMaxBytes: Math.floor(value.MEDIA_MAX_MB * 1024 * 1024),
    themesDir: path.resolve(value.THEMES_DIR ?? path.join('data', 'themes')),
    logLevel: value.LOG_LEVEL,
    passwordHashCost: value.PASSWORD_HASH_COST,
    passwordHashThreads: value.PASSWORD_HASH_THREADS ?? defaultHashThreads(value.PASSWORD_HASH_NICE),
    passwordHashNice: value.PASSWORD_HASH_NICE,
    rateLimits,
    metricsToken: value.METRICS_TOKEN,
    auditRetentionDays: value.AUDIT_RETENTION_DAYS,
    revisionsKeepDrafts: value.REVISIONS_KEEP_DRAFTS,
    pagePresenceIntervalMs: value.PAGE_PRESENCE_INTERVAL_MS,
    pageCacheBytes: Math.floor(value.PAGE_CACHE_MB * 1024 * 1024),
    publicCacheSeconds: value.PUBLIC_CACHE_SECONDS,
    publicHitPath: value.PUBLIC_HIT_PATH,
    shutdownDelayMs: value.SHUTDOWN_DELAY_MS,
    publicCacheHeartbeatMs: value.PUBLIC_CACHE_HEARTBEAT_MS,
    webConcurrency: resolveConcurrency(value.WEB_CONCURRENCY),
    setupCode: value.SITE_SETUP_CODE,
  };
}

/**
 * The database settings only, for the knex CLI's knexfile: it reads no secret, so it
 * neither demands SESSION_SECRET in production nor writes data/session-secret.
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const result = Joi.object<DatabaseEnv>(databaseKeys).unknown(true).validate(env, { abortEarly: true, convert: true });
  if (result.error) throw new ConfigError(`Invalid configuration: ${result.error.message}`);
  return { databaseUrl: result.value.DATABASE_URL, databasePoolMax: result.value.DATABASE_POOL_MAX };
}
