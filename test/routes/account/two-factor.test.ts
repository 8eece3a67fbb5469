// «Vérification en deux étapes» on the profile (/account/2fa, also /admin/profile/2fa):
// the QR code and the secret as text, the first code, the recovery codes shown once,
// new codes and turning it off; the role screen's setting and the administrator's button.
import { expect } from 'chai';
import type { AppContext } from '../../../lib/context.js';
import { AdminClient, textOf } from '../../support/admin-client.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { PASSWORD } from '../../support/fixtures.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { enrolTwoFactor, totpNow } from '../../support/two-factor.js';

describe('/account/2fa', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;

  useAppWithSmtp({}, (createdApp, startedSmtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
    smtp = startedSmtp;
  });

  let now = 0;
  beforeEach(() => {
    now = Math.floor(Date.now() / 30_000) * 30_000 + 1_000;
    ctx.clock.set(() => now);
  });

  it('enrols from the page: password, then the QR code and the secret as text, then the first code and the ten codes once', async () => {
    const client = await AdminClient.as(app, { email: 'ada@example.com' });
    const profile = await client.get('/account');
    expect(profile.text).to.include('href="/account/2fa"');
    const start = await client.get('/account/2fa');
    expect(start.status).to.equal(200);
    expect(start.text).to.include('<title>Vérification en deux étapes — Site de test</title>');
    expect(start.text).to.include('action="/account/2fa/setup"');

    const wrong = await client.post('/account/2fa/setup', { current_password: 'not it at all' }, '/account/2fa');
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.include('id="setup-password-error"');

    const setup = await client.post('/account/2fa/setup', { current_password: PASSWORD }, '/account/2fa');
    expect(setup.status).to.equal(303);
    expect(setup.headers.location).to.equal('/account/2fa');
    const page = await client.follow(setup);
    expect(page.headers['cache-control']).to.include('no-store');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(page.text)?.[1];
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(page.text).to.match(/<figure class="qr-code"[^>]*><svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(textOf(page.text)).to.include('La clé est prête');

    const badCode = await client.post('/account/2fa/enable', { code: '000000' }, '/account/2fa');
    expect(badCode.status).to.equal(400);
    expect(badCode.text).to.include('id="enable-code-error"').and.include(`data-secret="${secret}"`);

    const enabled = await client.post('/account/2fa/enable', { code: totpNow(ctx, secret!) }, '/account/2fa');
    expect(enabled.status).to.equal(200);
    const codes = [...enabled.text.matchAll(/<li><code>([A-Z0-9-]{19})<\/code><\/li>/g)].map((match) => match[1]);
    expect(codes).to.have.length(10);
    expect(textOf(enabled.text)).to.include('Ces codes de secours ne seront plus affichés');
    // Shown once: the page afterwards says how many are left, never which.
    const after = await client.get('/account/2fa');
    expect(textOf(after.text)).to.include('Codes de secours restants : 10');
    for (const code of codes) expect(after.text).not.to.include(code);
    expect(after.text).not.to.include(secret!);
    expect(await ctx.db('app_auth_two_factor').where({ user_id: client.user.id }).whereNotNull('enabled_at')).to.have.length(1);
  });

  it('renews the codes and turns it off from the page, each with the password and a code', async () => {
    const client = await AdminClient.as(app, { email: 'bob@example.com' });
    const { secret, recoveryCodes } = await enrolTwoFactor(ctx, client.user);
    const wrong = await client.post('/account/2fa/recovery-codes', { current_password: PASSWORD, code: '111111' }, '/account/2fa');
    expect(wrong.status).to.equal(400);
    expect(wrong.text).to.include('id="codes-code-error"');
    const renewed = await client.post('/account/2fa/recovery-codes', { current_password: PASSWORD, code: recoveryCodes[0] }, '/account/2fa');
    expect(renewed.status).to.equal(200);
    expect([...renewed.text.matchAll(/<li><code>/g)]).to.have.length(10);
    expect((await smtp.waitForMessage('bob@example.com')).subject).to.equal('Code de secours utilisé — Site de test');

    const off = await client.post('/account/2fa/disable', { current_password: PASSWORD, code: totpNow(ctx, secret) }, '/account/2fa');
    expect(off.status).to.equal(303);
    expect(textOf((await client.follow(off)).text)).to.include('La vérification en deux étapes est désactivée.');
    expect(await ctx.db('app_auth_two_factor').where({ user_id: client.user.id })).to.have.length(0);
  });

  it('works the same under /admin/profile/2fa', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const page = await client.get('/admin/profile/2fa');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('action="/admin/profile/2fa/setup"');
    const setup = await client.post('/admin/profile/2fa/setup', { current_password: PASSWORD }, '/admin/profile/2fa');
    expect(setup.headers.location).to.equal('/admin/profile/2fa');
  });

  it('lets a role require it from the role screen', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    const saved = await client.post('/admin/roles', { label: 'Équipe', name: 'equipe', description: '', require_2fa: '1' }, '/admin/roles/new');
    expect(saved.status).to.equal(303);
    const role = await ctx.db('app_auth_roles').where({ name: 'equipe' }).first();
    expect(role?.require_2fa).to.equal(true);
    const form = await client.get(`/admin/roles/${role!.id}`);
    expect(form.text).to.include('name="require_2fa" value="1" checked');
    // An unchecked box is a false.
    const cleared = await client.post(`/admin/roles/${role!.id}`, { name: 'equipe', description: '' }, `/admin/roles/${role!.id}`);
    expect(cleared.status).to.equal(303);
    expect((await ctx.db('app_auth_roles').where({ id: role!.id }).first())?.require_2fa).to.equal(false);
    const adminRole = await ctx.db('app_auth_roles').where({ name: 'admin' }).first();
    // The manager holds admin without two-step verification: it confirms, and is sent to enrol.
    const adminSaved = await client.post(`/admin/roles/${adminRole!.id}`, { require_2fa: '1', confirm: '1', permissions: [] }, `/admin/roles/${adminRole!.id}`);
    expect(adminSaved.status).to.equal(303);
    expect(adminSaved.headers.location).to.equal('/account/2fa');
    const adminAfter = await ctx.db('app_auth_roles').where({ name: 'admin' }).first();
    expect(adminAfter).to.include({ require_2fa: true, name: 'admin' });
    expect(await ctx.db('app_auth_role_permissions').where({ role_id: adminRole!.id })).to.have.length.above(3);
  });

  it('gives an administrator a button on the user page that turns it off and tells the user', async () => {
    const manager = await AdminClient.as(app, { role: 'admin' });
    const target = await AdminClient.as(app, { email: 'lost@example.com', name: 'Perdu' });
    await enrolTwoFactor(ctx, target.user);
    const detail = await manager.get(`/admin/users/${target.user.id}`);
    expect(textOf(detail.text)).to.include('Vérification en deux étapes Activée');
    expect(detail.text).to.include(`action="/admin/users/${target.user.id}/2fa/delete"`);
    const done = await manager.post(`/admin/users/${target.user.id}/2fa/delete`, {}, `/admin/users/${target.user.id}`);
    expect(done.status).to.equal(303);
    expect(textOf((await manager.follow(done)).text)).to.include('La vérification en deux étapes de lost@example.com est désactivée');
    expect(await ctx.db('app_auth_two_factor').where({ user_id: target.user.id })).to.have.length(0);
    expect((await smtp.waitForMessage('lost@example.com')).subject).to.equal('Vérification en deux étapes désactivée — Site de test');
    // Nothing left to turn off: the refusal shows on the page.
    const again = await manager.post(`/admin/users/${target.user.id}/2fa/delete`, {}, `/admin/users/${target.user.id}`);
    expect(again.status).to.equal(409);
  });
});
