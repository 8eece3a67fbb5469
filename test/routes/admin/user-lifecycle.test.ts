// /admin/users/:id: «Suspendre», «Rétablir» and «Supprimer», each confirmed without
// JavaScript; the pending invitation and the suspension shown in the list and the
// detail (French dates, Paris time); a page whose author was deleted.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { issueToken } from '../../../models/auth/verifications.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { AdminClient, textOf } from '../../support/admin-client.js';
import { caller, logIn, makeUser } from '../../support/fixtures.js';
import { useFakeClock } from '../../support/form-client.js';

describe('/admin/users lifecycle screens', () => {
  let app: App;
  let ctx: AppContext;
  const clock = useFakeClock();

  useAppWithSmtp({}, (createdApp, _smtp, createdCtx) => {
    app = createdApp;
    ctx = createdCtx;
  });

  beforeEach(() => {
    // 15 January 2026, 13:05 UTC: 14:05 in Paris.
    clock.current = Date.UTC(2026, 0, 15, 13, 5);
    clock.install(app);
  });

  const admin = () => AdminClient.as(app, { role: 'admin', name: 'Ada Admin' });

  it('shows «Invitation en attente» with its expiry, an expired one, «Suspendu» and «Actif» in the list and on the detail page', async () => {
    const client = await admin();
    const invited = await makeUser(ctx, { name: 'Ines Invitée', password: null, verified: false });
    await issueToken(ctx, 'account_setup', invited);
    const late = await makeUser(ctx, { name: 'Lou Retard', password: null, verified: false });
    await issueToken(ctx, 'account_setup', late);
    await ctx
      .db('app_auth_verifications')
      .where({ user_id: late.id })
      .update({ expires_at: new Date(clock.current - 1000) });
    const away = await makeUser(ctx, { name: 'Sam Suspendu' });
    await ctx
      .db('app_auth_users')
      .where({ id: away.id })
      .update({ suspended_at: new Date(clock.current), suspended_reason: 'Départ' });

    const list = textOf((await client.get('/admin/users')).text);
    // Each row: name, address, roles, state (one of three words, its date in small print), last sign-in.
    expect(list).to.match(/Ines Invitée \S+ Utilisateur Invitation en attente lien valable jusqu’au 17 janvier 2026 à 14 h 05 Jamais/);
    expect(list).to.match(/Lou Retard \S+ Utilisateur Invitation en attente lien expiré le 15 janvier 2026 à 14 h 04 Jamais/);
    expect(list).to.match(/Sam Suspendu \S+ Utilisateur Suspendu depuis le 15 janvier 2026 à 14 h 05 Aucune/);

    expect(textOf((await client.get(`/admin/users/${invited.id}`)).text)).to.include(
      'État Invitation en attente lien valable jusqu’au 17 janvier 2026 à 14 h 05',
    );
    const suspended = textOf((await client.get(`/admin/users/${away.id}`)).text);
    expect(suspended).to.include('État Suspendu depuis le 15 janvier 2026 à 14 h 05').and.include('Motif de la suspension Départ').and.include('Rétablir');
    expect(suspended).not.to.include('Suspendre…');
    expect(textOf((await client.get(`/admin/users/${client.user.id}`)).text)).to.include('État Actif');
  });

  it('suspends from a confirmation page with a reason, closing the account’s sessions, then restores it', async () => {
    const client = await admin();
    const target = await makeUser(ctx, { name: 'Bruno' });
    const open = await logIn(ctx, target);
    const detail = await client.get(`/admin/users/${target.id}`);
    expect(detail.text).to.include(`href="/admin/users/${target.id}/suspend"`).and.include(`href="/admin/users/${target.id}/delete"`);

    const confirm = await client.get(`/admin/users/${target.id}/suspend`);
    expect(confirm.status).to.equal(200);
    expect(textOf(confirm.text)).to.include('Suspendre le compte de Bruno ?').and.include('Motif (facultatif)');
    const suspended = await client.post(`/admin/users/${target.id}/suspend`, { reason: 'Messages indésirables' }, `/admin/users/${target.id}/suspend`);
    expect(suspended.status).to.equal(303);
    expect(suspended.headers.location).to.equal(`/admin/users/${target.id}`);
    const page = textOf((await client.follow(suspended)).text);
    expect(page).to.include('Le compte de Bruno est suspendu ; ses sessions sont fermées.').and.include('Motif de la suspension Messages indésirables');
    expect(await ctx.db('app_auth_users').where({ id: target.id }).first()).to.include({ suspended_reason: 'Messages indésirables' });
    expect(await ctx.db('app_auth_sessions').where({ user_id: target.id })).to.have.length(0);
    expect((await request(app).get('/account').set('Cookie', open.cookie)).status).to.equal(303);
    expect(await ctx.db('app_audit_events').where({ action: 'user.suspended' })).to.have.length(1);

    const restored = await client.post(`/admin/users/${target.id}/restore`, {}, `/admin/users/${target.id}`);
    expect(restored.status).to.equal(303);
    expect(textOf((await client.follow(restored)).text)).to.include('Le compte de Bruno est rétabli ; la connexion est de nouveau possible.');
    expect(await ctx.db('app_auth_users').where({ id: target.id }).first()).to.include({ suspended_at: null, suspended_reason: null });
  });

  it('shows a refusal on the page it came from: the last active administrator (409), one’s own account (403)', async () => {
    const client = await AdminClient.as(app, { permissions: await ctx.db('app_auth_permissions').pluck('key'), name: 'Tout Puissant' });
    const only = await makeUser(ctx, { role: 'admin', name: 'Seul Admin' });
    const refused = await client.post(`/admin/users/${only.id}/suspend`, { reason: '' }, `/admin/users/${only.id}/suspend`);
    expect(refused.status).to.equal(409);
    expect(textOf(refused.text)).to.include('Ce compte est le dernier administrateur actif').and.include('Suspendre le compte de Seul Admin ?');
    const deletion = await client.post(`/admin/users/${only.id}/delete`, {}, `/admin/users/${only.id}/delete`);
    expect(deletion.status).to.equal(409);
    expect(textOf(deletion.text)).to.include('Ce compte est le dernier administrateur actif');
    const self = await client.post(`/admin/users/${client.user.id}/suspend`, {}, `/admin/users/${client.user.id}/suspend`);
    expect(self.status).to.equal(403);
    expect(textOf(self.text)).to.include('Son propre compte ne peut être ni suspendu ni rétabli.');
    expect(await ctx.db('app_auth_users').whereNotNull('suspended_at')).to.have.length(0);
    // One's own detail page offers neither action.
    const own = await client.get(`/admin/users/${client.user.id}`);
    expect(own.text).not.to.include(`/admin/users/${client.user.id}/suspend`).and.not.include(`/admin/users/${client.user.id}/delete`);
  });

  it('deletes from a confirmation page; the list no longer has the account and its pages show «Compte supprimé»', async () => {
    const client = await admin();
    const writer = await caller(ctx, {
      name: 'Wanda Writer',
      email: 'wanda@example.com',
      permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'],
    });
    const created = await request(app).post('/app/api/admin/pages').set('Cookie', writer.cookie).send({ title: 'Chronique' });
    expect(created.status).to.equal(201);
    const before = textOf((await client.get(`/admin/pages/${created.body.id}`)).text);
    expect(before).to.include('Auteur : Wanda Writer · dernière modification : Wanda Writer, le 15 janvier 2026 à 14 h 05');

    const confirm = await client.get(`/admin/users/${writer.id}/delete`);
    expect(textOf(confirm.text)).to.include('Supprimer le compte de Wanda Writer ?').and.include('wanda@example.com').and.include('Compte supprimé');
    const deleted = await client.post(`/admin/users/${writer.id}/delete`, {}, `/admin/users/${writer.id}/delete`);
    expect(deleted.status).to.equal(303);
    expect(deleted.headers.location).to.equal('/admin/users');
    const list = await client.follow(deleted);
    expect(textOf(list.text)).to.include('Le compte de Wanda Writer est supprimé.');
    expect(list.text).not.to.include('wanda@example.com');
    expect(await ctx.db('app_auth_users').where({ id: writer.id })).to.have.length(0);

    const after = textOf((await client.get(`/admin/pages/${created.body.id}`)).text);
    expect(after).to.include('Auteur : Compte supprimé · dernière modification : Compte supprimé');
    expect(await ctx.db('app_pages').where({ id: created.body.id }).first()).to.include({ title: 'Chronique', author_id: null });
  });

  it('answers 404 for the confirmation pages of an unknown account', async () => {
    const client = await admin();
    expect((await client.get('/admin/users/999999/suspend')).status).to.equal(404);
    expect((await client.get('/admin/users/999999/delete')).status).to.equal(404);
  });
});
