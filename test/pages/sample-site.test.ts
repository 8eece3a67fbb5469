// The first run's «Commencer avec un site d'exemple» (a checkbox `sample_site`): a home
// page, a section of three guides with a picture and a header menu, published at once
// and recorded as sample content; «Supprimer le contenu d'exemple» (the dashboard's
// button, DELETE /app/api/admin/sample-content) removes exactly that.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { saveMenu } from '../../models/pages/menus.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient } from '../support/admin-client.js';
import { FakeClock, FormClient, strongPassword } from '../support/form-client.js';
import { listening, makePage, userWith } from './helpers.js';

const ADMIN = { name: 'Ada', email: 'ada@exemple.fr', password: strongPassword };

describe('the sample site of the first run', () => {
  let app: App;
  let ctx: AppContext;
  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    await listening(ctx);
  });
  beforeEach(async () => {
    await resetData(ctx);
    ctx.memo.accountExists = false;
  });

  async function firstRun(fields: Record<string, string>): Promise<FormClient> {
    const client = new FormClient(app, new FakeClock());
    const created = await client.submit('/auth', { ...ADMIN, ...fields });
    expect(created.status, created.text).to.equal(303);
    return client;
  }

  const pageCount = async () => Number((await ctx.db('app_pages').count({ n: '*' }))[0].n);

  it('is offered on the first-run form, unticked, with what it makes', async () => {
    const form = await request(app).get('/auth');
    expect(form.status).to.equal(200);
    expect(form.text).to.match(
      /<input type="checkbox" name="sample_site" aria-describedby="f-sample_site-hint"> <span>Commencer avec un site d’exemple<\/span>/,
    );
    expect(form.text).to.include('id="f-sample_site-hint"');
  });

  it('makes nothing when the box is left unticked', async () => {
    await firstRun({});
    expect(await pageCount()).to.equal(0);
    expect(await ctx.db('app_pages_sample_content').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('makes five published pages, a picture and the header menu when ticked, recorded as sample content', async () => {
    await firstRun({ sample_site: 'on' });
    const pages = await ctx.db('app_pages').orderBy('id').select('id', 'slug', 'visibility', 'published_revision');
    expect(pages.map((page) => page.slug)).to.deep.equal(['accueil', 'guides', 'preparer-la-terre', 'le-tournage', 'la-cuisson']);
    expect(pages.every((page) => page.visibility === 'public' && page.published_revision !== null)).to.equal(true);
    const media = await ctx.db('app_pages_media').select('id', 'filename', 'alt');
    expect(media).to.have.length(1);
    expect(media[0].alt).to.not.equal('');
    expect((await ctx.db('app_page_menus').where({ name: 'header' }).first())?.items).to.have.length(2);
    const recorded = await ctx.db('app_pages_sample_content').orderBy(['kind', 'ref']).select('kind', 'ref');
    expect(recorded).to.deep.equal([
      { kind: 'media', ref: String(media[0].id) },
      { kind: 'menu', ref: 'header' },
      ...pages.map((page) => ({ kind: 'page', ref: String(page.id) })).sort((a, b) => a.ref.localeCompare(b.ref)),
    ]);
    const home = await request(app).get('/');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('Bienvenue à l’atelier');
    expect(home.text).to.include('href="/guides"');
    const picture = /<img src="(\/uploads\/media\/[^"]+)"/.exec(home.text)?.[1];
    expect(picture).to.be.a('string');
    expect((await request(app).get(picture!)).status).to.equal(200);
    const tree = await (await AdminClient.as(app, { role: 'admin' })).get('/admin/pages');
    expect(tree.status).to.equal(200);
    expect(tree.text.match(/<span class="badge">Exemple<\/span>/g), 'the root sample pages marked on the tree').to.have.length(2);
    const guides = await request(app).get('/guides');
    expect(guides.status).to.equal(200);
    expect(guides.text).to.include('Les trois guides');
    expect(guides.text).to.include('href="/guides/la-cuisson"');
  });

  it('is removed from the dashboard in one action, leaving what the person made', async () => {
    await firstRun({ sample_site: 'on' });
    const client = await AdminClient.as(app, { role: 'admin' });
    const own = await makePage(ctx, { title: 'À propos', slug: 'a-propos' });
    const picture = /<img src="(\/uploads\/media\/[^"]+)"/.exec((await request(app).get('/')).text)![1];
    const dashboard = await client.get('/admin');
    expect(dashboard.status).to.equal(200);
    expect(dashboard.text).to.include('Le site contient encore 5 pages d’exemple, son image et son menu.');
    const confirm = await client.get('/admin/sample-content/delete');
    expect(confirm.status).to.equal(200);
    expect(confirm.text).to.include('Supprimer le contenu d’exemple');
    const refused = await client.post('/admin/sample-content/delete', {}, '/admin/sample-content/delete');
    expect(refused.status, 'without the confirmation').to.equal(400);
    expect(await pageCount()).to.equal(6);
    const removed = await client.post('/admin/sample-content/delete', { confirm: 'yes' }, '/admin/sample-content/delete');
    expect(removed.status).to.equal(303);
    expect(removed.headers.location).to.equal('/admin');
    expect(await ctx.db('app_pages').pluck('id')).to.deep.equal([own.id]);
    expect(await ctx.db('app_pages_media').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(await ctx.db('app_page_menus').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(await ctx.db('app_pages_sample_content').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect(await ctx.db('app_page_redirects').count({ n: '*' }), 'no «gone» address left').to.deep.equal([{ n: 0 }]);
    expect((await request(app).get(picture)).status).to.equal(404);
    expect((await request(app).get('/guides')).status).to.equal(404);
    const after = await client.follow(removed);
    expect(after.text).to.include('Le contenu d’exemple est supprimé');
    expect(after.text).to.not.include('Supprimer le contenu d’exemple');
  });

  it('keeps a menu edited since and a picture a person’s page shows; the API answers 204, twice', async () => {
    await firstRun({ sample_site: 'on' });
    const mediaId = (await ctx.db('app_pages_media').first('id'))!.id;
    const own = await makePage(ctx, { title: 'À propos', slug: 'a-propos', blocks: [{ type: 'image', media_id: mediaId }] });
    await saveMenu(ctx, 'header', [{ label: 'À propos', page_id: own.id, url: null, children: [] }]);
    const editor = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage']);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await request(app).delete('/app/api/admin/sample-content').set('Cookie', editor.cookie).set('Origin', 'http://site.test');
      expect(res.status).to.equal(204);
    }
    expect(await ctx.db('app_pages').pluck('id')).to.deep.equal([own.id]);
    expect(await ctx.db('app_pages_media').pluck('id')).to.deep.equal([mediaId]);
    expect((await ctx.db('app_page_menus').where({ name: 'header' }).first())?.items).to.deep.equal([
      { label: 'À propos', page_id: own.id, url: null, children: [] },
    ]);
    expect(await ctx.db('app_pages_sample_content').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
  });

  it('refuses the removal without pages.manage (403), removing nothing', async () => {
    await firstRun({ sample_site: 'on' });
    const reader = await userWith(ctx, ['admin.access', 'pages.view']);
    const res = await request(app).delete('/app/api/admin/sample-content').set('Cookie', reader.cookie).set('Origin', 'http://site.test');
    expect(res.status).to.equal(403);
    expect(await pageCount()).to.equal(5);
    expect(await ctx.db('app_pages_sample_content').count({ n: '*' })).to.deep.equal([{ n: 7 }]);
  });
});
