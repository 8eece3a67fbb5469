// The migration that puts publishing apart from writing (issue 26), on a scratch database
// migrated up to just before it: a role that held pages.manage keeps publishing
// (pages.publish given), one without it gets nothing, admin holds the new permissions,
// and the three team roles are made, unless a role already has their name or label.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { coreMigrationsDirectory, migrateLatest, moduleMigrationsDirectory } from '../../lib/migrations.js';
import { PAGES_PERMISSION_SECTION } from '../../models/pages/manifest.js';
import { down, up } from '../../migrations/pages/20261127000400_pages_publish_and_team_roles.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { scratchKnex } from '../support/schema-snapshot.js';

describe('teams: the migration giving pages.publish and the team roles', function () {
  this.timeout(60_000);
  const name = `site_teams_migration_${process.pid}`;
  let knex: Knex;
  before(async () => {
    knex = scratchKnex(await createScratchDatabase(testDatabase().adminUrl, name));
    await migrateLatest(knex, { directories: [coreMigrationsDirectory(), moduleMigrationsDirectory('pages')] });
    // Back to the site as it was before this migration.
    await down(knex);
  });
  after(async () => {
    await knex?.destroy();
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  const permissionsOf = async (roleName: string) =>
    (
      await knex.raw<{ rows: Array<{ permission_key: string }> }>(
        `SELECT rp.permission_key FROM app_auth_role_permissions rp JOIN app_auth_roles r ON r.id = rp.role_id WHERE r.name = ? ORDER BY 1`,
        [roleName],
      )
    ).rows.map((row) => row.permission_key);

  async function makeRole(roleName: string, label: string, permissions: string[]): Promise<void> {
    const [{ id }] = await knex('app_auth_roles').insert({ name: roleName, label, description: 'Avant', system: false }).returning('id');
    if (permissions.length) await knex('app_auth_role_permissions').insert(permissions.map((key) => ({ role_id: id, permission_key: key })));
  }

  it('gives pages.publish to the roles that held pages.manage, makes the team roles, and leaves a taken name or label alone', async () => {
    expect(await knex('app_auth_roles').whereIn('name', ['contributor', 'author', 'editor']).pluck('name')).to.deep.equal([]);
    await makeRole('redaction', 'Rédaction', ['admin.access', 'pages.view', 'pages.manage']);
    await makeRole('lecture', 'Lecture', ['admin.access', 'pages.view']);
    // A site that already made its own «Éditeur» keeps it, under another key.
    await makeRole('chief', 'Éditeur', ['admin.access', 'pages.view']);

    await up(knex);

    expect(await permissionsOf('redaction')).to.deep.equal(['admin.access', 'pages.manage', 'pages.publish', 'pages.view']);
    expect(await permissionsOf('lecture')).to.deep.equal(['admin.access', 'pages.view']);
    expect(await permissionsOf('chief')).to.deep.equal(['admin.access', 'pages.view']);
    expect(await permissionsOf('admin')).to.include.members(['pages.publish', 'pages.review', 'pages.manage_own', 'pages.publish_own']);
    expect(await permissionsOf('contributor')).to.deep.equal(['admin.access', 'pages.manage_own', 'pages.view']);
    expect(await permissionsOf('author')).to.deep.equal(['admin.access', 'pages.manage_own', 'pages.publish_own', 'pages.view']);
    expect(await knex('app_auth_roles').where({ name: 'editor' }).first()).to.equal(undefined);
    const roles = await knex('app_auth_roles').whereIn('name', ['contributor', 'author']).orderBy('name').select('name', 'label', 'system');
    expect(roles).to.deep.equal([
      { name: 'author', label: 'Auteur', system: false },
      { name: 'contributor', label: 'Contributeur', system: false },
    ]);
    // The catalogue as the module declares it.
    const seeded = await knex('app_auth_permissions').where({ section: 'pages' }).orderBy('position').select('key', 'label');
    expect(seeded).to.deep.equal(PAGES_PERMISSION_SECTION.permissions);
  });

  it('on a fresh site, makes «Éditeur» with every page right, review and menus; undone by its down', async () => {
    await knex('app_auth_roles').where({ name: 'chief' }).delete();
    await down(knex);
    await up(knex);
    expect(await permissionsOf('editor')).to.deep.equal(['admin.access', 'menus.manage', 'pages.manage', 'pages.publish', 'pages.review', 'pages.view']);
    await down(knex);
    expect(await knex('app_auth_roles').whereIn('name', ['contributor', 'author', 'editor']).pluck('name')).to.deep.equal([]);
    expect(await knex('app_auth_permissions').where('key', 'like', 'pages.%').orderBy('key').pluck('key')).to.deep.equal(['pages.manage', 'pages.view']);
    await up(knex);
  });
});
