// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// In a real browser, with JavaScript on and off: a section moved through the admin API,
// then the old URL of its third-level page opened in Chromium lands on the new URL
// through a 301, and shows the page.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { userWith } from './helpers.js';

describe('redirects in a browser', function () {
  this.timeout(60_000);
  let server: Server;
  let baseUrl: string;
  let browser: Browser;
  let ctx: AppContext;

  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp({ APP_NAME: 'Site navigateur' });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (server) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => resetData(ctx));

  it('after moving a section, the old URL of its third-level page gives 301 to the new URL (JavaScript on and off)', async () => {
    const admin = await userWith(ctx, 'admin');
    const api = async (method: 'post' | 'put', url: string, body: object): Promise<{ id: number }> => {
      const res = await request(baseUrl)[method](url).set('Cookie', admin.cookie).set('Origin', baseUrl).send(body);
      if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as { id: number };
    };
    const rubrique = await api('post', '/app/api/admin/pages', { title: 'Rubrique', slug: 'rubrique' });
    const archives = await api('post', '/app/api/admin/pages', { title: 'Archives', slug: 'archives' });
    const section = await api('post', '/app/api/admin/pages', { title: 'Section', slug: 'section', parent_id: rubrique.id });
    await api('post', '/app/api/admin/pages', {
      title: 'Le phare',
      slug: 'phare',
      parent_id: section.id,
      blocks: [{ type: 'paragraph', text: 'Au bout de la jetée.' }],
    });
    await api('put', `/app/api/admin/pages/${section.id}`, { parent_id: archives.id });

    for (const javaScriptEnabled of [true, false]) {
      const context = await browser.newContext({ javaScriptEnabled });
      try {
        const page = await context.newPage();
        const response = await page.goto(`${baseUrl}/rubrique/section/phare`);
        expect(response!.status(), `JavaScript ${javaScriptEnabled}`).to.equal(200);
        expect(page.url()).to.equal(`${baseUrl}/archives/section/phare`);
        const hop = await response!.request().redirectedFrom()!.response();
        expect(hop!.status()).to.equal(301);
        expect(hop!.url()).to.equal(`${baseUrl}/rubrique/section/phare`);
        expect(await page.locator('h1').textContent()).to.equal('Le phare');
        expect(await page.locator('main').textContent()).to.include('Au bout de la jetée.');
      } finally {
        await context.close();
      }
    }
  });
});
