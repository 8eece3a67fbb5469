// What the migrations build, read back from the catalogue in a stable order: tables with
// their columns, indexes, constraints and sequences, the triggers and the functions (a
// hash of each body: the public cache's invalidation lives in them), plus the seeded
// permission and role rows. test/foundation/schema-snapshot.json holds the expected copy
// (`npm run schema:snapshot` rewrites it).
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { migrateLatest } from '../../lib/migrations.js';
import { projectRoot } from '../../lib/paths.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';
import { createScratchDatabase, dropScratchDatabase } from './database.js';

export const SNAPSHOT_FILE = path.join(projectRoot, 'test', 'foundation', 'schema-snapshot.json');

export interface SchemaSnapshot {
  tables: Record<
    string,
    {
      /** In column order (ordinal position). */
      columns: Array<{ name: string; type: string; nullable: boolean; default: string | null }>;
      indexes: Record<string, string>;
      constraints: Record<string, string>;
    }
  >;
  sequences: Record<string, string>;
  /** By `<table>.<trigger>`; the definition holds the WHEN condition and the transition tables. */
  triggers: Record<
    string,
    { table: string; timing: string; events: string[]; level: 'row' | 'statement'; function: string; enabled: boolean; definition: string }
  >;
  /** By `<name>(<argument types>)`: the function's result, language and the SHA-256 of its body. */
  functions: Record<string, { result: string; language: string; body_sha256: string }>;
  seeds: {
    permission_sections: unknown[];
    permissions: unknown[];
    roles: unknown[];
    role_permissions: unknown[];
  };
}

// knex creates its own bookkeeping tables; their shape belongs to knex, not to us.
const KNEX_TABLES = ['knex_migrations', 'knex_migrations_lock'];

async function rows<T>(knex: Knex, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  return (await knex.raw(sql, bindings as Knex.RawBinding[])).rows as T[];
}

/** Names of the tables in the public schema, knex's own excepted. */
export async function appTables(knex: Knex): Promise<string[]> {
  const found = await rows<{ name: string }>(
    knex,
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> ALL(?) ORDER BY 1`,
    [KNEX_TABLES],
  );
  return found.map((row) => row.name);
}

export async function readSchemaSnapshot(knex: Knex): Promise<SchemaSnapshot> {
  const tables: SchemaSnapshot['tables'] = {};
  for (const name of await appTables(knex)) tables[name] = { columns: [], indexes: {}, constraints: {} };

  const columns = await rows<{ table: string; name: string; type: string; nullable: boolean; default: string | null }>(
    knex,
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            NOT a.attnotnull AS nullable, pg_get_expr(d.adbin, d.adrelid) AS default
     FROM pg_attribute a
     JOIN pg_class c ON c.oid = a.attrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
     ORDER BY c.relname, a.attnum`,
  );
  for (const { table, ...column } of columns) tables[table]?.columns.push(column);

  const indexes = await rows<{ table: string; name: string; definition: string }>(
    knex,
    `SELECT tablename AS table, indexname AS name, indexdef AS definition FROM pg_indexes
     WHERE schemaname = 'public' ORDER BY tablename, indexname`,
  );
  for (const { table, name, definition } of indexes) if (tables[table]) tables[table].indexes[name] = definition;

  // NOT NULL is a column property above; PostgreSQL 18 also lists it as a constraint
  // ('n'), which would make the snapshot depend on the server version.
  const constraints = await rows<{ table: string; name: string; definition: string }>(
    knex,
    `SELECT c.relname AS table, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
     FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND k.contype <> 'n'
     ORDER BY c.relname, k.conname`,
  );
  for (const { table, name, definition } of constraints) if (tables[table]) tables[table].constraints[name] = definition;

  const sequences: Record<string, string> = {};
  const sequenceRows = await rows<{ name: string; type: string }>(
    knex,
    `SELECT sequencename AS name, data_type::text AS type FROM pg_sequences
     WHERE schemaname = 'public' AND sequencename NOT LIKE 'knex\\_%' ORDER BY 1`,
  );
  for (const { name, type } of sequenceRows) sequences[name] = type;

  // User triggers only: those PostgreSQL makes for foreign keys are the constraints above.
  // tgtype's bits (pg_trigger.h): 1 row, 2 before, 4 insert, 8 delete, 16 update, 32 truncate, 64 instead of.
  const triggers: SchemaSnapshot['triggers'] = {};
  const triggerRows = await rows<{ table: string; name: string; type: number; function: string; enabled: string; definition: string }>(
    knex,
    `SELECT c.relname AS table, t.tgname AS name, t.tgtype AS type, p.proname AS function, t.tgenabled AS enabled,
            pg_get_triggerdef(t.oid) AS definition
     FROM pg_trigger t
     JOIN pg_class c ON c.oid = t.tgrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_proc p ON p.oid = t.tgfoid
     WHERE n.nspname = 'public' AND NOT t.tgisinternal
     ORDER BY c.relname COLLATE "C", t.tgname COLLATE "C"`,
  );
  for (const { table, name, type, function: fn, enabled, definition } of triggerRows) {
    const events = (
      [
        [4, 'insert'],
        [16, 'update'],
        [8, 'delete'],
        [32, 'truncate'],
      ] as const
    )
      .filter(([bit]) => type & bit)
      .map(([, event]) => event);
    const timing = type & 64 ? 'instead of' : type & 2 ? 'before' : 'after';
    triggers[`${table}.${name}`] = { table, timing, events, level: type & 1 ? 'row' : 'statement', function: fn, enabled: enabled !== 'D', definition };
  }

  // Functions of the schema (the triggers' and any other), extensions' own excepted.
  const functions: SchemaSnapshot['functions'] = {};
  const functionRows = await rows<{ name: string; result: string; language: string; body_sha256: string }>(
    knex,
    `SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name, pg_get_function_result(p.oid) AS result,
            l.lanname AS language, encode(sha256(convert_to(p.prosrc, 'UTF8')), 'hex') AS body_sha256
     FROM pg_proc p
     JOIN pg_namespace n ON n.oid = p.pronamespace
     JOIN pg_language l ON l.oid = p.prolang
     WHERE n.nspname = 'public'
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
     ORDER BY p.proname COLLATE "C", pg_get_function_identity_arguments(p.oid) COLLATE "C"`,
  );
  for (const { name, ...rest } of functionRows) functions[name] = rest;

  // Ids and timestamps depend on when the rows were written; names and keys do not.
  // Byte order (COLLATE "C"), so the order does not depend on the database's locale.
  return {
    tables,
    sequences,
    triggers,
    functions,
    seeds: {
      permission_sections: await rows(knex, 'SELECT key, label, position FROM app_auth_permission_sections ORDER BY key COLLATE "C"'),
      permissions: await rows(knex, 'SELECT key, section, label, position FROM app_auth_permissions ORDER BY key COLLATE "C"'),
      roles: await rows(knex, 'SELECT name, label, description, system FROM app_auth_roles ORDER BY name COLLATE "C"'),
      role_permissions: await rows(
        knex,
        `SELECT r.name AS role, rp.permission_key FROM app_auth_role_permissions rp
         JOIN app_auth_roles r ON r.id = rp.role_id ORDER BY r.name COLLATE "C", rp.permission_key COLLATE "C"`,
      ),
    },
  };
}

/**
 * The snapshot as written to SNAPSHOT_FILE: two-space JSON and a final newline.
 * @public (loaded at run time by scripts/schema-snapshot.ts)
 */
export function formatSnapshot(snapshot: SchemaSnapshot): string {
  return JSON.stringify(snapshot, null, 2) + '\n';
}

/** A small pool on one scratch database, for the migration tests and the snapshot script. */
export function scratchKnex(url: string): Knex {
  return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 2 } });
}

/**
 * Creates an empty database on the server of `adminUrl`, migrates it to the site's latest version (its modules' migrations), reads it, drops it.
 * @public (loaded at run time by scripts/schema-snapshot.ts)
 */
export async function snapshotOfFreshDatabase(adminUrl: string, name: string): Promise<SchemaSnapshot> {
  const knex = scratchKnex(await createScratchDatabase(adminUrl, name));
  try {
    await migrateLatest(knex, { directories: siteMigrationDirectories() });
    return await readSchemaSnapshot(knex);
  } finally {
    await knex.destroy();
    await dropScratchDatabase(adminUrl, name);
  }
}

/** Where two snapshots differ, one line per differing value ("tables.app_pages.columns.4.default: …"). */
export function snapshotDifferences(expected: unknown, actual: unknown, at = ''): string[] {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return [];
  const bothObjects = typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null;
  if (!bothObjects || Array.isArray(expected) !== Array.isArray(actual)) {
    return [`${at || '(root)'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
  return [...keys].flatMap((key) =>
    snapshotDifferences((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], at ? `${at}.${key}` : key),
  );
}
