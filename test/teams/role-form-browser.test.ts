// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The role form in Chromium (issue 26): with JavaScript the key follows the label as it
// is typed; choosing a page permission without «Accéder à l'administration» brings the
// form back with that box ticked and the reason, and «Créer le rôle» again saves it.
import { expect } from 'chai';
import { useBrowserSite } from '../support/browser.js';
import { caller } from '../support/fixtures.js';

describe('teams: the role form in a browser', function () {
  this.timeout(120_000);
  const site = useBrowserSite();

  it('fills the key from the label live, and asks once about «Accéder à l’administration»', async () => {
    const { cookie } = await caller(site.ctx, { role: 'admin' });
    const tab = await site.open({ javaScriptEnabled: true, cookie, timeoutMs: 10_000 });
    await tab.goto(`${site.baseUrl}/admin/roles/new`);
    await tab.getByLabel('Libellé', { exact: true }).pressSequentially('Équipe Été');
    expect(await tab.locator('[data-role-key-shown]').textContent()).to.equal('equipe-ete');
    await tab.locator('details.role-key summary').click();
    expect(await tab.getByLabel('Clé', { exact: true }).inputValue()).to.equal('equipe-ete');

    await tab.getByLabel('Publier les pages (publier, programmer, rendre privée)').check();
    await tab.getByRole('button', { name: 'Créer le rôle' }).click();
    await tab.waitForLoadState();
    expect(await tab.locator('#role-permissions-error').textContent()).to.include('Accéder à l’administration');
    expect(await tab.getByLabel('Accéder à l’administration').isChecked()).to.equal(true);
    expect(await site.ctx.db('app_auth_roles').where({ name: 'equipe-ete' }).first()).to.equal(undefined);

    await tab.getByRole('button', { name: 'Créer le rôle' }).click();
    await tab.waitForURL(/\/admin\/roles\/\d+$/);
    const role = (await site.ctx.db('app_auth_roles').where({ name: 'equipe-ete' }).first())!;
    expect(role.label).to.equal('Équipe Été');
    const permissions = await site.ctx.db('app_auth_role_permissions').where({ role_id: role.id }).orderBy('permission_key').pluck('permission_key');
    expect(permissions).to.deep.equal(['admin.access', 'pages.publish']);
  });
});
