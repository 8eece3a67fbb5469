// createApp(config) builds the Express application; this file listens only when run as
// the entry point (`node dist/app.js`), so tests build the app in-process.
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import { activeConfig, ConfigError, loadConfig, setActiveConfig, type Config } from './lib/config.js';
import { closeDb, initDb, pendingMigrations } from './lib/db.js';
import { ensureDatabase, type RunningDatabase } from './lib/embedded-postgres.js';
import { logger, setLogLevel } from './lib/logger.js';
import { closeHasher, configureHasher } from './lib/password-hasher.js';
import { publicDir } from './lib/paths.js';
import { configureViews } from './lib/views.js';
import { errorHandler, notFound } from './middleware/error-handler.js';
import { requestContext } from './middleware/request-context.js';
import { securityHeaders } from './middleware/security-headers.js';
import { mountRoutes } from './routes/index.js';

export function createApp(config: Config): Express {
  if (!config.databaseUrl) throw new ConfigError('createApp needs config.databaseUrl (start the database first)');
  setActiveConfig(config);
  setLogLevel(config.logLevel);
  configureHasher({ cost: config.passwordHashCost, threads: config.passwordHashThreads });
  initDb(config.databaseUrl);

  const app = express();
  app.locals.config = config;
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  configureViews(app, config);

  app.use(requestContext);
  app.use(securityHeaders());
  app.use('/assets', express.static(publicDir, { maxAge: config.isProduction ? '1d' : 0, fallthrough: false }));
  mountRoutes(app, config);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

/** Releases what createApp() opened: the database pool and the hashing threads. */
export async function closeApp(): Promise<void> {
  await closeDb();
  await closeHasher();
}

export async function startServer(config: Config): Promise<{ server: Server; database: RunningDatabase; stop(): Promise<void> }> {
  const database = await ensureDatabase(config);
  const runtimeConfig = { ...config, databaseUrl: database.url };
  const app = createApp(runtimeConfig);
  const pending = await pendingMigrations().catch(async (error) => {
    await closeApp();
    await database.stop();
    throw error;
  });
  if (pending.length > 0) {
    await closeApp();
    await database.stop();
    throw new ConfigError(
      `The database schema is not up to date (${pending.length} pending migration(s): ${pending.join(', ')}). ` +
        'Run `npm run migrate` (or `npx knex migrate:latest` with DATABASE_URL set) before starting the server.',
    );
  }
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(config.port, config.host, () => resolve(listening));
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // close() stops accepting, drops idle keep-alive sockets and waits for requests in flight.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp();
      await database.stop();
    })());
  return { server, database, stop };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    logger.fatal((error as Error).message);
    process.exit(1);
  }
  setLogLevel(config.logLevel);
  let running: Awaited<ReturnType<typeof startServer>>;
  try {
    running = await startServer(config);
  } catch (error) {
    logger.fatal(error instanceof ConfigError ? error.message : { err: error }, 'the server could not start');
    process.exit(1);
  }
  const address = running.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`, baseUrl: activeConfig().baseUrl }, 'server listening');

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 10 s: exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    running.stop().then(
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
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
