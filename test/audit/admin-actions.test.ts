// Audited actions of administrators: accounts, roles, pages and media. Each writes
// exactly one event with the actor's name snapshot, its address and the target, in the
// transaction of its change, which takes the event with it when it fails.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { PNG_1X1, caller, makeRole, makeUser, type LoggedIn } from '../support/fixtures.js';
import { countStatements } from '../support/statements.js';
import { auditMark, eventsSince, failInserts, onlyEventSince } from './helpers.js';

describe('audited actions of administrators', () => {
  let app: App;
  let ctx: AppContext;
  let admin: Awaited<ReturnType<typeof caller>>;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    admin = await caller(ctx, { role: 'admin', name: 'Admin Ada' });
  });

  const api = (as: LoggedIn = admin) => ({
    get: (path: string) => request(app).get(`/app/api${path}`).set('Cookie', as.cookie),
    post: (path: string, body?: object) => request(app).post(`/app/api${path}`).set('Cookie', as.cookie).send(body),
    put: (path: string, body: object) => request(app).put(`/app/api${path}`).set('Cookie', as.cookie).send(body),
    delete: (path: string) => request(app).delete(`/app/api${path}`).set('Cookie', as.cookie),
  });

  /** Runs `act`, checks its status, and returns the one event it wrote. */
  async function oneEvent(act: () => Promise<request.Response>, status: number) {
    const mark = await auditMark(ctx);
    const response = await act();
    expect(response.status, response.text).to.equal(status);
    const event = await onlyEventSince(ctx, mark);
    expect(event).to.deep.include({ actor_id: admin.id, actor_name: 'Admin Ada' });
    expect(event.ip).to.match(/127\.0\.0\.1$/);
    return { event, body: response.body };
  }

  describe('accounts', () => {
    it('records user.created (with a password) and user.invited (without), with the role given, never the password', async () => {
      const created = await oneEvent(() => api().post('/users', { email: 'bea@example.com', name: 'Béa', password: 'a long enough password' }), 201);
      expect(created.event).to.deep.include({
        action: 'user.created',
        target_type: 'user',
        target_id: String(created.body.id),
        target_label: 'Béa',
        details: { role: 'user' },
      });
      expect(JSON.stringify(created.event)).not.to.match(/long enough|bea@example/);
      const invited = await oneEvent(() => api().post('/users', { email: 'cid@example.com', name: 'Cid' }), 201);
      expect(invited.event).to.deep.include({ action: 'user.invited', target_id: String(invited.body.id), target_label: 'Cid' });
    });

    it('records user.updated with each field before and after, in one event for several fields', async () => {
      const target = await makeUser(ctx, { name: 'Dan', verified: false });
      const { event } = await oneEvent(() => api().put(`/users/${target.id}`, { name: 'Daniel', email_verified: true, role: 'admin' }), 200);
      expect(event).to.deep.include({ action: 'user.updated', target_id: String(target.id), target_label: 'Dan' });
      expect(event.details).to.deep.equal({
        changes: { name: { from: 'Dan', to: 'Daniel' }, email_verified: { from: false, to: true }, role: { from: 'user', to: 'admin' } },
      });
    });

    it('costs exactly one more statement for a user update: the INSERT of its event, inside its transaction', async () => {
      const target = await makeUser(ctx, { name: 'Eve' });
      const counted = await countStatements(ctx, () => api().put(`/users/${target.id}`, { name: 'Ève' }));
      expect(counted.result.status).to.equal(200);
      const audit = counted.sql.map((sql, index) => ({ sql, index })).filter(({ sql }) => /app_audit_events/.test(sql));
      expect(audit.map(({ sql }) => sql)).to.have.length(1);
      expect(audit[0].sql).to.match(/^INSERT INTO app_audit_events/);
      // Between BEGIN and COMMIT, after the UPDATE it records.
      const begin = counted.sql.findIndex((sql) => /^BEGIN/i.test(sql));
      const commit = counted.sql.findIndex((sql) => /^COMMIT/i.test(sql));
      const update = counted.sql.findIndex((sql) => /^update "app_auth_users"/i.test(sql));
      expect(begin).to.be.below(update);
      expect(update).to.be.below(audit[0].index);
      expect(audit[0].index).to.be.below(commit);
      // Session read, user read, the write's rate-limit count; BEGIN, target locked and
      // read, UPDATE, the event, the user read back, COMMIT: nine before the audit log.
      expect(counted.count, counted.sql.join('\n')).to.equal(10);
    });

    it('records user.role_added and user.role_removed with the role’s name, and nothing when the role was already held', async () => {
      const target = await makeUser(ctx);
      const roleId = await makeRole(ctx, ['users.view'], 'lecteurs');
      const added = await oneEvent(() => api().post(`/users/${target.id}/roles`, { role_id: roleId }), 201);
      expect(added.event).to.deep.include({ action: 'user.role_added', target_id: String(target.id), details: { role: 'lecteurs' } });
      const mark = await auditMark(ctx);
      expect((await api().post(`/users/${target.id}/roles`, { role_id: roleId })).status).to.equal(200);
      expect(await eventsSince(ctx, mark)).to.have.length(0);
      const removed = await oneEvent(() => api().delete(`/users/${target.id}/roles/${roleId}`), 204);
      expect(removed.event).to.deep.include({ action: 'user.role_removed', details: { role: 'lecteurs', primary: false } });
    });

    it('records user.password_set, user.password_reset_sent and user.email_change_requested without secrets or the typed address', async () => {
      const target = await makeUser(ctx, { name: 'Fay' });
      const set = await oneEvent(() => api().put(`/users/${target.id}/password`, { password: 'chosen by the admin' }), 204);
      expect(set.event).to.deep.include({ action: 'user.password_set', target_id: String(target.id) });
      expect(JSON.stringify(set.event)).not.to.include('chosen by');
      const reset = await oneEvent(() => api().post(`/users/${target.id}/send-password-reset`), 204);
      expect(reset.event).to.deep.include({ action: 'user.password_reset_sent', target_id: String(target.id) });
      const moved = await oneEvent(() => api().put(`/users/${target.id}/email`, { email: 'fay-new@example.com' }), 202);
      expect(moved.event).to.deep.include({ action: 'user.email_change_requested', target_id: String(target.id) });
      expect(JSON.stringify(moved.event)).not.to.include('fay-new');
    });

    it('writes no event when the invitation cannot be created: the failure after the event takes both back', async () => {
      // The setup link is written after the event: refusing it fails the transaction.
      const restore = await failInserts(ctx, 'app_auth_verifications', `NEW.kind = 'account_setup'`);
      const mark = await auditMark(ctx);
      try {
        expect((await api().post('/users', { email: 'gus@example.com', name: 'Gus' })).status).to.equal(500);
      } finally {
        await restore();
      }
      expect(await ctx.db('app_auth_users').where({ email: 'gus@example.com' })).to.have.length(0);
      expect(await eventsSince(ctx, mark)).to.have.length(0);
    });

    it('writes no event for a refused change (409), and no change when the event cannot be written', async () => {
      const target = await makeUser(ctx, { name: 'Hal' });
      const mark = await auditMark(ctx);
      expect((await api().post('/users', { email: target.email, name: 'Copie' })).status).to.equal(409);
      expect(await eventsSince(ctx, mark)).to.have.length(0);
      const restore = await failInserts(ctx, 'app_audit_events', `NEW.action = 'user.updated'`);
      try {
        expect((await api().put(`/users/${target.id}`, { name: 'Harold' })).status).to.equal(500);
      } finally {
        await restore();
      }
      expect((await ctx.db('app_auth_users').where({ id: target.id }).first())?.name).to.equal('Hal');
    });
  });

  describe('roles', () => {
    it('records role.created, role.updated (what changed) and role.deleted', async () => {
      const created = await oneEvent(() => api().post('/roles', { name: 'rédaction', permissions: ['pages.view', 'pages.manage'] }), 201);
      const id = created.body.id as number;
      expect(created.event).to.deep.include({
        action: 'role.created',
        target_type: 'role',
        target_id: String(id),
        target_label: 'rédaction',
        details: { permissions: ['pages.manage', 'pages.view'] },
      });
      const updated = await oneEvent(() => api().put(`/roles/${id}`, { name: 'édition', permissions: ['pages.view', 'users.view'] }), 200);
      expect(updated.event).to.deep.include({ action: 'role.updated', target_label: 'édition' });
      expect(updated.event.details).to.deep.equal({
        changes: { name: { from: 'rédaction', to: 'édition' }, permissions: { added: ['users.view'], removed: ['pages.manage'] } },
      });
      await makeUser(ctx, { role: 'édition' });
      const deleted = await oneEvent(() => api().delete(`/roles/${id}`), 204);
      expect(deleted.event).to.deep.include({ action: 'role.deleted', target_id: String(id), target_label: 'édition', details: { primary_role_of: 1 } });
    });
  });

  describe('pages and media', () => {
    it('records page.created, page.updated, page.unpublished, page.published, page.moved and page.deleted', async () => {
      const parent = (await api().post('/admin/pages', { title: 'Rubrique' })).body;
      const created = await oneEvent(() => api().post('/admin/pages', { title: 'Article' }), 201);
      const id = created.body.id as number;
      expect(created.event).to.deep.include({
        action: 'page.created',
        target_type: 'page',
        target_id: String(id),
        target_label: 'Article',
        details: { parent_id: null, visibility: 'public' },
      });
      const updated = await oneEvent(() => api().put(`/admin/pages/${id}`, { title: 'Article revu', seo: { description: 'Résumé' } }), 200);
      expect(updated.event).to.deep.include({ action: 'page.updated', target_label: 'Article revu', details: { fields: ['title', 'seo'] } });
      const hidden = await oneEvent(() => api().put(`/admin/pages/${id}`, { visibility: 'private' }), 200);
      expect(hidden.event).to.deep.include({ action: 'page.unpublished', details: { fields: ['visibility'], visibility: 'private' } });
      const shown = await oneEvent(() => api().put(`/admin/pages/${id}`, { visibility: 'public' }), 200);
      expect(shown.event).to.deep.include({ action: 'page.published', details: { fields: ['visibility'], visibility: 'public' } });
      const moved = await oneEvent(() => api().put(`/admin/pages/${id}`, { parent_id: parent.id }), 200);
      expect(moved.event).to.deep.include({ action: 'page.moved', details: { fields: ['parent_id'], from_parent_id: null, to_parent_id: parent.id } });
      const deleted = await oneEvent(() => api().delete(`/admin/pages/${parent.id}?cascade=true`), 204);
      expect(deleted.event).to.deep.include({
        action: 'page.deleted',
        target_id: String(parent.id),
        target_label: 'Rubrique',
        details: { cascade: true, pages_removed: 2 },
      });
    });

    it('creates no page when its event cannot be written', async () => {
      const restore = await failInserts(ctx, 'app_audit_events', `NEW.action = 'page.created'`);
      try {
        expect((await api().post('/admin/pages', { title: 'Fantôme' })).status).to.equal(500);
      } finally {
        await restore();
      }
      expect(await ctx.db('app_pages').where({ title: 'Fantôme' })).to.have.length(0);
    });

    it('records media.added with its name and type, and media.removed', async () => {
      const mark = await auditMark(ctx);
      const uploaded = await request(app).post('/app/api/admin/media').set('Cookie', admin.cookie).field('alt', 'Point').attach('file', PNG_1X1, 'point.png');
      expect(uploaded.status).to.equal(201);
      const added = await onlyEventSince(ctx, mark);
      expect(added).to.deep.include({
        action: 'media.added',
        actor_id: admin.id,
        target_type: 'media',
        target_id: String(uploaded.body.id),
        target_label: 'point.png',
      });
      expect(added.details).to.include({ mime_type: 'image/png' });
      const removed = await oneEvent(() => api().delete(`/admin/media/${uploaded.body.id}`), 204);
      expect(removed.event).to.deep.include({ action: 'media.removed', target_id: String(uploaded.body.id), target_label: 'point.png' });
    });
  });
});
