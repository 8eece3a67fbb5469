// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import {
  MigrationSource,
  migrateLatest,
  migrateReset,
  migrateRollback,
  migrationStatus,
  moduleMigrationsDirectory,
  pendingMigrations,
} from '../../lib/migrations.js';
import * as authSchema from '../../models/auth/schema.js';
import { coreModule } from '../../routes/core-module.js';
import { siteMigrationDirectories } from '../../routes/site-modules.js';
import * as pagesSchema from '../../models/pages/schema.js';
import * as settingsSchema from '../../models/settings/schema.js';
import { spawnServer } from '../support/server-process.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { appTables, scratchKnex } from '../support/schema-snapshot.js';

// The site's history: the directories its modules declare.
const site = { directories: siteMigrationDirectories() };

async function allMigrations(): Promise<string[]> {
  const source = new MigrationSource(site.directories);
  return (await source.getMigrations()).map((file) => source.getMigrationName(file));
}

describe('migrations', () => {
  const name = `site_migrations_${process.pid}`;
  let url: string;
  let knex: Knex;

  before(async () => {
    url = await createScratchDatabase(testDatabase().adminUrl, name);
    knex = scratchKnex(url);
  });
  afterEach(async () => {
    await migrateReset(knex, site);
  });
  after(async () => {
    await knex?.destroy();
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('are read from the directories the modules declare, the core first, as one list sorted by file name', async () => {
    const [core, ...modules] = site.directories;
    expect(core).to.match(/migrations$/);
    expect(modules.map((directory) => directory.slice(core.length))).to.deep.equal(['/pages', '/settings']);
    const names = await allMigrations();
    expect(names).to.include.members(['20261121000000_auth_tables', '20261121000100_pages_tables']);
    expect(names).to.deep.equal([...names].sort());
  });

  it('never come from a folder no module declares (the pages folder is not read for a site of the core alone)', async () => {
    const coreOnly = siteMigrationDirectories([coreModule]);
    expect(coreOnly).to.deep.equal([site.directories[0]]);
    const source = new MigrationSource(coreOnly);
    const names = (await source.getMigrations()).map((file) => source.getMigrationName(file));
    expect(names).to.include('20261121000000_auth_tables');
    expect(names.filter((name) => name.includes('pages'))).to.deep.equal([]);
    const { migrations } = await migrateLatest(knex, { directories: coreOnly });
    expect(migrations).to.deep.equal(names);
    expect(await appTables(knex)).to.not.include('app_pages');
  });

  it('go up from empty, down to empty, and up again', async () => {
    expect(await pendingMigrations(knex, site)).to.deep.equal(await allMigrations());
    const { migrations } = await migrateLatest(knex, site);
    expect(migrations).to.deep.equal(await allMigrations());
    expect(await pendingMigrations(knex, site)).to.deep.equal([]);
    const applied = await knex('knex_migrations').pluck('name');
    // Recorded without extension, so sources (.ts) and dist/ (.js) share one history.
    for (const migration of applied) expect(migration).to.not.match(/\.(ts|js)$/);
    expect(await appTables(knex)).to.include.members(['app_auth_users', 'app_auth_sessions', 'app_auth_accounts', 'app_auth_verifications', 'app_pages']);
    const roles = await knex('app_auth_roles').orderBy('name').select('name', 'system');
    // The two system roles, and the team roles the pages module ships (editable like any role).
    expect(roles).to.deep.equal([
      { name: 'admin', system: true },
      { name: 'author', system: false },
      { name: 'contributor', system: false },
      { name: 'editor', system: false },
      { name: 'user', system: true },
    ]);

    await migrateReset(knex, site);
    expect(await appTables(knex)).to.deep.equal([]);

    await migrateLatest(knex, site);
    expect(await pendingMigrations(knex, site)).to.deep.equal([]);
  });

  it('roll back the last batch only', async () => {
    const coreOnly = siteMigrationDirectories([coreModule]);
    const { migrations: first } = await migrateLatest(knex, { directories: coreOnly });
    const { migrations: second } = await migrateLatest(knex, site);
    expect(second).to.include('20261121000100_pages_tables');
    const { migrations } = await migrateRollback(knex, site);
    expect(migrations).to.deep.equal([...second].reverse());
    expect((await migrationStatus(knex, site)).completed).to.deep.equal(first);
  });

  it('report their status without creating anything', async () => {
    const empty = `${name}_status`;
    const other = scratchKnex(await createScratchDatabase(testDatabase().adminUrl, empty));
    try {
      expect(await migrationStatus(other, site)).to.deep.equal({ completed: [], pending: await allMigrations(), unknown: [] });
      const { rows } = await other.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
      expect(rows, 'the status check created tables').to.deep.equal([]);
    } finally {
      await other.destroy();
      await dropScratchDatabase(testDatabase().adminUrl, empty);
    }
  });

  it('name the migrations recorded that no file provides', async () => {
    await migrateLatest(knex, site);
    await knex('knex_migrations').insert({ name: '20991231000000_from_a_newer_version', batch: 2, migration_time: new Date() });
    try {
      const status = await migrationStatus(knex, site);
      expect(status.unknown).to.deep.equal(['20991231000000_from_a_newer_version']);
    } finally {
      await knex('knex_migrations').where({ name: '20991231000000_from_a_newer_version' }).delete();
    }
  });

  it("run through each model's createTables() and dropTables(), recorded like any other run", async () => {
    await authSchema.createTables(knex);
    const pagesMigrations = readdirSync(moduleMigrationsDirectory('pages'))
      .filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .map((file) => file.replace(/\.(ts|js)$/, ''))
      .sort();
    expect(pagesMigrations[0]).to.equal('20261121000100_pages_tables');
    expect(await pendingMigrations(knex, site)).to.deep.equal([...pagesMigrations, '20261126004000_settings_tables'].sort());
    await pagesSchema.createTables(knex);
    expect(await pendingMigrations(knex, site)).to.deep.equal(['20261126004000_settings_tables']);
    await settingsSchema.createTables(knex);
    expect(await pendingMigrations(knex, site)).to.deep.equal([]);
    expect(await knex('app_auth_permissions').where({ section: 'pages' }).pluck('key')).to.have.members([
      'pages.view',
      'pages.manage',
      'menus.manage',
      'pages.publish',
      'pages.review',
      'pages.manage_own',
      'pages.publish_own',
    ]);
    expect(await knex('app_auth_permissions').where({ section: 'site' }).pluck('key')).to.deep.equal(['settings.manage']);

    await settingsSchema.dropTables(knex);
    expect(await appTables(knex)).to.not.include('app_site_settings');
    await pagesSchema.dropTables(knex);
    expect(await appTables(knex)).to.not.include('app_pages');
    expect(await knex('app_auth_permission_sections').pluck('key')).to.not.include('pages');
    await authSchema.dropTables(knex);
    expect(await appTables(knex)).to.deep.equal([]);
  });

  it('keep the server from starting while some are pending, naming the command to run', async () => {
    const server = await spawnServer({ DATABASE_URL: url, DATA_DIR: testDatabase().scratchDir, SESSION_SECRET: 'x'.repeat(40) });
    const code = await server.exited;
    expect(code, server.output()).to.equal(1);
    expect(server.output()).to.include('npm run migrate').and.include('knex migrate:latest');
    expect(server.output()).to.not.include('server listening');
    expect(await appTables(knex), 'the server changed the schema').to.deep.equal([]);
  });
});
