// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// In a real browser, with JavaScript on and off: the owner builds the header's menu on
// /admin/menus (a page found by the picker, an external link, a sub-link), saves it,
// and the public site shows it in its header.
import { expect } from 'chai';
import { useBrowserSite } from '../support/browser.js';
import { makePage, userWith } from './helpers.js';

describe('the menu screen in a browser', function () {
  this.timeout(60_000);
  const site = useBrowserSite({ APP_NAME: 'Site navigateur' });

  for (const javaScriptEnabled of [false, true]) {
    it(`builds the header’s menu with a page, an external link and a sub-link, shown by the site (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const guides = await makePage(site.ctx, { title: 'Guides', slug: 'guides' });
      const installer = await makePage(site.ctx, { title: 'Installer', slug: 'installer', parent_id: guides.id });
      const admin = await userWith(site.ctx, 'admin');
      const tab = await site.open({ javaScriptEnabled, cookie: admin.cookie, timeoutMs: 10_000 });
      await tab.goto(`${site.baseUrl}/admin/menus`);
      const header = tab.locator('#menu-header');

      await header.getByLabel('Ajouter une page').fill('guides');
      await header.getByRole('button', { name: 'Chercher une page' }).click();
      await header.getByRole('button', { name: 'Ajouter la page Guides' }).click();
      await header.getByLabel('Ajouter une page').fill('installer');
      // With JavaScript, Enter in the search searches (public/js/menus.js); without, the button does.
      if (javaScriptEnabled) await header.getByLabel('Ajouter une page').press('Enter');
      else await header.getByRole('button', { name: 'Chercher une page' }).click();
      await header.getByRole('button', { name: 'Ajouter la page Installer' }).click();
      await header.getByRole('button', { name: /^Sous-lien : placer le lien 2/ }).click();
      await header.getByRole('button', { name: 'Ajouter un lien' }).click();
      await header.locator('#header-2-label').fill('Forum');
      await header.locator('#header-2-url').fill('https://forum.example.org');
      await header.locator('#header-1-label').fill('Bien démarrer');
      await header.getByRole('button', { name: 'Enregistrer le menu' }).click();
      await tab.waitForLoadState();
      expect(await tab.locator('body').innerText()).to.include('Le menu de l’en-tête est enregistré.');

      const row = await site.ctx.db('app_page_menus').where({ name: 'header' }).first('items');
      expect(row!.items).to.deep.equal([
        { label: null, page_id: guides.id, url: null, children: [{ label: 'Bien démarrer', page_id: installer.id, url: null, children: [] }] },
        { label: 'Forum', page_id: null, url: 'https://forum.example.org', children: [] },
      ]);

      await tab.goto(`${site.baseUrl}/guides`);
      const nav = tab.getByRole('navigation', { name: 'Navigation principale' });
      const links = await nav.locator('a').evaluateAll((anchors) => anchors.map((a) => `${a.textContent} ${a.getAttribute('href')}`));
      expect(links).to.deep.equal(['Guides /guides', 'Bien démarrer /guides/installer', 'Forum https://forum.example.org']);
      // The sub-link opens from its link with the keyboard.
      await nav.getByRole('link', { name: 'Guides' }).focus();
      expect(await nav.getByRole('link', { name: 'Bien démarrer' }).isVisible()).to.equal(true);
    });
  }
});
