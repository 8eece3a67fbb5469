// The test databases. One run (a `mocha` command) migrates a template database once;
// each process that runs test files (the main process of a serial run, each worker of
// `mocha --parallel`) clones it on first use (CREATE DATABASE … TEMPLATE), on
// TEST_DATABASE_URL's server when set (CI), else on a throw-away embedded PostgreSQL.
// The run's main process drops them all at the end.
//
// What the run's processes share travels in environment variables the main process sets
// before mocha forks its workers (test/support/run.ts may set them first, for several
// mocha commands sharing one template).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Knex } from 'knex';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrateLatest } from '../../lib/migrations.js';
import { testMigrationDirectories } from './modules.js';
import { freePort, startEmbeddedPostgres, type RunningDatabase } from '../../lib/embedded-postgres.js';

interface TestDatabase {
  url: string;
  adminUrl: string;
  name: string;
  scratchDir: string;
}

/** What a run's processes share (see SHARED). */
export interface TestRun {
  adminUrl: string;
  template: string;
  /** Scratch directories of the run's processes are made in it. */
  scratchRoot: string;
  /** Prefix of the names of the databases cloned for this run's processes. */
  prefix: string;
}

const SHARED = {
  adminUrl: 'SITE_TEST_ADMIN_URL',
  template: 'SITE_TEST_TEMPLATE',
  scratchRoot: 'SITE_TEST_SCRATCH',
  prefix: 'SITE_TEST_PREFIX',
} as const;

interface RunResources {
  embedded?: RunningDatabase;
  /** This process made the template (and the scratch root): it removes them. */
  ownsTemplate: boolean;
}

// Kept on globalThis: mocha may load the root-hooks file and the test files through
// different module loaders, which would otherwise give each its own copy of this state.
const state = globalThis as { __siteTestDatabase?: TestDatabase; __siteTestRun?: RunResources };

export function testDatabase(): TestDatabase {
  if (!state.__siteTestDatabase) throw new Error('test database not started (test/support/hooks.ts)');
  return state.__siteTestDatabase;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/' + database;
  return parsed.toString();
}

async function onServer<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

// A commit of a test database returns without waiting for its WAL to reach the disk: a
// test database is thrown away, never recovered after a crash of its server, and what one
// session committed is seen by the others at once either way. On the machines the suite
// runs on a flush costs 1.5–2 ms, which thousands of commits a file would wait.
const NO_FLUSH_WAIT = (name: string) => `ALTER DATABASE "${name}" SET synchronous_commit = off`;

export async function createScratchDatabase(adminUrl: string, name: string): Promise<string> {
  await onServer(adminUrl, async (client) => {
    await client.query(`CREATE DATABASE "${name}"`);
    await client.query(NO_FLUSH_WAIT(name));
  });
  return withDatabase(adminUrl, name);
}

export async function dropScratchDatabase(adminUrl: string, name: string): Promise<void> {
  await onServer(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

function sharedRun(): TestRun | undefined {
  const run = Object.fromEntries(Object.entries(SHARED).map(([key, variable]) => [key, process.env[variable]])) as Partial<TestRun>;
  return run.adminUrl && run.template && run.scratchRoot ? ({ prefix: `site_test_${process.pid}`, ...run } as TestRun) : undefined;
}

function shareRun(run: TestRun): void {
  for (const [key, variable] of Object.entries(SHARED)) process.env[variable] = run[key as keyof TestRun];
}

/**
 * Makes the run's template (unless the environment names one already): a scratch
 * directory, the server (TEST_DATABASE_URL's, or an embedded one), a migrated database
 * with the reset's functions. Its names go to the environment, for mocha's workers.
 */
export async function prepareTestRun(): Promise<TestRun> {
  const stamp = `${process.pid}_${Date.now().toString(36)}`;
  const inherited = sharedRun();
  if (inherited) {
    // Databases cloned by this command's processes carry its own prefix (dropped by its
    // teardown), under the maker's (whose end drops any a crashed command left).
    const run = { ...inherited, prefix: `${inherited.prefix}_${process.pid}` };
    shareRun(run);
    state.__siteTestRun = { ownsTemplate: false };
    return run;
  }
  const scratchRoot = mkdtempSync(path.join(os.tmpdir(), 'site-test-'));
  // When run as root, PostgreSQL runs as the postgres user, who must reach the cluster.
  chmodSync(scratchRoot, 0o755);
  let adminUrl = process.env.TEST_DATABASE_URL;
  let embedded: RunningDatabase | undefined;
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ directory: path.join(scratchRoot, 'pg'), port: await freePort(), persistent: false, database: 'postgres' });
    adminUrl = embedded.url;
  }
  const template = `site_template_${stamp}`;
  await makeTemplate(adminUrl, template);
  const run = { adminUrl, template, scratchRoot, prefix: `site_test_${stamp}` };
  shareRun(run);
  state.__siteTestRun = { embedded, ownsTemplate: true };
  return run;
}

/** A migrated database with the reset's functions and write markers, to clone. */
async function makeTemplate(adminUrl: string, name: string): Promise<void> {
  const url = await createScratchDatabase(adminUrl, name);
  const knex = createKnex(url, { poolMax: 2, logger: createLogger('warn') });
  try {
    await migrateLatest(knex, { directories: testMigrationDirectories() });
    await installReset(knex);
    // Installs the write markers; the template is then as a reset leaves a database.
    await knex.raw('SELECT test_reset()');
  } finally {
    await knex.destroy();
  }
}

/** Drops every database this command's processes cloned; then what this process made. */
export async function endTestRun(): Promise<void> {
  const run = sharedRun();
  const resources = state.__siteTestRun;
  state.__siteTestRun = undefined;
  state.__siteTestDatabase = undefined;
  if (!run || !resources) return;
  await onServer(run.adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, [run.prefix + '_']);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    if (resources.ownsTemplate) await client.query(`DROP DATABASE IF EXISTS "${run.template}" WITH (FORCE)`);
  });
  if (resources.ownsTemplate) {
    await resources.embedded?.stop();
    rmSync(run.scratchRoot, { recursive: true, force: true });
  }
}

/**
 * This process's database, cloned from the run's template on first use, and its
 * scratch directory (inside the run's, removed with it).
 */
export async function useTestDatabase(): Promise<TestDatabase> {
  if (state.__siteTestDatabase) return state.__siteTestDatabase;
  const run = sharedRun();
  if (!run) throw new Error('no test run prepared (test/support/hooks.ts)');
  const name = `${run.prefix}_${process.pid}`;
  // Settings of a database are not copied with it.
  await onServer(run.adminUrl, async (client) => {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${run.template}"`);
    await client.query(NO_FLUSH_WAIT(name));
  });
  const scratchDir = mkdtempSync(path.join(run.scratchRoot, 'p-'));
  chmodSync(scratchDir, 0o755);
  state.__siteTestDatabase = { url: withDatabase(run.adminUrl, name), adminUrl: run.adminUrl, name, scratchDir };
  return state.__siteTestDatabase;
}

/** Empties this process's database of whatever earlier files wrote (see resetDatabase). */
export async function cleanTestDatabase(): Promise<void> {
  const { url } = testDatabase();
  await onServer(url, (client) => client.query('SELECT test_reset()'));
}

// Reference data seeded by migrations stays; everything a test writes goes.
const KEPT_TABLES = [
  'knex_migrations',
  'knex_migrations_lock',
  'app_auth_roles',
  'app_auth_permissions',
  'app_auth_permission_sections',
  'app_auth_role_permissions',
];
// Never written by a test, never emptied: no marker.
const UNMARKED_TABLES = ['knex_migrations', 'knex_migrations_lock'];

/**
 * The reset, as functions of the test database (one round trip per test).
 *
 * Every table has a statement trigger, run before any INSERT, UPDATE, DELETE or TRUNCATE
 * whoever sends it (a test app, a spawned server, a raw client), that advances the
 * table's marker sequence `test_w_<table oid>`; sequences are not transactional, so a
 * rolled-back write (which may have advanced an id) counts too. test_reset() empties only
 * the tables whose marker moved, with DELETE and their sequences set back to their start
 * (what TRUNCATE … RESTART IDENTITY did, at a fraction of its cost), and nothing at all
 * when no marker moved: a row of a permission matrix that wrote nothing pays one query.
 *
 * The DELETEs run with session_replication_role = replica, local to the reset's
 * transaction: no trigger fires, neither the foreign keys' (every table with rows is
 * emptied, so no order is needed) nor the audit log's append-only ones. The seeded
 * tables (roles, permissions) are put back as the migrations left them when written,
 * in the normal mode. The public cache's listeners are then told that everything
 * changed, as TRUNCATE's trigger told them.
 */
async function installReset(knex: Knex): Promise<void> {
  // The seeded roles and their grants as they are now (the template: as the migrations
  // left them), in a schema of the tests' own, for test_reset() to put back.
  await knex.raw(`CREATE SCHEMA IF NOT EXISTS test_seed`);
  await knex.raw(`DROP TABLE IF EXISTS test_seed.roles, test_seed.role_permissions`);
  await knex.raw(
    `CREATE TABLE test_seed.roles AS SELECT id, name, label, description, system, require_2fa FROM app_auth_roles WHERE system OR name IN ('contributor', 'author', 'editor')`,
  );
  await knex.raw(
    `CREATE TABLE test_seed.role_permissions AS SELECT rp.role_id, rp.permission_key FROM app_auth_role_permissions rp JOIN test_seed.roles r ON r.id = rp.role_id`,
  );
  await knex.raw(`CREATE OR REPLACE FUNCTION test_mark_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM nextval(format('public.test_w_%s', TG_RELID)::regclass);
      RETURN NULL;
    END $$`);
  await knex.raw(`CREATE OR REPLACE FUNCTION test_reset() RETURNS void LANGUAGE plpgsql AS $$
    DECLARE
      tables record;
      sequence_oid oid;
      kept_written boolean := false;
    BEGIN
      PERFORM set_config('session_replication_role', 'replica', true);
      FOR tables IN
        SELECT c.oid, c.relname, m.oid AS marker
          FROM pg_class c LEFT JOIN pg_class m ON m.relname = 'test_w_' || c.oid AND m.relkind = 'S' AND m.relnamespace = c.relnamespace
         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> ALL (${arrayLiteral(UNMARKED_TABLES)})
      LOOP
        IF tables.marker IS NULL THEN
          -- A table made after the template (or a database made without it): its past
          -- writes are unknown, so it is emptied as a written one.
          EXECUTE format('CREATE SEQUENCE public.%I', 'test_w_' || tables.oid);
          EXECUTE format('CREATE TRIGGER test_w BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON public.%I FOR EACH STATEMENT EXECUTE FUNCTION test_mark_write()', tables.relname);
        ELSIF pg_sequence_last_value(tables.marker) IS NULL THEN
          CONTINUE;
        END IF;
        IF tables.relname = ANY (${arrayLiteral(KEPT_TABLES)}) THEN
          kept_written := true;
          CONTINUE;
        END IF;
        EXECUTE format('DELETE FROM public.%I', tables.relname);
        FOR sequence_oid IN
          SELECT d.objid FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
           WHERE d.classid = 'pg_class'::regclass AND d.refobjid = tables.oid AND d.deptype IN ('a', 'i')
        LOOP
          PERFORM setval(sequence_oid, (SELECT seqstart FROM pg_sequence WHERE seqrelid = sequence_oid), false);
        END LOOP;
      END LOOP;
      PERFORM set_config('session_replication_role', 'origin', true);
      IF kept_written THEN
        -- The roles as the migrations seeded them (system roles and the pages module's
        -- team roles, kept in test_seed when the reset was installed) come back as they
        -- were; roles a test made go (with their grants and holders).
        DELETE FROM app_auth_roles r WHERE NOT EXISTS (SELECT 1 FROM test_seed.roles s WHERE s.id = r.id);
        UPDATE app_auth_roles r SET name = s.name || ' (reset)', label = s.label || ' (reset)' FROM test_seed.roles s
         WHERE s.id = r.id AND (r.name, r.label, r.description, r.require_2fa) IS DISTINCT FROM (s.name, s.label, s.description, s.require_2fa);
        UPDATE app_auth_roles r SET name = s.name, label = s.label, description = s.description, require_2fa = s.require_2fa FROM test_seed.roles s
         WHERE s.id = r.id AND r.name = s.name || ' (reset)';
        INSERT INTO app_auth_roles (id, name, label, description, system, require_2fa)
          SELECT s.id, s.name, s.label, s.description, s.system, s.require_2fa FROM test_seed.roles s
           WHERE NOT EXISTS (SELECT 1 FROM app_auth_roles r WHERE r.id = s.id);
        DELETE FROM app_auth_role_permissions;
        INSERT INTO app_auth_role_permissions (role_id, permission_key)
          SELECT s.role_id, s.permission_key FROM test_seed.role_permissions s JOIN app_auth_permissions p ON p.key = s.permission_key;
        INSERT INTO app_auth_role_permissions (role_id, permission_key)
          SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
          ON CONFLICT DO NOTHING;
      END IF;
      IF to_regproc('app_pages_public_notify_send') IS NOT NULL THEN
        PERFORM app_pages_public_notify_send(jsonb_build_object('all', true));
      END IF;
      -- Every marker back to "not written" (the repair above moved some).
      FOR sequence_oid IN SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S' AND relname LIKE 'test\\_w\\_%' LOOP
        IF pg_sequence_last_value(sequence_oid) IS NOT NULL THEN
          PERFORM setval(sequence_oid, 1, false);
        END IF;
      END LOOP;
    END $$`);
}

function arrayLiteral(names: string[]): string {
  return `ARRAY[${names.map((name) => `'${name}'`).join(', ')}]::name[]`;
}

/** Empties every table a test may have written (keeps migrations' reference data). */
export async function resetDatabase(knex: Knex): Promise<void> {
  try {
    await knex.raw('SELECT test_reset()');
  } catch (error) {
    // A database this run did not clone (a test's own scratch database): given the
    // functions, then reset (every table counts as written).
    if ((error as { code?: string }).code !== '42883') throw error;
    await installReset(knex);
    await knex.raw('SELECT test_reset()');
  }
}

/** Runs one statement on the test server as its administrator (outages, ALTER DATABASE). */
export async function adminQuery(sql: string): Promise<void> {
  await onServer(testDatabase().adminUrl, (client) => client.query(sql));
}
