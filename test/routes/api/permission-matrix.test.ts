// Every /app/api row the site's modules register (core and pages) × five callers → the
// expected status, derived from the row's own access rule. The table below holds one
// valid request per row, keyed "METHOD path": a row without an entry (or an entry
// without a row) fails this file, so a new route cannot be forgotten.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { issueToken } from '../../../models/auth/verifications.js';
import { saveDraft, schedulePublication } from '../../../models/pages/drafts.js';
import { submitForReview } from '../../../models/pages/reviews.js';
import { createRedirect } from '../../../models/pages/redirects.js';
import type { User } from '../../../models/auth/users.js';
import type { Access } from '../../../routes/define.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, PNG_1X1, caller, logIn, makeRole, makeUser, type LoggedIn } from '../../support/fixtures.js';
import { insertSsoProvider } from '../../../models/auth/sso-providers.js';
import { describeAccess, makeFixture, mounted, registeredRows, unique, type ApiSample, type Fixture } from '../../support/route-table.js';
import { fixtureModules } from '../../support/modules.js';
import { grantPath, holdPagesView } from '../../support/grants.js';

// A single sign-on provider of the fixture's database, made for the sample that needs it.
const providerId = async (f: Fixture) => (await insertSsoProvider(f.ctx, { label: `P ${unique()}`, issuer: 'https://idp.example.com', client_id: 'c' })).id;

type Sample = ApiSample;

/** The fixture's page with a pending draft (scheduled in an hour when asked); its id. */
async function pageWithDraft(f: Fixture, scheduled = false): Promise<number> {
  const { id } = await f.page();
  await saveDraft(f.ctx, id, { title: 'Brouillon' });
  if (scheduled) await schedulePublication(f.ctx, id, new Date(f.ctx.clock.nowMs() + 3_600_000));
  return id;
}

/** The fixture's page with its draft submitted for review; its id and the revision in review. */
async function pageInReview(f: Fixture): Promise<{ id: number; revision: number }> {
  const id = await pageWithDraft(f);
  const { review } = await submitForReview(f.ctx, id, {}, null);
  return { id, revision: review.revision };
}

// A well-formed registration answer that no options asked for.
const PASSKEY_ANSWER = {
  id: 'AAAA',
  rawId: 'AAAA',
  type: 'public-key',
  response: { clientDataJSON: 'AAAA', attestationObject: 'AAAA' },
  clientExtensionResults: {},
};

const SITE_SAMPLES: Record<string, Sample> = {
  // Profile (any logged-in user)
  'PUT /users/profile': { ok: 200, path: () => '/users/profile', body: () => ({ name: 'Moi' }) },
  'DELETE /users/profile': { ok: 204, path: () => '/users/profile', body: () => ({ current_password: PASSWORD }) },
  'GET /users/profile/export': { ok: 200, path: () => '/users/profile/export' },
  'POST /users/profile/email': {
    ok: 202,
    path: () => '/users/profile/email',
    body: () => ({ email: `me-${unique()}@example.com`, current_password: PASSWORD }),
  },
  'GET /users/email/confirm': {
    ok: 200,
    path: async (f) =>
      `/users/email/confirm?token=${(await issueToken(f.ctx, 'email_change', f.target, { newEmail: `confirmed-${unique()}@example.com` })).token}`,
  },
  'POST /users/email/confirm': {
    ok: 200,
    path: () => '/users/email/confirm',
    body: async (f) => ({ token: (await issueToken(f.ctx, 'email_change', f.target, { newEmail: `confirmed-${unique()}@example.com` })).token }),
  },
  'POST /users/profile/password': {
    ok: 204,
    path: () => '/users/profile/password',
    body: () => ({ current_password: PASSWORD, new_password: 'a new password' }),
  },
  'POST /users/profile/picture': { ok: 200, path: () => '/users/profile/picture' },
  'DELETE /users/profile/picture': { ok: 204, path: () => '/users/profile/picture' },
  'GET /users/profile/sessions': { ok: 200, path: () => '/users/profile/sessions' },
  'DELETE /users/profile/sessions': { ok: 200, path: () => '/users/profile/sessions?keep_current=true' },
  'DELETE /users/profile/sessions/:sessionId': {
    ok: 204,
    path: async (f) => `/users/profile/sessions/${f.caller ? (await logIn(f.ctx, f.caller)).publicId : 'a'.repeat(32)}`,
  },
  // Two-step verification of the caller (none set up: a 409 still shows that the guard let the caller through)
  'GET /users/profile/2fa': { ok: 200, path: () => '/users/profile/2fa' },
  'POST /users/profile/2fa/setup': { ok: 200, path: () => '/users/profile/2fa/setup', body: () => ({ current_password: PASSWORD }) },
  'POST /users/profile/2fa/enable': { ok: 409, path: () => '/users/profile/2fa/enable', body: () => ({ code: '123456' }) },
  'POST /users/profile/2fa/recovery-codes': {
    ok: 409,
    path: () => '/users/profile/2fa/recovery-codes',
    body: () => ({ current_password: PASSWORD, code: '123456' }),
  },
  'DELETE /users/profile/2fa': { ok: 409, path: () => '/users/profile/2fa', body: () => ({ current_password: PASSWORD, code: '123456' }) },
  // Passkeys of the caller (an answer without options: a 400 still shows that the guard let the caller through)
  'GET /users/profile/passkeys': { ok: 200, path: () => '/users/profile/passkeys' },
  'POST /users/profile/passkeys/options': { ok: 200, path: () => '/users/profile/passkeys/options', body: () => ({ current_password: PASSWORD }) },
  'POST /users/profile/passkeys': { ok: 400, path: () => '/users/profile/passkeys', body: () => ({ name: 'Clé', response: PASSKEY_ANSWER }) },
  'DELETE /users/profile/passkeys/:id': {
    ok: 204,
    path: async (f) => {
      const owner = f.caller ?? f.target;
      const [row] = await f.ctx
        .db('app_auth_passkeys')
        .insert({ user_id: owner.id, credential_id: `cred-${unique()}`, public_key: Buffer.from([1]), device_type: 'singleDevice', name: 'Clé' })
        .returning('id');
      return `/users/profile/passkeys/${row.id}`;
    },
    body: () => ({ current_password: PASSWORD }),
  },
  'PATCH /users/profile/passkeys/:id': {
    ok: 200,
    path: async (f) => {
      const owner = f.caller ?? f.target;
      const [row] = await f.ctx
        .db('app_auth_passkeys')
        .insert({ user_id: owner.id, credential_id: `cred-${unique()}`, public_key: Buffer.from([1]), device_type: 'singleDevice', name: 'Clé' })
        .returning('id');
      return `/users/profile/passkeys/${row.id}`;
    },
    body: () => ({ name: 'Portable' }),
  },
  // Users (users.view / users.manage)
  'GET /users': { ok: 200, path: () => '/users?limit=10' },
  'POST /users': { ok: 201, path: () => '/users', body: () => ({ email: `new-${unique()}@example.com`, name: 'Nouveau', password: PASSWORD }) },
  'GET /users/:id': { ok: 200, path: (f) => `/users/${f.target.id}` },
  'PUT /users/:id': { ok: 200, path: (f) => `/users/${f.target.id}`, body: () => ({ name: 'Renommé' }) },
  'PUT /users/:id/email': { ok: 202, path: (f) => `/users/${f.target.id}/email`, body: () => ({ email: `moved-${unique()}@example.com` }) },
  'PUT /users/:id/password': { ok: 204, path: (f) => `/users/${f.target.id}/password`, body: () => ({ password: 'another password' }) },
  'POST /users/:id/send-password-reset': { ok: 204, path: (f) => `/users/${f.target.id}/send-password-reset` },
  // The target has a password: a 409 still shows that the guard let the caller through.
  'POST /users/:id/resend-invitation': { ok: 409, path: (f) => `/users/${f.target.id}/resend-invitation` },
  'POST /users/:id/invitation': { ok: 409, path: (f) => `/users/${f.target.id}/invitation` },
  'DELETE /users/:id': { ok: 204, path: (f) => `/users/${f.target.id}` },
  // The target has no two-step verification: a 409 still shows that the guard let the caller through.
  'DELETE /users/:id/2fa': { ok: 409, path: (f) => `/users/${f.target.id}/2fa` },
  'POST /users/:id/suspend': { ok: 200, path: (f) => `/users/${f.target.id}/suspend`, body: () => ({ reason: 'Vérification' }) },
  // The target is not suspended: a 409 still shows that the guard let the caller through.
  'DELETE /users/:id/suspend': { ok: 409, path: (f) => `/users/${f.target.id}/suspend` },
  'GET /users/:id/roles': { ok: 200, path: (f) => `/users/${f.target.id}/roles` },
  'POST /users/:id/roles': { ok: 201, path: (f) => `/users/${f.target.id}/roles`, body: (f) => ({ role_id: f.spareRoleId }) },
  'DELETE /users/:id/roles/:roleId': { ok: 204, path: (f) => `/users/${f.target.id}/roles/${f.heldRoleId}` },
  // Roles and permissions (roles.view / roles.manage)
  'GET /roles': { ok: 200, path: () => '/roles' },
  'POST /roles': { ok: 201, path: () => '/roles', body: () => ({ name: `role-${unique()}`, permissions: [] }) },
  'GET /roles/:id': { ok: 200, path: (f) => `/roles/${f.spareRoleId}` },
  'PUT /roles/:id': { ok: 200, path: (f) => `/roles/${f.spareRoleId}`, body: () => ({ description: 'Modifié' }) },
  'DELETE /roles/:id': { ok: 204, path: (f) => `/roles/${f.spareRoleId}` },
  'GET /permissions': { ok: 200, path: () => '/permissions' },
  // Single sign-on providers (sign_in.manage)
  'GET /admin/sign-in/providers': { ok: 200, path: () => '/admin/sign-in/providers' },
  'POST /admin/sign-in/providers': {
    ok: 201,
    path: () => '/admin/sign-in/providers',
    body: () => ({ label: `P ${unique()}`, issuer: 'https://idp.example.com', client_id: 'c' }),
  },
  'GET /admin/sign-in/providers/:id': { ok: 200, path: async (f) => `/admin/sign-in/providers/${await providerId(f)}` },
  'PUT /admin/sign-in/providers/:id': { ok: 200, path: async (f) => `/admin/sign-in/providers/${await providerId(f)}`, body: () => ({ enabled: false }) },
  'DELETE /admin/sign-in/providers/:id': { ok: 204, path: async (f) => `/admin/sign-in/providers/${await providerId(f)}` },
  // Audit log (audit.view)
  'GET /audit': { ok: 200, path: () => '/audit?action=auth.login&limit=10' },
  // Pages module: admin routes (pages.view / pages.manage)
  'GET /admin/pages': { ok: 200, path: () => '/admin/pages' },
  // What pages.manage alone allows: a page created as a draft, a move. Creating a live page
  // and a live edit also need pages.publish (test/teams/role-actions.test.ts).
  'POST /admin/pages': { ok: 201, path: () => '/admin/pages', body: () => ({ title: `Nouvelle ${unique()}`, publish: false }) },
  'GET /admin/pages/templates': { ok: 200, path: () => '/admin/pages/templates' },
  'GET /admin/pages/:id': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}` },
  'PUT /admin/pages/:id': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}`, body: () => ({ parent_id: null }) },
  'POST /admin/pages/:id/duplicate': { ok: 201, path: async (f) => `/admin/pages/${(await f.page()).id}/duplicate` },
  'GET /admin/pages/presence': { ok: 200, path: () => '/admin/pages/presence' },
  'POST /admin/pages/:id/presence': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/presence`, body: () => ({}) },
  'GET /admin/pages/:id/presence': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/presence` },
  'POST /admin/pages/:id/preview-link': { ok: 201, path: async (f) => `/admin/pages/${(await f.page()).id}/preview-link` },
  'DELETE /admin/pages/:id/preview-links': { ok: 204, path: async (f) => `/admin/pages/${(await f.page()).id}/preview-links` },
  'DELETE /admin/pages/:id': { ok: 204, path: async (f) => `/admin/pages/${(await f.page()).id}` },
  'DELETE /admin/sample-content': { ok: 204, path: () => '/admin/sample-content' },
  // Grants on sections of the tree (roles.view reads, roles.manage gives what it holds)
  'GET /admin/pages/:id/permissions': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/permissions` },
  'POST /admin/pages/:id/permissions': {
    ok: 201,
    path: async (f) => `/admin/pages/${(await f.page()).id}/permissions`,
    body: async (f) => {
      await holdPagesView(f);
      return { role_id: f.spareRoleId, permissions: ['pages.view'] };
    },
  },
  'DELETE /admin/pages/:id/permissions/:grantId': { ok: 204, path: grantPath },
  // Revisions, drafts and publishing: the page has a pending draft where the row needs one.
  'GET /admin/pages/:id/revisions': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/revisions` },
  'GET /admin/pages/:id/revisions/:number': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/revisions/1` },
  'POST /admin/pages/:id/revisions/:number/restore': { ok: 201, path: async (f) => `/admin/pages/${(await f.page()).id}/revisions/1/restore` },
  'GET /admin/pages/:id/draft': { ok: 200, path: async (f) => `/admin/pages/${await pageWithDraft(f)}/draft` },
  'PUT /admin/pages/:id/draft': { ok: 200, path: async (f) => `/admin/pages/${(await f.page()).id}/draft`, body: () => ({ title: 'Brouillon' }) },
  'DELETE /admin/pages/:id/draft': { ok: 204, path: async (f) => `/admin/pages/${await pageWithDraft(f)}/draft` },
  'POST /admin/pages/:id/publish': { ok: 200, path: async (f) => `/admin/pages/${await pageWithDraft(f)}/publish` },
  'DELETE /admin/pages/:id/schedule': { ok: 204, path: async (f) => `/admin/pages/${await pageWithDraft(f, true)}/schedule` },
  // Review before publishing (issue 26): pages.view reads, pages.manage submits, pages.review decides.
  'GET /admin/pages/:id/review': { ok: 200, path: async (f) => `/admin/pages/${(await pageInReview(f)).id}/review` },
  'POST /admin/pages/:id/review': { ok: 202, path: async (f) => `/admin/pages/${await pageWithDraft(f)}/review`, body: () => ({ comment: 'À relire' }) },
  'POST /admin/pages/:id/review/approve': {
    ok: 200,
    path: async (f) => `/admin/pages/${(await pageInReview(f)).id}/review/approve`,
    // Read once the path has put the page in review.
    body: async (f) => ({
      revision: (await f.ctx
        .db('app_page_reviews')
        .where({ page_id: (await f.page()).id, state: 'in_review' })
        .first('revision'))!.revision,
    }),
  },
  'POST /admin/pages/:id/review/reject': {
    ok: 200,
    path: async (f) => `/admin/pages/${(await pageInReview(f)).id}/review/reject`,
    body: () => ({ comment: 'Non' }),
  },
  // Pages module: media library (pages.manage)
  'GET /admin/media': { ok: 200, path: () => '/admin/media' },
  'POST /admin/media': { ok: 201, path: () => '/admin/media' },
  'GET /admin/media/:id': { ok: 200, path: async (f) => `/admin/media/${(await f.media()).id}` },
  'PUT /admin/media/:id': { ok: 200, path: async (f) => `/admin/media/${(await f.media()).id}`, body: () => ({ alt: 'Texte' }) },
  'DELETE /admin/media/:id': { ok: 204, path: async (f) => `/admin/media/${(await f.media()).id}` },
  // Pages module: redirects (pages.view reads, pages.manage writes)
  'GET /admin/redirects': { ok: 200, path: () => '/admin/redirects?path=vieux' },
  'POST /admin/redirects': { ok: 201, path: () => '/admin/redirects', body: async (f) => ({ from: `/vieux-${unique()}`, page_id: (await f.page()).id }) },
  'DELETE /admin/redirects/:id': {
    ok: 204,
    path: async (f) => `/admin/redirects/${(await createRedirect(f.ctx, { from: `/vieux-${unique()}`, page_id: (await f.page()).id })).id}`,
  },
  // Settings module (settings.manage)
  'GET /admin/settings': { ok: 200, path: () => '/admin/settings' },
  'PUT /admin/settings': { ok: 200, path: () => '/admin/settings', body: () => ({ tagline: 'Un slogan' }) },
  'POST /admin/settings/:image': { ok: 201, path: () => '/admin/settings/logo' },
  'DELETE /admin/settings/:image': { ok: 204, path: () => '/admin/settings/social-image' },
  'GET /admin/themes': { ok: 200, path: () => '/admin/themes' },
  // Pages module: menus (menus.manage)
  'GET /admin/menus/:name': { ok: 200, path: () => '/admin/menus/header' },
  'PUT /admin/menus/:name': {
    ok: 200,
    path: () => '/admin/menus/footer',
    body: async (f) => ({ items: [{ page_id: (await f.page()).id }, { label: 'Contact', url: 'mailto:contact@example.org' }] }),
  },
  // Pages module: public reads
  'GET /pages/by-path': { ok: 200, path: async (f) => `/pages/by-path?path=${(await f.page()).slug}` },
  'GET /pages': { ok: 200, path: () => '/pages' },
  'GET /pages/search': { ok: 200, path: () => '/pages/search?q=atelier' },
};

type CallerKind = 'no session' | 'user without permission' | 'admin.access only' | 'admin.access + the route permission' | 'administrator';
const CALLERS: CallerKind[] = ['no session', 'user without permission', 'admin.access only', 'admin.access + the route permission', 'administrator'];

function expectedStatus(access: Access, kind: CallerKind, ok: number): number {
  if (access === 'public' || access === 'anyone') return ok;
  if (kind === 'no session') return 401;
  if (access === 'user') return ok;
  if (kind === 'user without permission') return 403;
  if (kind === 'admin.access only') return access.permission === 'admin.access' ? ok : 403;
  return ok;
}

async function makeCaller(ctx: AppContext, kind: CallerKind, access: Access): Promise<(User & LoggedIn) | undefined> {
  switch (kind) {
    case 'no session':
      return undefined;
    case 'user without permission':
      return caller(ctx);
    case 'admin.access only':
      return caller(ctx, { permissions: ['admin.access'] });
    case 'admin.access + the route permission':
      return caller(ctx, { permissions: [...new Set(['admin.access', ...(typeof access === 'object' ? [access.permission] : [])])] });
    case 'administrator':
      return caller(ctx, { role: 'admin' });
  }
}

// The site's rows, then the fixture modules' (test/support/modules.ts).
const SAMPLES: Record<string, Sample> = Object.assign({}, SITE_SAMPLES, ...fixtureModules().map((fixture) => fixture.apiSamples ?? {}));

const ROWS = mounted(registeredRows().apiRoutes);

describe('/app/api permission matrix', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('has one valid request for every row the modules register on /app/api, and none for a row that does not exist', () => {
    expect(
      ROWS.map((row) => row.key).filter((key) => !SAMPLES[key]),
      'rows without a sample',
    ).to.deep.equal([]);
    expect(
      Object.keys(SAMPLES).filter((key) => !ROWS.some((row) => row.key === key)),
      'samples without a row',
    ).to.deep.equal([]);
  });

  it('mounts exactly those rows on the application', () => {
    expect(mounted(ctx.site.apiRoutes).map((row) => row.key)).to.deep.equal(ROWS.map((row) => row.key));
  });

  for (const row of ROWS) {
    const sample = SAMPLES[row.key];
    if (!sample) continue;
    for (const kind of CALLERS) {
      const status = expectedStatus(row.access, kind, sample.ok);
      it(`${row.key} (${describeAccess(row.access)}): ${kind} → ${status}`, async () => {
        const fixture = await makeFixture(ctx);
        const who = await makeCaller(ctx, kind, row.access);
        fixture.caller = who;
        const path = '/app/api' + (await sample.path(fixture));
        let req = request(app)[row.method](path).set('Accept', 'application/json');
        if (who) req = req.set('Cookie', who.cookie);
        if (row.row.upload) req = req.attach(row.row.upload.field, PNG_1X1, { filename: 'image.png', contentType: 'image/png' });
        else if (sample.body) req = req.send(await sample.body(fixture));
        const response = await req;
        expect(response.status, JSON.stringify(response.body)).to.equal(status);
        if (status === 401) expect(response.body.code).to.equal('unauthenticated');
        if (status === 403) expect(response.body.code).to.equal('forbidden');
      });
    }
  }
});

// A role manager (admin.access, roles.view, roles.manage) facing roles above it: every
// change of a role needs every permission of that role, checked where the role is written.
describe('/app/api/roles: a role manager and the roles above it', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const MANAGER = ['admin.access', 'roles.view', 'roles.manage'];
  const roleRow = (id: number) => ctx.db('app_auth_roles').where({ id }).first();
  const roleEvents = (mark: number) => ctx.db('app_audit_events').where('id', '>', mark).andWhere('action', 'like', 'role.%').pluck('action');
  const lastEvent = async () => Number((await ctx.db('app_audit_events').max({ id: 'id' }).first())?.id ?? 0);

  it('refuses to lift the two-step requirement of admin (403, saying why), and changes nothing', async () => {
    const manager = await caller(ctx, { permissions: MANAGER });
    const admin = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!;
    await ctx.db('app_auth_roles').where({ id: admin.id }).update({ require_2fa: true });
    const mark = await lastEvent();
    const response = await request(app).put(`/app/api/roles/${admin.id}`).set('Cookie', manager.cookie).send({ require_2fa: false });
    expect(response.status).to.equal(403);
    expect(response.body.code).to.equal('escalation');
    expect(response.body.error).to.include('Le rôle Administrateur détient toutes les permissions').and.include('users.manage');
    expect((await roleRow(admin.id))!.require_2fa).to.equal(true);
    expect(await roleEvents(mark)).to.deep.equal([]);
  });

  it('refuses to change the label, description or requirement of a role giving a permission it lacks', async () => {
    const manager = await caller(ctx, { permissions: MANAGER });
    const topId = await makeRole(ctx, ['roles.view', 'users.manage'], 'top');
    const before = (await roleRow(topId))!;
    const mark = await lastEvent();
    for (const change of [{ label: 'Lecteurs' }, { description: 'Rien de spécial' }, { require_2fa: true }, { permissions: ['roles.view', 'users.manage'] }]) {
      const response = await request(app).put(`/app/api/roles/${topId}`).set('Cookie', manager.cookie).send(change);
      expect(response.status, JSON.stringify(change)).to.equal(403);
      expect(response.body.code).to.equal('escalation');
      expect(response.body.error).to.equal(
        'Ce rôle détient des permissions que ce compte n’a pas (users.manage)\u00a0: il ne peut pas être modifié depuis ce compte.',
      );
    }
    expect(await roleRow(topId)).to.deep.equal(before);
    expect(await roleEvents(mark)).to.deep.equal([]);
  });

  it('changes a role whose permissions it all holds, and audits the change', async () => {
    const manager = await caller(ctx, { permissions: MANAGER });
    const plainId = await makeRole(ctx, ['roles.view'], 'plain');
    const mark = await lastEvent();
    const response = await request(app)
      .put(`/app/api/roles/${plainId}`)
      .set('Cookie', manager.cookie)
      .send({ label: 'Lecteurs des rôles', description: 'Consultent les rôles', require_2fa: true });
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    expect(response.body).to.include({ label: 'Lecteurs des rôles', description: 'Consultent les rôles', require_2fa: true });
    expect(await roleRow(plainId)).to.include({ label: 'Lecteurs des rôles', description: 'Consultent les rôles', require_2fa: true });
    const event = (await ctx.db('app_audit_events').where('id', '>', mark).andWhere({ action: 'role.updated' }).first())!;
    expect(event).to.include({ actor_id: manager.id, target_id: String(plainId) });
    expect(event.details.changes).to.have.all.keys('label', 'description', 'require_2fa');
  });

  it('deletes, or grants, a role above it no more than it changes one (403, nothing written)', async () => {
    const manager = await caller(ctx, { permissions: [...MANAGER, 'users.view', 'users.manage'] });
    const topId = await makeRole(ctx, ['pages.manage'], 'top');
    const target = await makeUser(ctx);
    const mark = await lastEvent();
    const deleted = await request(app).delete(`/app/api/roles/${topId}`).set('Cookie', manager.cookie);
    expect(deleted.status).to.equal(403);
    expect(deleted.body.code).to.equal('escalation');
    const granted = await request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', manager.cookie).send({ role_id: topId });
    expect(granted.status).to.equal(403);
    expect(granted.body.code).to.equal('escalation');
    expect(await roleRow(topId)).to.include({ name: 'top' });
    expect(await ctx.db('app_auth_user_roles').where({ user_id: target.id, role_id: topId })).to.deep.equal([]);
    expect(await ctx.db('app_audit_events').where('id', '>', mark).pluck('action')).to.deep.equal([]);
  });
});
