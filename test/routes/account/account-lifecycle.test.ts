// The profile page (/account, /admin/profile): sessions named by device with their
// last activity in French and the raw user agent in a <details>; «Exporter mes
// données» (a download); «Supprimer mon compte» behind a confirmation page asking for
// the current password.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { AdminClient, textOf } from '../../support/admin-client.js';
import { PASSWORD, logIn, makeUser } from '../../support/fixtures.js';
import { useFakeClock } from '../../support/form-client.js';

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

describe('/account: sessions, export and deletion', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, _smtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
  });

  beforeEach(() => {
    // 1 July 2026, 08:30 UTC: 10:30 in Paris (summer time).
    clock.current = Date.UTC(2026, 6, 1, 8, 30);
    clock.install(app);
  });

  it('names each session’s device, shows its last activity as a relative time with the French date (Paris time) in its title, and keeps the raw user agent in a <details>', async () => {
    const client = await AdminClient.as(app, { name: 'Zoé' });
    await logIn(ctx, client.user, { userAgent: FIREFOX_WINDOWS });
    const page = await client.get('/account');
    expect(page.status).to.equal(200);
    const text = textOf(page.text);
    expect(text).to.include('Firefox sur Windows').and.include('à l’instant');
    expect(text).to.include('Appareil inconnu cette session');
    expect(page.text).to.match(
      /<details class="user-agent"><summary[^>]*>Navigateur transmis<\/summary><code[^>]*>Mozilla\/5\.0 \(Windows NT 10\.0; Win64; x64; rv:128\.0\)/,
    );
    expect(page.text).to.include('<time datetime="2026-07-01T08:30:00.000Z" title="1er\u00a0juillet 2026 à 10\u00a0h\u00a030">à l’instant</time>');
    expect(page.text).to.include('aria-label="Déconnecter la session Firefox sur Windows"');
  });

  it('links «Exporter mes données» to the JSON download and «Supprimer mon compte» to its confirmation page, on both prefixes', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    for (const base of ['/account', '/admin/profile']) {
      const page = await client.get(base);
      expect(page.text).to.include('href="/app/api/users/profile/export" download>Exporter mes données</a>');
      expect(page.text).to.include(`href="${base}/delete"`);
      const download = await request(app).get('/app/api/users/profile/export').set('Cookie', client.user.cookie);
      expect(download.headers['content-disposition']).to.match(/^attachment; filename="mes-donnees-\d+\.json"$/);
    }
  });

  it('deletes the account after its current password: a wrong one is refused on the page, the right one lands on the login page', async () => {
    await makeUser(ctx, { role: 'admin' });
    const client = await AdminClient.as(app, { name: 'Zoé', email: 'zoe@example.com' });
    const confirm = await client.get('/account/delete');
    expect(confirm.status).to.equal(200);
    expect(textOf(confirm.text)).to.include('Supprimer mon compte ?').and.include('zoe@example.com').and.include('Mot de passe actuel');

    const wrong = await client.post('/account/delete', { current_password: 'not the password' }, '/account/delete');
    expect(wrong.status).to.equal(400);
    expect(textOf(wrong.text)).to.include('Le mot de passe actuel est incorrect.').and.include('Supprimer mon compte ?');
    expect(wrong.text).not.to.include('not the password');
    expect(await ctx.db('app_auth_users').where({ id: client.user.id })).to.have.length(1);

    const done = await client.post('/account/delete', { current_password: PASSWORD }, '/account/delete');
    expect(done.status).to.equal(303);
    expect(done.headers.location).to.equal('/auth/login?done=deleted');
    expect(textOf((await request(app).get(done.headers.location)).text)).to.include('Le compte est supprimé.');
    expect(await ctx.db('app_auth_users').where({ id: client.user.id })).to.have.length(0);
    expect(await ctx.db('app_auth_sessions').where({ user_id: client.user.id })).to.have.length(0);
    const events = await ctx.db('app_audit_events').where({ action: 'account.deleted_by_self' });
    expect(events).to.have.length(1);
    expect(events[0]).to.include({ actor_id: client.user.id, actor_name: 'Zoé' });
    expect((await request(app).get('/account').set('Cookie', client.user.cookie)).status).to.equal(303);
  });

  it('refuses the last active administrator on the page (409) and keeps the account', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const refused = await client.post('/admin/profile/delete', { current_password: PASSWORD }, '/admin/profile/delete');
    expect(refused.status).to.equal(409);
    expect(textOf(refused.text)).to.include('Ce compte est le dernier administrateur actif');
    expect(await ctx.db('app_auth_users').where({ id: client.user.id })).to.have.length(1);
    expect((await client.get('/admin/profile')).status).to.equal(200);
  });
});
