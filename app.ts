// createApp(config) builds the Express application and its one application context;
// this file listens only when run as the entry point (`node dist/app.js`), so tests
// build apps in-process (several at once if they like: nothing is shared between them).
// First: the packages imported after it may reuse their compiled code (Node 22.1+).
import './lib/compile-cache.js';
import cluster from 'node:cluster';
import http, { type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { serveSiteIcon } from './controllers/site-icon.js';
import { ConfigError, loadConfig, type Config } from './lib/config.js';
import { startAuditRetention } from './services/audit-retention.js';
import { createPrimaryRoundTrip, DRAIN_MESSAGE, runPrimary, STOP_MESSAGE } from './lib/cluster.js';
import { answerMetricsCollection } from './lib/cluster-metrics.js';
import { closeContext, createContext, type AppContext } from './lib/context.js';
import { migrateLatest, pendingMigrations } from './lib/migrations.js';
import { ensureDatabase, type RunningDatabase } from './lib/embedded-postgres.js';
import { gracefulStop } from './lib/graceful-stop.js';
import { createLogger, prettyLogsWanted } from './lib/logger.js';
import { collectModules, startBackgroundJobs, type SiteModule } from './lib/modules.js';
import { publicDir } from './lib/paths.js';
import { setupCodeReason } from './lib/setup-code.js';
import { useViews } from './lib/views.js';
import { createErrorHandler, notFound } from './middleware/error-handler.js';
import { acceptsHostValue, createHostCheck } from './middleware/host-check.js';
import { answerHitsFirst } from './lib/public-hits.js';
import { wholeAnswerUnderIfRange } from './middleware/if-range.js';
import { serveWebAuthnBrowser, webAuthnBrowserAsset } from './controllers/vendor-assets.js';
import { requestContext } from './middleware/request-context.js';
import { securityHeaders } from './middleware/security-headers.js';
import { needsFirstRun } from './models/auth/registration.js';
import { mountAreas } from './routes/index.js';
import { operationsRouter } from './routes/operations.js';
import { SITE_MODULES, siteMigrationDirectories } from './routes/site-modules.js';

/** The modules of this site, in order: the core first (routes/site-modules.ts). */
export { SITE_MODULES };

export interface App extends Express {
  locals: Express['locals'] & { ctx: AppContext };
}

export function createApp(config: Config, modules: SiteModule[] = SITE_MODULES): App {
  const { databaseUrl } = config;
  if (!databaseUrl) throw new ConfigError('createApp needs config.databaseUrl (start the database first)');
  const ctx = createContext({ ...config, databaseUrl }, collectModules(modules));

  const app = express() as App;
  // Tests and the server's shutdown reach the context here; the code under it gets it passed.
  app.locals.ctx = ctx;
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  useViews(app, ctx.views);

  app.use(requestContext(ctx));
  // Probes and the metrics scrape first: no host check (balancers and Prometheus address
  // an instance by its IP), no session, CSRF or rate limit.
  app.use(operationsRouter(ctx));
  // Before anything answers, after the request has its id: a refused host still gets its log line.
  app.use(createHostCheck(ctx));
  app.use(securityHeaders(config));
  const webauthn = webAuthnBrowserAsset();
  ctx.views.addGlobal('webauthnBrowserUrl', webauthn.url);
  app.get(webauthn.url, wholeAnswerUnderIfRange, serveWebAuthnBrowser(webauthn.file));
  app.use('/assets', nameAssets, wholeAnswerUnderIfRange, express.static(publicDir, { maxAge: config.isProduction ? '1d' : 0, fallthrough: false }));
  app.get('/favicon.ico', wholeAnswerUnderIfRange, serveSiteIcon(ctx));
  mountAreas(app, ctx);
  app.use(notFound);
  app.use(createErrorHandler(ctx));
  // Cached public answers go out before all of the above (lib/public-hits.ts), as it taught them.
  if (ctx.publicHits) answerHitsFirst(app, ctx, ctx.publicHits, acceptsHostValue(config.baseUrl));
  return app;
}

/** Every asset is one route for the metrics (their names would be a label each). */
// Static files log at debug level: a page's dozen assets would bury the lines that matter.
function nameAssets(_req: Request, res: Response, next: NextFunction): void {
  res.locals.routePattern = '/assets/*';
  res.locals.quietLog = true;
  next();
}

/** Releases what createApp() opened: the database pool, the hashing threads, mail. */
export async function closeApp(app: App): Promise<void> {
  await closeContext(app.locals.ctx);
}

export interface StartOptions {
  /**
   * Apply pending migrations before listening (`npm start`: one process and one start of
   * the embedded database instead of two). Without it the server refuses to start while
   * a migration is pending, naming the command to run.
   */
  migrate?: boolean;
  /** Filled with the moments (ms since the process started) each step of the start ended. */
  startup?: Record<string, number>;
  /** In a cluster worker: a message round trip to the primary (its graceful stop, lib/graceful-stop.ts). */
  primaryRoundTrip?: () => Promise<void>;
}

/** Milliseconds since the process started, rounded: the start's log line says where its time went. */
function sinceProcessStart(): number {
  return Math.round(performance.now());
}

export async function startServer(
  config: Config,
  options: StartOptions = {},
): Promise<{ server: Server; app: App; database: RunningDatabase; stop(options?: { delayMs?: number }): Promise<void> }> {
  const startup = options.startup ?? {};
  const database = await ensureDatabase(config, createLogger(config.logLevel, undefined, { pretty: prettyLogsWanted(config) }));
  startup.database = sinceProcessStart();
  const app = createApp({ ...config, databaseUrl: database.url });
  startup.app = sinceProcessStart();
  const abort = async (error: unknown): Promise<never> => {
    await closeApp(app);
    await database.stop();
    throw error;
  };
  const { ctx } = app.locals;
  const directories = ctx.site.migrationDirectories;
  if (options.migrate) {
    const onWait = () => ctx.logger.info('another process is migrating this database: waiting for it to finish');
    const { batch, migrations } = await migrateLatest(ctx.db, { directories, onWait }).catch(abort);
    if (migrations.length > 0) ctx.logger.info({ batch, applied: migrations }, 'migrations applied');
  }
  const pending = await pendingMigrations(ctx.db, { directories }).catch(abort);
  startup.migrationCheck = sinceProcessStart();
  if (pending.length > 0) {
    await abort(
      new ConfigError(
        `The database schema is not up to date (${pending.length} pending migration(s): ${pending.join(', ')}). ` +
          'Run `npm run migrate` (or `npx knex migrate:latest` with DATABASE_URL set) before starting the server.',
      ),
    );
  }
  const server = http.createServer();
  // The tracker sees each request before the app does.
  const draining = gracefulStop(server, {
    logger: ctx.logger,
    primaryRoundTrip: options.primaryRoundTrip,
    // /healthz and /readyz answer 503 from now on, to whatever still reaches them.
    onStopping: () => (ctx.memo.stopping = true),
  });
  server.on('request', app);
  await listen(server, config).catch(abort);
  startup.listening = sinceProcessStart();
  // Retention of the audit log: asked hourly, done daily by one process of all.
  const stopRetention = startAuditRetention(ctx);
  // The modules' periodic work (scheduled publishing), its first run at once.
  const stopJobs = startBackgroundJobs(ctx);
  let stopping: Promise<void> | undefined;
  // `delayMs`: the drain window before the listening socket closes (SHUTDOWN_DELAY_MS by default).
  const stop = ({ delayMs = config.shutdownDelayMs }: { delayMs?: number } = {}) =>
    (stopping ??= (async () => {
      await draining({ delayMs });
      stopRetention();
      stopJobs();
      await closeApp(app);
      await database.stop();
    })());
  return { server, app, database, stop };
}

/** Listens on PORT/HOST; a port taken or forbidden is an error naming the port and PORT. */
function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        reject(new ConfigError(`Port ${config.port} on ${config.host} is already in use by another program: stop it or choose another port with PORT.`));
      } else if (error.code === 'EACCES') {
        reject(new ConfigError(`Listening on port ${config.port} is not permitted for this user: choose a port above 1023 with PORT.`));
      } else {
        reject(error);
      }
    });
    server.listen(config.port, config.host, () => resolve());
  });
}

/**
 * The server's start as `node dist/app.js` runs it: this file run directly (tsx, an
 * unbundled build), or called by the entry the build writes in front of its bundle
 * (scripts/build.mjs).
 * @public
 */
export async function main(): Promise<void> {
  // Everything imported by now: the time since the process started is module loading.
  const startup: Record<string, number> = { modules: sinceProcessStart() };
  const bootLogger = createLogger('info');
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    bootLogger.fatal((error as Error).message);
    process.exit(1);
  }
  bootLogger.level = config.logLevel;
  startup.config = sinceProcessStart();
  const migrate = process.argv.includes('--migrate');
  // WEB_CONCURRENCY above 1: this process becomes the cluster's primary (lib/cluster.ts)
  // and forks the workers, which run this same file and take the branch below.
  const worker = cluster.isWorker ? cluster.worker?.id : undefined;
  if (worker === undefined && config.webConcurrency > 1) {
    await runPrimary(config, { migrate, migrationDirectories: siteMigrationDirectories() }).catch((error: unknown) => {
      bootLogger.fatal(error instanceof ConfigError ? error.message : { err: error }, 'the server could not start');
      process.exit(1);
    });
    return;
  }
  if (worker !== undefined) config = { ...config, worker };
  // The primary's messages are listened for before the server listens: the primary
  // sends its stop as soon as this worker listens, and a message without a listener is
  // lost (the worker then ran until killed, and the cluster exited 1). One that comes
  // while the start goes on is carried out once it is done.
  const earlyMessages: { type?: unknown }[] = [];
  let onPrimaryMessage = (message: { type?: unknown }) => void earlyMessages.push(message);
  let onSigterm = (): void => process.exit(0);
  if (worker !== undefined) {
    process.on('message', (message: { type?: unknown } | null) => message && onPrimaryMessage(message));
    // The primary stopping while this worker starts (it replaced one that died): not
    // listening yet, it has nothing to finish.
    process.on('SIGTERM', () => onSigterm());
  }
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    // A worker never migrates: its primary did, once, before forking it.
    running = await startServer(config, {
      migrate: migrate && worker === undefined,
      startup,
      primaryRoundTrip: worker === undefined ? undefined : createPrimaryRoundTrip(),
    });
  } catch (error) {
    bootLogger.fatal(error instanceof ConfigError ? error.message : { err: error }, 'the server could not start');
    process.exit(1);
  }
  const { logger } = running.app.locals.ctx;
  // Listening from here on: a SIGTERM now waits for the graceful stop set up below.
  let stopAsked = false;
  onSigterm = () => void (stopAsked = true);
  const address = running.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Once per start: by the single process, or by the cluster's first worker (the others
  // share its setup code and outbox).
  const firstOfAll = worker === undefined || worker === 1;
  // Only here, never on a page: whoever reads the server's log is whoever runs it (when
  // the database cannot say whether an account exists, printing it harms nothing).
  const noAccountYet = firstOfAll && (await needsFirstRun(running.app.locals.ctx).catch(() => true));
  const setupCodeAsked = setupCodeReason(config);
  if (noAccountYet && setupCodeAsked) {
    const { setupCode } = running.app.locals.ctx.memo;
    logger.warn({ setupCode }, `no account exists yet and ${setupCodeAsked}: the first-run form asks for this setup code: ${setupCode}`);
  }
  // Where to go: the site, and while no account exists the form that creates the first one.
  if (firstOfAll) logger.info({ siteUrl: config.baseUrl }, `site: ${config.baseUrl}`);
  if (noAccountYet) logger.info({ firstRunUrl: `${config.baseUrl}/auth` }, `no account exists yet: create the administrator at ${config.baseUrl}/auth`);
  // The start's notices come before the listening line, which whoever watches the log
  // (people, supervisors, tests) waits for.
  const outbox = running.app.locals.ctx.mailer.outboxDirectory();
  if (firstOfAll && outbox) logger.warn({ outbox }, 'SMTP_URL is not set: emails are written to the outbox folder, not sent');
  // In a cluster the primary says «server listening» once every worker listens.
  logger.info(
    { url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`, baseUrl: config.baseUrl, startup },
    worker ? 'worker listening' : 'server listening',
  );

  let shuttingDown = false;
  // `delayMs`: the drain window (SHUTDOWN_DELAY_MS); none when the cluster's primary
  // stops this worker (it held the window once for all of them).
  const shutdown = (signal: string, delayMs = config.shutdownDelayMs) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal, delayMs }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 10 s after the drain window: exiting');
      process.exit(1);
    }, delayMs + 10_000);
    force.unref();
    running.stop({ delayMs }).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  // `on`, not `once`: a loader such as tsx exits the process itself when it sees no
  // other listener left for the signal.
  if (worker === undefined) process.on('SIGTERM', () => shutdown('SIGTERM'));
  else onSigterm = () => shutdown('SIGTERM');
  if (stopAsked) shutdown('SIGTERM');
  if (worker === undefined) {
    process.on('SIGINT', () => shutdown('SIGINT'));
  } else {
    // Ctrl-C reaches every process of the terminal's group: the primary stops the
    // workers one by one, so a worker waits for its turn (its message) rather than
    // stopping with all the others at once. A SIGTERM of its own stops it (the primary
    // starts another).
    process.on('SIGINT', () => logger.debug('SIGINT: the primary stops this worker in turn'));
    onPrimaryMessage = (message) => {
      if (message.type === STOP_MESSAGE) shutdown('primary', 0);
      // The primary's drain window: the probes answer 503, everything else is served.
      if (message.type === DRAIN_MESSAGE) running.app.locals.ctx.memo.stopping = true;
    };
    for (const message of earlyMessages.splice(0)) onPrimaryMessage(message);
    // A scrape taken by any worker sums every worker's metrics through the primary.
    const { registry } = running.app.locals.ctx.metrics;
    if (registry) answerMetricsCollection(registry);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
