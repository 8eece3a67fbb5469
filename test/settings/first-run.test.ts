// The first-run form also asks the site's title: pre-filled with APP_NAME, kept as the
// site's title when changed (the settings row, the public header), and left to APP_NAME
// when emptied.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { FakeClock, FormClient, strongPassword } from '../support/form-client.js';
import { makePage } from '../pages/helpers.js';

describe('the first-run form and the site’s title', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    ctx.memo.accountExists = false;
  });

  it('asks the title, pre-filled with APP_NAME, and keeps the one typed as the site’s title', async () => {
    const form = await request(app).get('/auth');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('<label for="f-siteTitle">Titre du site</label>');
    expect(form.text).to.match(/id="f-siteTitle" name="siteTitle" type="text" value="Site de test"/);
    const client = new FormClient(app, new FakeClock());
    const created = await client.submit('/auth', { siteTitle: 'Les Jardins partagés', name: 'Ada', email: 'ada@exemple.fr', password: strongPassword });
    expect(created.status).to.equal(303);
    expect(await ctx.db('app_site_settings').first()).to.include({ title: 'Les Jardins partagés' });
    expect(await ctx.db('app_auth_users').pluck('email')).to.deep.equal(['ada@exemple.fr']);
    await makePage(ctx, { title: 'Bienvenue', slug: 'bienvenue' });
    expect((await request(app).get('/bienvenue')).text).to.include('<title>Bienvenue — Les Jardins partagés</title>');
  });

  it('leaves APP_NAME when the title is emptied, and refuses one over 120 characters with the account not created', async () => {
    const client = new FormClient(app, new FakeClock());
    const long = await client.submit('/auth', { siteTitle: 'x'.repeat(121), name: 'Ada', email: 'ada@exemple.fr', password: strongPassword });
    expect(long.status).to.equal(400);
    expect(long.text).to.include('id="f-siteTitle-error"');
    expect(await ctx.db('app_auth_users').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    const created = await client.submit('/auth', { siteTitle: '', name: 'Ada', email: 'ada@exemple.fr', password: strongPassword });
    expect(created.status).to.equal(303);
    expect(await ctx.db('app_site_settings').first()).to.equal(undefined);
  });
});
