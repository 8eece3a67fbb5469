// The settings module's migration: its permission section as the register call declares
// it, given to the admin role; and the home page it keeps: today's public root page
// `accueil`, when the site has one, becomes the chosen home page. On a scratch database
// migrated to the pages module's last migration, then to the settings module's.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { coreMigrationsDirectory, migrateDirectoryUp, migrateLatest, moduleMigrationsDirectory } from '../../lib/migrations.js';
import { SETTINGS_PERMISSION_SECTION } from '../../models/settings/manifest.js';
import { collectModules } from '../../lib/modules.js';
import { SITE_MODULES } from '../../routes/site-modules.js';
import { createScratchDatabase, dropScratchDatabase, testDatabase } from '../support/database.js';
import { scratchKnex } from '../support/schema-snapshot.js';

describe('the settings module’s migration', function () {
  this.timeout(60_000);
  const name = `site_settings_migration_${process.pid}`;
  let knex: Knex;
  before(async () => {
    knex = scratchKnex(await createScratchDatabase(testDatabase().adminUrl, name));
    await migrateLatest(knex, { directories: [coreMigrationsDirectory(), moduleMigrationsDirectory('pages')] });
  });
  after(async () => {
    await knex?.destroy();
    await dropScratchDatabase(testDatabase().adminUrl, name);
  });

  it('chooses today’s public root page «accueil» as the home page, and seeds the section the module declares, held by the admin role', async () => {
    const [other] = await knex('app_pages').insert({ title: 'Autre', slug: 'autre', blocks: '[]', seo: '{}' }).returning('id');
    const [accueil] = await knex('app_pages').insert({ title: 'Accueil', slug: 'accueil', blocks: '[]', seo: '{}' }).returning('id');
    await knex('app_pages').insert({ title: 'Accueil bis', slug: 'accueil', parent_id: other.id, blocks: '[]', seo: '{}' });
    expect(await migrateDirectoryUp(knex, moduleMigrationsDirectory('settings'))).to.deep.equal(['20261126004000_settings_tables']);
    const rows = await knex('app_site_settings').select('home_page_id', 'title', 'theme', 'noindex');
    expect(rows).to.deep.equal([{ home_page_id: accueil.id, title: null, theme: 'default', noindex: false }]);

    const declared = collectModules(SITE_MODULES).permissionSections.filter((section) => section.key === 'site');
    expect(declared).to.deep.equal([SETTINGS_PERMISSION_SECTION]);
    expect(await knex('app_auth_permission_sections').where({ key: 'site' }).first()).to.include({ label: 'Site', position: 110 });
    const seeded = await knex('app_auth_permissions').where({ section: 'site' }).orderBy('position').select('key', 'label');
    expect(seeded).to.deep.equal(SETTINGS_PERMISSION_SECTION.permissions);
    const holders = await knex.raw<{ rows: Array<{ name: string }> }>(
      `SELECT r.name FROM app_auth_role_permissions rp JOIN app_auth_roles r ON r.id = rp.role_id WHERE rp.permission_key = 'settings.manage'`,
    );
    expect(holders.rows.map((row) => row.name)).to.deep.equal(['admin']);
  });
});
