import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrateLatest, migrateReset } from '../../lib/migrations.js';
import { CORE_PERMISSION_SECTIONS } from '../../models/auth/schema.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';

const site = { directories: siteMigrationDirectories() };
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { appTables, readSchemaSnapshot, scratchKnex, snapshotDifferences, SNAPSHOT_FILE, type SchemaSnapshot } from '../support/schema-snapshot.js';

const RUN_SNAPSHOT =
  'If the change is intended (a new migration), run `npm run schema:snapshot` and commit test/foundation/schema-snapshot.json with the migration.';

function committedSnapshot(): SchemaSnapshot {
  if (!existsSync(SNAPSHOT_FILE)) throw new Error(`test/foundation/schema-snapshot.json is missing. ${RUN_SNAPSHOT}`);
  return JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8'));
}

function expectCommittedSnapshot(actual: SchemaSnapshot, what: string): void {
  const differences = snapshotDifferences(committedSnapshot(), actual);
  const shown = differences
    .slice(0, 20)
    .map((line) => `  ${line}`)
    .join('\n');
  const more = differences.length > 20 ? `\n  … and ${differences.length - 20} more` : '';
  expect(differences, `${what} differs from test/foundation/schema-snapshot.json:\n${shown}${more}\n${RUN_SNAPSHOT}\n`).to.deep.equal([]);
}

describe('the schema the migrations build', () => {
  const name = `site_schema_${process.pid}`;
  let knex: Knex;

  before(async () => {
    knex = scratchKnex(await createScratchDatabase(testDatabase().adminUrl, name));
  });
  after(async () => {
    await knex?.destroy();
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('is, on an empty database, the committed snapshot: tables, columns, indexes, constraints and seed rows', async () => {
    await migrateLatest(knex, site);
    expectCommittedSnapshot(await readSchemaSnapshot(knex), 'The schema built by the migrations');
  });

  it('seeds the core permission sections the code declares', async () => {
    await migrateLatest(knex, site);
    for (const section of CORE_PERMISSION_SECTIONS) {
      expect(await knex('app_auth_permission_sections').where({ key: section.key }).first('label', 'position')).to.deep.equal({
        label: section.label,
        position: section.position,
      });
      const permissions = await knex('app_auth_permissions').where({ section: section.key }).orderBy('position').select('key', 'label');
      expect(permissions).to.deep.equal(section.permissions);
    }
  });

  it('leaves no table, sequence or migration record of the application once every migration is rolled back', async () => {
    await migrateLatest(knex, site);
    await migrateReset(knex, site);
    expect(await appTables(knex)).to.deep.equal([]);
    const { rows } = await knex.raw(`SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND sequencename NOT LIKE 'knex\\_%'`);
    expect(rows).to.deep.equal([]);
    const [{ n }] = await knex('knex_migrations').count({ n: '*' });
    expect(Number(n)).to.equal(0);
  });

  it('builds the same snapshot again after a full rollback', async () => {
    await migrateLatest(knex, site);
    await migrateReset(knex, site);
    await migrateLatest(knex, site);
    expectCommittedSnapshot(await readSchemaSnapshot(knex), 'The schema built again after a full rollback');
  });
});

describe('the schema snapshot: triggers and functions', () => {
  const name = `site_schema_triggers_${process.pid}`;
  let knex: Knex;

  before(async () => {
    knex = scratchKnex(await createScratchDatabase(testDatabase().adminUrl, name));
    await migrateLatest(knex, site);
  });
  after(async () => {
    await knex?.destroy();
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('lists the public cache triggers of app_pages with their timing, events, level and function, and each function body’s hash', async () => {
    const snapshot = await readSchemaSnapshot(knex);
    const update = snapshot.triggers['app_pages.app_pages_public_notify_update'];
    expect(update).to.include({ table: 'app_pages', timing: 'after', level: 'statement', enabled: true });
    expect(update.events).to.deep.equal(['update']);
    expect(snapshot.functions).to.have.property(`${update.function}()`);
    expect(snapshot.functions['app_pages_public_notify_send(payload jsonb)']).to.include({ result: 'void', language: 'plpgsql' });
    expect(snapshot.functions['app_pages_public_notify_send(payload jsonb)'].body_sha256).to.match(/^[0-9a-f]{64}$/);
    // Foreign keys' internal triggers are constraints, not listed again.
    expect(Object.keys(snapshot.triggers).filter((key) => key.includes('RI_ConstraintTrigger'))).to.deep.equal([]);
  });

  it('catches a dropped trigger, a disabled one and a function whose body changed', async () => {
    expect(snapshotDifferences(committedSnapshot(), await readSchemaSnapshot(knex))).to.deep.equal([]);
    const [{ definition: body }] = (await knex.raw(`SELECT pg_get_functiondef('app_pages_public_notify_send(jsonb)'::regprocedure) AS definition`))
      .rows as Array<{ definition: string }>;
    await knex.raw('DROP TRIGGER app_pages_public_notify_delete ON app_pages');
    await knex.raw('ALTER TABLE app_pages DISABLE TRIGGER app_pages_public_notify_insert');
    // The same function with one more statement: same name, same signature, another body.
    await knex.raw(body.replace(/BEGIN/i, 'BEGIN\n  PERFORM 1;'));

    const differences = snapshotDifferences(committedSnapshot(), await readSchemaSnapshot(knex));
    expect(differences.some((line) => line.startsWith('triggers.app_pages.app_pages_public_notify_delete: expected {'))).to.equal(true);
    expect(differences).to.include('triggers.app_pages.app_pages_public_notify_insert.enabled: expected true, got false');
    expect(differences.some((line) => line.startsWith('functions.app_pages_public_notify_send(payload jsonb).body_sha256: expected "'))).to.equal(true);
    expect(differences).to.have.length(3);
  });
});
