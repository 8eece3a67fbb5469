// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// In a real browser: a page tree built through the admin API, then the public URL of a
// third-level page opened in Chromium (title, description, image block, links).
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import request from 'supertest';
import { projectRoot } from '../../lib/paths.js';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { PNG_BYTES, userWith } from './helpers.js';

describe('public page in a browser', function () {
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

  it('renders a third-level page built through the admin API, with its metadata, image and links', async () => {
    const admin = await userWith(ctx, 'admin');
    const api = (method: 'post' | 'put', url: string, body: object) =>
      request(baseUrl)
        [method](url)
        .set('Cookie', admin.cookie)
        .set('Origin', baseUrl)
        .send(body)
        .expect((res) => {
          if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
        });
    const media = await request(baseUrl)
      .post('/app/api/admin/media')
      .set('Cookie', admin.cookie)
      .set('Origin', baseUrl)
      .field('alt', 'Le phare au couchant')
      .field('caption', 'Phare de Cordouan')
      .attach('file', PNG_BYTES, 'phare.png')
      .expect(201);
    const first = (await api('post', '/app/api/admin/pages', { title: 'Voyages' })).body;
    const second = (await api('post', '/app/api/admin/pages', { title: 'Été à Bordeaux', parent_id: first.id, template: 'section' })).body;
    const third = (
      await api('post', '/app/api/admin/pages', {
        title: 'Le phare',
        parent_id: second.id,
        seo: { title: 'Le phare de Cordouan', description: 'Visite du plus ancien phare de France.' },
        blocks: [
          { type: 'heading', text: 'Histoire', level: 2 },
          { type: 'paragraph', text: 'Construit au XVIe siècle.' },
          { type: 'image', media_id: media.body.id },
          { type: 'link', href: '/voyages', label: 'Tous les voyages' },
        ],
      })
    ).body;
    expect(third.slug).to.equal('le-phare');

    const page = await browser.newPage();
    // Every request of the page succeeds, the browser's own /favicon.ico included.
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });
    const response = await page.goto(`${baseUrl}/voyages/ete-a-bordeaux/le-phare`);
    expect(response?.status()).to.equal(200);
    expect(await page.title()).to.equal('Le phare de Cordouan — Site navigateur');
    expect(await page.getAttribute('meta[name="description"]', 'content')).to.equal('Visite du plus ancien phare de France.');
    expect(await page.getAttribute('link[rel="canonical"]', 'href')).to.match(/\/voyages\/ete-a-bordeaux\/le-phare$/);
    expect(await page.getAttribute('meta[property="og:title"]', 'content')).to.equal('Le phare de Cordouan');

    const image = page.locator('figure.block-image img');
    expect(await image.getAttribute('alt')).to.equal('Le phare au couchant');
    expect(await image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth)).to.equal(1);
    expect(await page.textContent('figure.block-image figcaption')).to.equal('Phare de Cordouan');
    expect(await page.textContent('h1')).to.equal('Le phare');

    const crumbs = await page.$$eval('.breadcrumbs a', (links) => links.map((link) => [link.textContent, link.getAttribute('href')]));
    expect(crumbs).to.deep.equal([
      ['Accueil', '/'],
      ['Voyages', '/voyages'],
      ['Été à Bordeaux', '/voyages/ete-a-bordeaux'],
    ]);
    mkdirSync(path.join(projectRoot, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, 'test-artifacts', 'pages-third-level.png'), fullPage: true });

    // The section page (second level) lists the third one; following the links works.
    await page.click('.breadcrumbs a[href="/voyages/ete-a-bordeaux"]');
    await page.waitForURL(`${baseUrl}/voyages/ete-a-bordeaux`);
    expect(await page.title()).to.equal('Été à Bordeaux — Site navigateur');
    await page.click('.child-pages a[href="/voyages/ete-a-bordeaux/le-phare"]');
    await page.waitForURL(`${baseUrl}/voyages/ete-a-bordeaux/le-phare`);
    await page.click('text=Tous les voyages');
    await page.waitForURL(`${baseUrl}/voyages`);
    expect(await page.textContent('h1')).to.equal('Voyages');
    expect(failed).to.deep.equal([]);
  });
});
