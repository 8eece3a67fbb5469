// Migration plumbing: where the files live, the knex source that reads them, and the
// commands. Every function takes the knex instance it works on; nothing is kept here.
// Which directories make the site's history is the modules' register() calls' word only
// (site.migrations(), collected in SiteRegistry.migrationDirectories: the core's first),
// never a scan of the folders: routes/site-modules.ts gives the site's list to the
// commands, the knex CLI and the server.
// latest, rollback and reset run under one PostgreSQL advisory lock, so processes
// started together on a fresh database migrate one after the other instead of racing
// knex's own creation of its bookkeeping tables. The knex CLI (knexfile.js) takes the
// same lock through MigrationSource.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import type pg from 'pg';
import { loadDatabaseConfig } from './config.js';
import { projectRoot } from './paths.js';

export const MIGRATIONS_TABLE = 'knex_migrations';

// Arbitrary, fixed, and outside the int4 range that pg_advisory_xact_lock(hashtext(…))
// keys fall in, so no other lock of the application can collide with it.
const MIGRATION_LOCK_KEY = '4287391022517601';

/** The core's migrations: dist/migrations for compiled runs, migrations/ for the sources. */
export function coreMigrationsDirectory(): string {
  const compiled = import.meta.url.includes('/dist/');
  return path.join(projectRoot, compiled ? 'dist/migrations' : 'migrations');
}

/** A module's migrations live in a folder named after it under the core's. */
export function moduleMigrationsDirectory(module: string): string {
  return path.join(coreMigrationsDirectory(), module);
}

export interface MigrationFile {
  directory: string;
  file: string;
}

/**
 * Reads several directories as one history. Knex records a migration under the name
 * this returns: the file name without .ts/.js, so the TypeScript sources (tsx, tests)
 * and the compiled dist/ files share one history, and moving a file to another
 * directory keeps its record.
 */
export class MigrationSource implements Knex.MigrationSource<MigrationFile> {
  private cliLockHeld = false;

  constructor(private readonly directories: readonly string[]) {}

  getMigrations(): Promise<MigrationFile[]> {
    // Under the knex CLI, before knex's next statement (see holdMigrationLockUntilExit).
    if (!this.cliLockHeld && underKnexCli()) {
      this.cliLockHeld = true;
      const { databaseUrl } = loadDatabaseConfig();
      try {
        if (databaseUrl) holdMigrationLockUntilExit(databaseUrl);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    const files: MigrationFile[] = [];
    for (const directory of this.directories) {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        if (entry.isFile() && /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
          files.push({ directory, file: entry.name });
        }
      }
    }
    files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    for (let index = 1; index < files.length; index++) {
      if (this.getMigrationName(files[index]) === this.getMigrationName(files[index - 1])) {
        return Promise.reject(
          new Error(`two migrations are named ${this.getMigrationName(files[index])}: in ${files[index - 1].directory} and ${files[index].directory}`),
        );
      }
    }
    return Promise.resolve(files);
  }

  getMigrationName(migration: MigrationFile): string {
    return migration.file.replace(/\.(ts|js)$/, '');
  }

  async getMigration(migration: MigrationFile): Promise<Knex.Migration> {
    return (await import(pathToFileURL(path.join(migration.directory, migration.file)).href)) as Knex.Migration;
  }
}

/** `npx knex …` or `node node_modules/knex/bin/cli.js …`: knex's CLI runs the migrator itself, through knexfile.js. */
function underKnexCli(argv: string[] = process.argv): boolean {
  return /(?:^|[\\/])knex(?:[\\/]bin[\\/]cli\.js)?$/.test(argv[1] ?? '');
}

// Runs in a worker thread (CommonJS, given pg's path): takes the lock on a connection of
// its own, says so through the port, and keeps that connection (so the lock) until the
// process exits.
const LOCK_HOLDER = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pg);
const { url, key, signal, port } = workerData;
const tell = (message) => {
  port.postMessage(message);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
};
(async () => {
  const client = new pg.Client({ connectionString: url, application_name: 'site-core-migration-lock' });
  client.on('error', () => undefined);
  await client.connect();
  const { rows } = await client.query('SELECT pg_try_advisory_lock($1) AS locked', [key]);
  if (!rows[0].locked) {
    tell({ state: 'waiting' });
    await client.query('SELECT pg_advisory_lock($1)', [key]);
  }
  tell({ state: 'held' });
})().catch((error) => tell({ state: 'failed', message: error.message }));
`;

/**
 * Takes the migration lock for the rest of this process's life, and returns only once
 * it is held. knex's migrator asks the source for its files and, in the same instant,
 * creates its bookkeeping tables: two `npx knex migrate:latest` started together ended
 * one of them with a raw `duplicate key … pg_type_typname_nsp_index`. Waiting here,
 * synchronously (the lock is taken by a worker thread while this one sleeps on
 * Atomics.wait), makes every statement knex sends next run under the lock, as
 * `npm run migrate` does; the CLI exits when done, which closes the lock's connection.
 */
function holdMigrationLockUntilExit(databaseUrl: string): void {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(LOCK_HOLDER, {
    eval: true,
    workerData: { pg: createRequire(import.meta.url).resolve('pg'), url: databaseUrl, key: MIGRATION_LOCK_KEY, signal, port: port2 },
    transferList: [port2],
  });
  // The lock's connection never keeps the CLI alive: it goes when the process does.
  worker.unref();
  let seen = 0;
  for (;;) {
    Atomics.wait(signal, 0, seen);
    seen = Atomics.load(signal, 0);
    for (let received = receiveMessageOnPort(port1); received; received = receiveMessageOnPort(port1)) {
      const message = received.message as { state: 'waiting' | 'held' | 'failed'; message?: string };
      if (message.state === 'held') return;
      if (message.state === 'failed') throw new Error(`could not take the migration lock: ${message.message}`);
      process.stderr.write('Another process is migrating this database (npm run migrate, npm start or npx knex): waiting for it to finish.\n');
    }
  }
}

export interface MigrationOptions {
  /** The site's migration directories, in its modules' order (SiteRegistry.migrationDirectories). */
  directories: readonly string[];
  /** Called once when another process holds the migration lock and this one waits. */
  onWait?: () => void;
}

export interface MigrationBatch {
  batch: number;
  /** Names of the migrations run, in the order they ran. */
  migrations: string[];
}

function migratorConfig(options: Pick<MigrationOptions, 'directories'>, partial = false): Knex.MigratorConfig {
  // One directory's run (createTables) sees that directory only: the others' recorded
  // migrations are not missing files.
  return { migrationSource: new MigrationSource(options.directories), tableName: MIGRATIONS_TABLE, disableMigrationsListValidation: partial };
}

/**
 * Runs `work` while holding the migration advisory lock, taken on a dedicated
 * connection (not one of the pool's, which the migrations need, and which a pool of
 * one would not have to spare). Closing that connection would release the lock too.
 */
async function withMigrationLock<T>(knex: Knex, options: Pick<MigrationOptions, 'onWait'>, work: () => Promise<T>): Promise<T> {
  // knex's client is untyped: its raw connections are pg clients (client 'pg').
  const client = knex.client as { acquireRawConnection(): Promise<pg.Client>; destroyRawConnection(connection: pg.Client): Promise<void> };
  const connection = await client.acquireRawConnection();
  try {
    const { rows } = await connection.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]);
    if (!rows[0].locked) {
      options.onWait?.();
      await connection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    }
    try {
      return await work();
    } finally {
      // Best effort: on a broken connection, closing it below releases the lock as well.
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.destroyRawConnection(connection);
  }
}

/** Applies every pending migration, as one batch in one transaction. */
export async function migrateLatest(knex: Knex, options: MigrationOptions): Promise<MigrationBatch> {
  return withMigrationLock(knex, options, async () => {
    const [batch, migrations] = (await knex.migrate.latest(migratorConfig(options))) as [number, string[]];
    return { batch, migrations };
  });
}

/** Undoes the last batch. */
export async function migrateRollback(knex: Knex, options: MigrationOptions): Promise<MigrationBatch> {
  return withMigrationLock(knex, options, async () => {
    const [batch, migrations] = (await knex.migrate.rollback(migratorConfig(options), false)) as [number, string[]];
    return { batch, migrations };
  });
}

/** Undoes every applied migration, newest first. */
export async function migrateReset(knex: Knex, options: MigrationOptions): Promise<MigrationBatch> {
  return withMigrationLock(knex, options, async () => {
    const [batch, migrations] = (await knex.migrate.rollback(migratorConfig(options), true)) as [number, string[]];
    return { batch, migrations };
  });
}

export interface MigrationStatus {
  /** Recorded in knex_migrations, in the order they ran. */
  completed: string[];
  /** Known to the source and not recorded yet, in the order they would run. */
  pending: string[];
  /** Recorded but without a file (a database migrated by a newer version of the code). */
  unknown: string[];
}

/**
 * Reads the history without writing anything: unlike knex's own list(), it does not
 * create the bookkeeping tables, so a check (the server's start) never changes the
 * schema nor races a migration running in another process.
 */
export async function migrationStatus(knex: Knex, options: Pick<MigrationOptions, 'directories'>): Promise<MigrationStatus> {
  const source = new MigrationSource(options.directories);
  const known = (await source.getMigrations()).map((migration) => source.getMigrationName(migration));
  // to_regclass rather than knex's hasTable: the same answer without information_schema's
  // view, whose planning was most of the server's migration check.
  const { rows } = await knex.raw<{ rows: { present: boolean }[] }>('SELECT to_regclass(?) IS NOT NULL AS present', [MIGRATIONS_TABLE]);
  const completed: string[] = rows[0].present ? await knex(MIGRATIONS_TABLE).orderBy('id').pluck('name') : [];
  const recorded = new Set(completed);
  const available = new Set(known);
  return {
    completed,
    pending: known.filter((name) => !recorded.has(name)),
    unknown: completed.filter((name) => !available.has(name)),
  };
}

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(knex: Knex, options: Pick<MigrationOptions, 'directories'>): Promise<string[]> {
  return (await migrationStatus(knex, options)).pending;
}

async function namesIn(directory: string): Promise<Set<string>> {
  const source = new MigrationSource([directory]);
  return new Set((await source.getMigrations()).map((file) => source.getMigrationName(file)));
}

/**
 * Applies the pending migrations of one directory only (a module's createTables()),
 * each as its own batch, recorded like any other.
 */
export async function migrateDirectoryUp(knex: Knex, directory: string, options: Pick<MigrationOptions, 'onWait'> = {}): Promise<string[]> {
  return withMigrationLock(knex, options, async () => {
    const mine = await namesIn(directory);
    const names = (await migrationStatus(knex, { directories: [directory] })).pending.filter((name) => mine.has(name));
    for (const name of names) await knex.migrate.up({ ...migratorConfig({ directories: [directory] }, true), name });
    return names;
  });
}

/** Undoes the applied migrations of one directory only (a module's dropTables()), newest first. */
export async function migrateDirectoryDown(knex: Knex, directory: string, options: Pick<MigrationOptions, 'onWait'> = {}): Promise<string[]> {
  return withMigrationLock(knex, options, async () => {
    const mine = await namesIn(directory);
    const names = (await migrationStatus(knex, { directories: [directory] })).completed.filter((name) => mine.has(name)).reverse();
    for (const name of names) await knex.migrate.down({ ...migratorConfig({ directories: [directory] }, true), name });
    return names;
  });
}
