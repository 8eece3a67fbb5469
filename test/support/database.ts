// A fresh, empty logical database for each test run: on TEST_DATABASE_URL's server
// when set (CI), else on a throw-away embedded PostgreSQL. Dropped at the end.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Knex } from 'knex';
import { createKnex } from '../../lib/db.js';
import { createLogger } from '../../lib/logger.js';
import { migrateLatest } from '../../lib/migrations.js';
import { freePort, startEmbeddedPostgres, type RunningDatabase } from '../../lib/embedded-postgres.js';

interface TestDatabase {
  url: string;
  adminUrl: string;
  name: string;
  embedded?: RunningDatabase;
  scratchDir: string;
}

// Kept on globalThis: mocha may load the root-hooks file and the test files through
// different module loaders, which would otherwise give each its own copy of this state.
const state = globalThis as { __siteTestDatabase?: TestDatabase };

export function testDatabase(): TestDatabase {
  if (!state.__siteTestDatabase) throw new Error('test database not started (test/support/hooks.ts)');
  return state.__siteTestDatabase;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/' + database;
  return parsed.toString();
}

export async function createScratchDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

export async function dropScratchDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export async function startTestDatabase(): Promise<TestDatabase> {
  const scratchDir = mkdtempSync(path.join(os.tmpdir(), 'site-test-'));
  // When run as root, PostgreSQL runs as the postgres user, who must reach the cluster.
  chmodSync(scratchDir, 0o755);
  const name = `site_test_${process.pid}_${Date.now().toString(36)}`;
  let adminUrl = process.env.TEST_DATABASE_URL;
  let embedded: RunningDatabase | undefined;
  if (!adminUrl) {
    // The cluster directory must be reachable by the unprivileged postgres user.
    embedded = await startEmbeddedPostgres({ directory: path.join(scratchDir, 'pg'), port: await freePort(), persistent: false, database: 'postgres' });
    adminUrl = embedded.url;
  }
  const url = await createScratchDatabase(adminUrl, name);
  const knex = createKnex(url, { poolMax: 2, logger: createLogger('warn') });
  try {
    await migrateLatest(knex);
  } finally {
    await knex.destroy();
  }
  state.__siteTestDatabase = { url, adminUrl, name, embedded, scratchDir };
  return state.__siteTestDatabase;
}

export async function stopTestDatabase(): Promise<void> {
  const current = state.__siteTestDatabase;
  if (!current) return;
  const { adminUrl, name, embedded, scratchDir } = current;
  state.__siteTestDatabase = undefined;
  await dropScratchDatabase(adminUrl, name);
  await embedded?.stop();
  rmSync(scratchDir, { recursive: true, force: true });
}

// Reference data seeded by migrations stays; everything a test writes goes.
const KEPT_TABLES = new Set([
  'knex_migrations',
  'knex_migrations_lock',
  'app_auth_roles',
  'app_auth_permissions',
  'app_auth_permission_sections',
  'app_auth_role_permissions',
]);

export async function resetDatabase(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  const tables = rows.map((row: { tablename: string }) => row.tablename).filter((table: string) => !KEPT_TABLES.has(table));
  if (tables.length) await knex.raw(`TRUNCATE ${tables.map((table: string) => `"${table}"`).join(', ')} RESTART IDENTITY CASCADE`);
  await knex('app_auth_roles').where({ system: false }).delete();
  // A test may require two-step verification of a system role's holders.
  await knex('app_auth_roles').where({ require_2fa: true }).update({ require_2fa: false });
  // A test may relabel a system role: the labels the migration gave them come back.
  await knex.raw(`UPDATE app_auth_roles SET label = CASE name WHEN 'admin' THEN 'Administrateur' ELSE 'Utilisateur' END WHERE system`);
  // System roles may be edited by a test (the `user` role's permissions can change):
  // put them back as the migration seeded them.
  await knex.raw(`DELETE FROM app_auth_role_permissions WHERE role_id = (SELECT id FROM app_auth_roles WHERE name = 'user')`);
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
  );
}

/** Runs one statement on the test server as its administrator (outages, ALTER DATABASE). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabase().adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
