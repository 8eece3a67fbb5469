import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { migrateLatest, migrateReset } from '../../lib/migrations.js';
import { CORE_PERMISSION_SECTIONS } from '../../models/auth/schema.js';
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
    await migrateLatest(knex);
    expectCommittedSnapshot(await readSchemaSnapshot(knex), 'The schema built by the migrations');
  });

  it('seeds the core permission sections the code declares', async () => {
    await migrateLatest(knex);
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
    await migrateLatest(knex);
    await migrateReset(knex);
    expect(await appTables(knex)).to.deep.equal([]);
    const { rows } = await knex.raw(`SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND sequencename NOT LIKE 'knex\\_%'`);
    expect(rows).to.deep.equal([]);
    const [{ n }] = await knex('knex_migrations').count({ n: '*' });
    expect(Number(n)).to.equal(0);
  });

  it('builds the same snapshot again after a full rollback', async () => {
    await migrateLatest(knex);
    await migrateReset(knex);
    await migrateLatest(knex);
    expectCommittedSnapshot(await readSchemaSnapshot(knex), 'The schema built again after a full rollback');
  });
});
