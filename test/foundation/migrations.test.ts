import { expect } from 'chai';
import { createKnex, pendingMigrations } from '../../lib/db.js';
import { spawnServer } from '../support/server-process.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';

async function tables(url: string): Promise<string[]> {
  const knex = createKnex(url, 1);
  try {
    const { rows } = await knex.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex_%' ORDER BY 1`);
    return rows.map((row: { tablename: string }) => row.tablename);
  } finally {
    await knex.destroy();
  }
}

describe('migrations', () => {
  const name = `site_migrations_${process.pid}`;
  let url: string;

  before(async () => {
    url = await createScratchDatabase(testDatabase().adminUrl, name);
  });
  after(async () => {
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('go up from empty, down to empty, and up again', async () => {
    const knex = createKnex(url, 1);
    try {
      expect(await pendingMigrations(knex)).to.have.length.greaterThan(0);
      await knex.migrate.latest();
      expect(await pendingMigrations(knex)).to.deep.equal([]);
      const applied = await knex('knex_migrations').pluck('name');
      // Recorded without extension, so sources (.ts) and dist/ (.js) share one history.
      for (const migration of applied) expect(migration).to.not.match(/\.(ts|js)$/);
      expect(await tables(url)).to.include.members(['app_auth_users', 'app_auth_sessions', 'app_auth_accounts', 'app_auth_verifications']);
      const roles = await knex('app_auth_roles').orderBy('name').select('name', 'system');
      expect(roles).to.deep.equal([
        { name: 'admin', system: true },
        { name: 'user', system: true },
      ]);

      await knex.migrate.rollback(undefined, true);
      expect(await tables(url)).to.deep.equal([]);

      await knex.migrate.latest();
      expect(await pendingMigrations(knex)).to.deep.equal([]);
    } finally {
      await knex.migrate.rollback(undefined, true);
      await knex.destroy();
    }
  });

  it('keep the server from starting while some are pending, naming the command to run', async () => {
    const server = await spawnServer({ DATABASE_URL: url, DATA_DIR: testDatabase().scratchDir, SESSION_SECRET: 'x'.repeat(40) });
    const code = await server.exited;
    expect(code, server.output()).to.equal(1);
    expect(server.output()).to.include('npm run migrate').and.include('knex migrate:latest');
    expect(server.output()).to.not.include('server listening');
    expect(await tables(url), 'the server changed the schema').to.deep.equal([]);
  });
});
