// Every /admin row the site's modules register (core and pages), and the profile rows
// at /admin/profile and /account, × five callers → the expected status, derived from
// the row's access rule and the guard of its area (/admin: admin.access for every URL;
// /account: a session). The table holds one valid submission per row, keyed
// "METHOD path": a row without an entry (or an entry without a row) fails this file.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import type { User } from '../../../models/auth/users.js';
import { createRedirect } from '../../../models/pages/redirects.js';
import { saveDraft } from '../../../models/pages/drafts.js';
import { submitForReview } from '../../../models/pages/reviews.js';
import { insertSsoProvider } from '../../../models/auth/sso-providers.js';
import { profileRoutes } from '../../../routes/account.js';
import type { Access } from '../../../routes/define.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, PNG_1X1, caller, logIn, makeRole, type LoggedIn } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';
import { describeAccess, makeFixture, mounted, registeredRows, unique, type AdminSample, type Fixture, type MountedRow } from '../../support/route-table.js';
import { grantPath, holdPagesView } from '../../support/grants.js';
import { fixtureModules } from '../../support/modules.js';

type Sample = AdminSample;

const page = async (f: Fixture) => `/admin/pages/${(await f.page()).id}`;
// The page's newest revision, read when the sample is sent (each accepted save moves it on).
const revision = async (f: Fixture) =>
  String(
    (await f.ctx
      .db('app_pages')
      .where({ id: (await f.page()).id })
      .first('revision'))!.revision,
  );
// The fixture's page with a pending draft, then that draft submitted for review (issue 26).
const pageWithDraft = async (f: Fixture) => {
  await saveDraft(f.ctx, (await f.page()).id, { title: 'Brouillon' });
  return page(f);
};
const pageInReview = async (f: Fixture) => {
  const path = await pageWithDraft(f);
  await submitForReview(f.ctx, (await f.page()).id, {}, null);
  return path;
};
const media = async (f: Fixture) => `/admin/media/${(await f.media()).id}`;
// A single sign-on provider of the fixture's database, made for the sample that needs it.
const providerId = async (f: Fixture) => (await insertSsoProvider(f.ctx, { label: `P ${unique()}`, issuer: 'https://idp.example.com', client_id: 'c' })).id;

function profileSamples(prefix: string): Record<string, Sample> {
  return {
    [`GET ${prefix}`]: { ok: 200, path: () => prefix },
    [`POST ${prefix}/name`]: { ok: 303, path: () => `${prefix}/name`, fields: () => ({ name: 'Moi' }) },
    [`POST ${prefix}/review-emails`]: { ok: 303, path: () => `${prefix}/review-emails`, fields: () => ({ review_emails: 'on' }) },
    [`POST ${prefix}/email`]: { ok: 303, path: () => `${prefix}/email`, fields: () => ({ email: `me-${unique()}@example.com`, current_password: PASSWORD }) },
    [`POST ${prefix}/password`]: {
      ok: 303,
      path: () => `${prefix}/password`,
      fields: () => ({ current_password: PASSWORD, new_password: 'a new password', confirm_password: 'a new password' }),
    },
    [`POST ${prefix}/picture`]: { ok: 303, path: () => `${prefix}/picture` },
    [`POST ${prefix}/picture/delete`]: { ok: 303, path: () => `${prefix}/picture/delete` },
    [`POST ${prefix}/sessions/delete-others`]: { ok: 303, path: () => `${prefix}/sessions/delete-others` },
    [`POST ${prefix}/sessions/:sessionId/delete`]: {
      ok: 303,
      path: async (f) => `${prefix}/sessions/${f.caller ? (await logIn(f.ctx, f.caller)).publicId : 'a'.repeat(32)}/delete`,
    },
    [`POST ${prefix}/passkeys/:id/delete`]: {
      ok: 303,
      path: async (f) => {
        const owner = f.caller ?? f.target;
        const [row] = await f.ctx
          .db('app_auth_passkeys')
          .insert({ user_id: owner.id, credential_id: `cred-${unique()}`, public_key: Buffer.from([1]), device_type: 'singleDevice', name: 'Clé' })
          .returning('id');
        return `${prefix}/passkeys/${row.id}/delete`;
      },
      fields: () => ({ current_password: PASSWORD }),
    },
    [`POST ${prefix}/passkeys/:id/rename`]: {
      ok: 303,
      path: async (f) => {
        const owner = f.caller ?? f.target;
        const [row] = await f.ctx
          .db('app_auth_passkeys')
          .insert({ user_id: owner.id, credential_id: `cred-${unique()}`, public_key: Buffer.from([1]), device_type: 'singleDevice', name: 'Clé' })
          .returning('id');
        return `${prefix}/passkeys/${row.id}/rename`;
      },
      fields: () => ({ name: 'Portable' }),
    },
    // Two-step verification (none set up: a refusal on the page still shows the guard let the caller through)
    [`GET ${prefix}/2fa`]: { ok: 200, path: () => `${prefix}/2fa` },
    [`POST ${prefix}/2fa/setup`]: { ok: 303, path: () => `${prefix}/2fa/setup`, fields: () => ({ current_password: PASSWORD }) },
    [`POST ${prefix}/2fa/enable`]: { ok: 409, path: () => `${prefix}/2fa/enable`, fields: () => ({ code: '123456' }) },
    [`POST ${prefix}/2fa/recovery-codes`]: {
      ok: 409,
      path: () => `${prefix}/2fa/recovery-codes`,
      fields: () => ({ current_password: PASSWORD, code: '123456' }),
    },
    [`POST ${prefix}/2fa/disable`]: { ok: 409, path: () => `${prefix}/2fa/disable`, fields: () => ({ current_password: PASSWORD, code: '123456' }) },
    // Not linked to that provider: the guard let the caller through to the model's answer.
    [`POST ${prefix}/sso/:provider/delete`]: { ok: 404, path: () => `${prefix}/sso/999999/delete` },
    [`GET ${prefix}/delete`]: { ok: 200, path: () => `${prefix}/delete` },
    // The fixture holds another administrator: even an administrator caller may leave.
    [`POST ${prefix}/delete`]: { ok: 303, path: () => `${prefix}/delete`, fields: () => ({ current_password: PASSWORD }) },
  };
}

const SITE_SAMPLES: Record<string, Sample> = {
  'GET /admin': { ok: 200, path: () => '/admin' },
  // Users
  'GET /admin/users': { ok: 200, path: () => '/admin/users' },
  'GET /admin/users/new': { ok: 200, path: () => '/admin/users/new' },
  'POST /admin/users': {
    ok: 303,
    path: () => '/admin/users',
    fields: () => ({ name: 'Nouveau', email: `new-${unique()}@example.com`, role: 'user', password: PASSWORD }),
  },
  'GET /admin/users/:id': { ok: 200, path: (f) => `/admin/users/${f.target.id}` },
  'POST /admin/users/:id': { ok: 303, path: (f) => `/admin/users/${f.target.id}`, fields: () => ({ name: 'Renommé', role: 'user' }) },
  'POST /admin/users/:id/verify': { ok: 303, path: (f) => `/admin/users/${f.target.id}/verify` },
  'POST /admin/users/:id/email': { ok: 303, path: (f) => `/admin/users/${f.target.id}/email`, fields: () => ({ email: `moved-${unique()}@example.com` }) },
  'POST /admin/users/:id/password': { ok: 303, path: (f) => `/admin/users/${f.target.id}/password`, fields: () => ({ password: 'another password' }) },
  'POST /admin/users/:id/send-password-reset': { ok: 303, path: (f) => `/admin/users/${f.target.id}/send-password-reset` },
  // The target has a password: the refusal (409, on the page) still shows the guard let the caller through.
  'POST /admin/users/:id/resend-invitation': { ok: 409, path: (f) => `/admin/users/${f.target.id}/resend-invitation` },
  // The target has no two-step verification: the refusal (409, on the page) still shows the guard let the caller through.
  'POST /admin/users/:id/2fa/delete': { ok: 409, path: (f) => `/admin/users/${f.target.id}/2fa/delete` },
  'GET /admin/users/:id/suspend': { ok: 200, path: (f) => `/admin/users/${f.target.id}/suspend` },
  'POST /admin/users/:id/suspend': { ok: 303, path: (f) => `/admin/users/${f.target.id}/suspend`, fields: () => ({ reason: 'Vérification' }) },
  // The target is not suspended: the refusal (409, on the page) still shows the guard let the caller through.
  'POST /admin/users/:id/restore': { ok: 409, path: (f) => `/admin/users/${f.target.id}/restore` },
  'GET /admin/users/:id/delete': { ok: 200, path: (f) => `/admin/users/${f.target.id}/delete` },
  'POST /admin/users/:id/delete': { ok: 303, path: (f) => `/admin/users/${f.target.id}/delete` },
  'POST /admin/users/:id/roles': { ok: 303, path: (f) => `/admin/users/${f.target.id}/roles`, fields: (f) => ({ role_id: String(f.spareRoleId) }) },
  'POST /admin/users/:id/roles/:roleId/delete': { ok: 303, path: (f) => `/admin/users/${f.target.id}/roles/${f.heldRoleId}/delete` },
  // Roles
  // Single sign-on providers (sign_in.manage)
  'GET /admin/sign-in': { ok: 200, path: () => '/admin/sign-in' },
  'POST /admin/sign-in': {
    ok: 303,
    path: () => '/admin/sign-in',
    fields: () => ({ label: `P ${unique()}`, issuer: 'https://idp.example.com', client_id: 'c', enabled: '1' }),
  },
  'GET /admin/sign-in/:id': { ok: 200, path: async (f) => `/admin/sign-in/${await providerId(f)}` },
  'POST /admin/sign-in/:id': {
    ok: 303,
    path: async (f) => `/admin/sign-in/${await providerId(f)}`,
    fields: () => ({ label: `P ${unique()}`, issuer: 'https://idp.example.com', client_id: 'c' }),
  },
  'POST /admin/sign-in/:id/delete': { ok: 303, path: async (f) => `/admin/sign-in/${await providerId(f)}/delete` },
  'GET /admin/roles': { ok: 200, path: () => '/admin/roles' },
  'GET /admin/roles/new': { ok: 200, path: () => '/admin/roles/new' },
  'POST /admin/roles': {
    ok: 303,
    path: () => '/admin/roles',
    fields: () => {
      const key = `role-${unique()}`;
      return { label: key, name: key, description: '' };
    },
  },
  'GET /admin/roles/:id': { ok: 200, path: (f) => `/admin/roles/${f.spareRoleId}` },
  'POST /admin/roles/:id': { ok: 303, path: (f) => `/admin/roles/${f.spareRoleId}`, fields: () => ({ name: `renamed-${unique()}`, description: 'Modifié' }) },
  'GET /admin/roles/:id/delete': { ok: 200, path: (f) => `/admin/roles/${f.spareRoleId}/delete` },
  'POST /admin/roles/:id/delete': { ok: 303, path: (f) => `/admin/roles/${f.spareRoleId}/delete` },
  // Audit log
  'GET /admin/audit': { ok: 200, path: () => '/admin/audit?action=auth.login' },
  // Pages module: pages and blocks
  'GET /admin/pages': { ok: 200, path: () => '/admin/pages' },
  'GET /admin/pages/new': { ok: 200, path: () => '/admin/pages/new' },
  'GET /admin/pages/parent-candidates': { ok: 200, path: () => '/admin/pages/parent-candidates?q=Page' },
  'POST /admin/pages': { ok: 303, path: () => '/admin/pages', fields: () => ({ title: `Nouvelle ${unique()}` }) },
  'GET /admin/pages/:id': { ok: 200, path: page },
  'POST /admin/pages/:id': {
    ok: 303,
    path: page,
    fields: async (f) => ({ if_revision: await revision(f), title: 'Renommée', slug: '', parent_id: '', template: 'default', visibility: 'public' }),
  },
  'POST /admin/pages/:id/live-preview': {
    ok: 200,
    path: async (f) => `${await page(f)}/live-preview`,
    fields: () => ({ title: 'Aperçu', slug: '', parent_id: '', template: 'default', visibility: 'public' }),
  },
  'POST /admin/pages/:id/preview': { ok: 303, path: async (f) => `${await page(f)}/preview` },
  'POST /admin/pages/:id/preview-links/revoke': { ok: 303, path: async (f) => `${await page(f)}/preview-links/revoke` },
  'GET /admin/pages/:id/revisions': { ok: 200, path: async (f) => `${await page(f)}/revisions` },
  'GET /admin/pages/:id/revisions/compare': { ok: 200, path: async (f) => `${await page(f)}/revisions/compare?a=1&b=1` },
  'POST /admin/pages/:id/revisions/:number/restore': { ok: 303, path: async (f) => `${await page(f)}/revisions/1/restore` },
  'POST /admin/pages/:id/duplicate': { ok: 303, path: async (f) => `${await page(f)}/duplicate` },
  'GET /admin/pages/:id/delete': { ok: 200, path: async (f) => `${await page(f)}/delete` },
  'POST /admin/pages/:id/delete': { ok: 303, path: async (f) => `${await page(f)}/delete` },
  // Pages for members (issue 26): the page's access, live at once.
  'POST /admin/pages/:id/access': { ok: 303, path: async (f) => `${await page(f)}/access`, fields: () => ({ access: 'members' }) },
  // Review before publishing (issue 26): the page gets a draft, then is submitted where the row needs it.
  'GET /admin/pages/:id/review': { ok: 200, path: async (f) => `${await page(f)}/review` },
  'POST /admin/pages/:id/review': { ok: 303, path: async (f) => `${await pageWithDraft(f)}/review`, fields: () => ({ comment: 'À relire' }) },
  'POST /admin/pages/:id/review/approve': {
    ok: 303,
    path: async (f) => `${await pageInReview(f)}/review/approve`,
    fields: async (f) => ({ revision: await revision(f) }),
  },
  'POST /admin/pages/:id/review/reject': { ok: 303, path: async (f) => `${await pageInReview(f)}/review/reject`, fields: () => ({ comment: 'Non' }) },
  'GET /admin/sample-content/delete': { ok: 200, path: () => '/admin/sample-content/delete' },
  'POST /admin/sample-content/delete': { ok: 303, path: () => '/admin/sample-content/delete', fields: () => ({ confirm: 'yes' }) },
  // Grants on sections of the tree
  'GET /admin/pages/:id/permissions': { ok: 200, path: async (f) => `${await page(f)}/permissions` },
  'POST /admin/pages/:id/permissions': {
    ok: 303,
    path: async (f) => `${await page(f)}/permissions`,
    fields: async (f) => {
      await holdPagesView(f);
      return { role_id: String(f.spareRoleId), permissions: 'pages.view' };
    },
  },
  'POST /admin/pages/:id/permissions/:grantId/delete': { ok: 303, path: async (f) => `${await grantPath(f)}/delete` },
  // Pages module: media library
  'GET /admin/media': { ok: 200, path: () => '/admin/media' },
  'POST /admin/media': { ok: 303, path: () => '/admin/media', fields: () => ({ alt: 'Image' }) },
  'GET /admin/media/:id': { ok: 200, path: media },
  'POST /admin/media/:id': { ok: 303, path: media, fields: () => ({ alt: 'Texte', caption: '' }) },
  'POST /admin/media/:id/delete': { ok: 303, path: async (f) => `${await media(f)}/delete` },
  // Pages module: redirects
  'GET /admin/redirects': { ok: 200, path: () => '/admin/redirects' },
  'POST /admin/redirects': {
    ok: 303,
    path: () => '/admin/redirects',
    fields: async (f) => ({ from: `/vieux-${unique()}`, page_id: String((await f.page()).id) }),
  },
  'POST /admin/redirects/:id/delete': {
    ok: 303,
    path: async (f) => `/admin/redirects/${(await createRedirect(f.ctx, { from: `/vieux-${unique()}`, page_id: (await f.page()).id })).id}/delete`,
  },
  // Settings module
  'GET /admin/settings': { ok: 200, path: () => '/admin/settings' },
  'POST /admin/settings': { ok: 303, path: () => '/admin/settings', fields: () => ({ title: 'Mon site', theme: 'default' }) },
  'POST /admin/settings/:image': { ok: 303, path: () => '/admin/settings/favicon' },
  'POST /admin/settings/:image/delete': { ok: 303, path: () => '/admin/settings/logo/delete' },
  // Pages module: menus
  'GET /admin/menus': { ok: 200, path: () => '/admin/menus' },
  'POST /admin/menus/:name': {
    ok: 303,
    path: () => '/admin/menus/header',
    fields: async (f) => ({ label_0: '', page_0: String((await f.page()).id), level_0: '0', action: 'save' }),
  },
  // The profile page, in both places
  ...profileSamples('/admin/profile'),
  ...profileSamples('/account'),
};

type CallerKind = 'no session' | 'user without permission' | 'admin.access only' | 'admin.access + the row permission' | 'administrator';
const CALLERS: CallerKind[] = ['no session', 'user without permission', 'admin.access only', 'admin.access + the row permission', 'administrator'];

function expectedStatus(row: MountedRow, kind: CallerKind, ok: number): number {
  // Both areas need a session for every URL: a page sends to the login form, a form is refused.
  if (kind === 'no session') return row.method === 'get' ? 303 : 401;
  if (row.path.startsWith('/account')) return ok;
  // Every URL under /admin needs admin.access.
  if (kind === 'user without permission') return 403;
  if (kind === 'admin.access only') return row.access === 'user' || (typeof row.access === 'object' && row.access.permission === 'admin.access') ? ok : 403;
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
    case 'admin.access + the row permission':
      return caller(ctx, { permissions: [...new Set(['admin.access', ...(typeof access === 'object' ? [access.permission] : [])])] });
    case 'administrator':
      return caller(ctx, { role: 'admin' });
  }
}

// The site's rows, then the fixture modules' (test/support/modules.ts).
const SAMPLES: Record<string, Sample> = Object.assign({}, SITE_SAMPLES, ...fixtureModules().map((fixture) => fixture.adminSamples ?? {}));

const registry = registeredRows();
const ROWS = [...mounted(registry.adminRoutes, '/admin'), ...mounted(profileRoutes, '/admin/profile'), ...mounted(profileRoutes, '/account')];

/** A CSRF cookie and a token for it, read from the caller's own profile page. */
async function formToken(app: App, cookie: string): Promise<{ cookie: string; token: string }> {
  const page = await request(app).get('/account').set('Cookie', cookie);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  const csrf = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((line) => line.startsWith('site.csrf='));
  if (!token || !csrf) throw new Error(`no CSRF token on /account (status ${page.status})`);
  return { cookie: `${cookie}; ${csrf.split(';')[0]}`, token };
}

describe('/admin and /account permission matrix', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('has one valid submission for every row of /admin, /admin/profile and /account, and none for a row that does not exist', () => {
    expect(
      ROWS.map((row) => row.key).filter((key) => !SAMPLES[key]),
      'rows without a sample',
    ).to.deep.equal([]);
    expect(
      Object.keys(SAMPLES).filter((key) => !ROWS.some((row) => row.key === key)),
      'samples without a row',
    ).to.deep.equal([]);
  });

  it('mounts exactly the registered /admin rows on the application', () => {
    expect(mounted(ctx.site.adminRoutes, '/admin').map((row) => row.key)).to.deep.equal(mounted(registry.adminRoutes, '/admin').map((row) => row.key));
  });

  for (const row of ROWS) {
    const sample = SAMPLES[row.key];
    if (!sample) continue;
    for (const kind of CALLERS) {
      const status = expectedStatus(row, kind, sample.ok);
      it(`${row.key} (${describeAccess(row.access)}): ${kind} → ${status}`, async () => {
        const fixture = await makeFixture(ctx);
        const who = await makeCaller(ctx, kind, row.access);
        fixture.caller = who;
        const path = await sample.path(fixture);
        let response: request.Response;
        if (row.method === 'get') {
          response = await request(app)
            .get(path)
            .set('Cookie', who?.cookie ?? '');
        } else {
          const form = who ? await formToken(app, who.cookie) : { cookie: '', token: 'none' };
          const fields = { _csrf: form.token, ...(sample.fields ? await sample.fields(fixture) : {}) };
          let req = request(app).post(path).set('Cookie', form.cookie);
          if (row.row.upload) {
            for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
            response = await req.attach(row.row.upload.field, PNG_1X1, { filename: 'image.png', contentType: 'image/png' });
          } else {
            response = await req.type('form').send(new URLSearchParams(fields).toString());
          }
        }
        expect(response.status, response.text.slice(0, 500)).to.equal(status);
        if (kind === 'no session' && row.method === 'get') expect(response.headers.location).to.match(/^\/auth\/login\?next=/);
        // Never sent to log in; deleting one's own account is the one form that ends on the login page.
        if (status === 303 && kind !== 'no session') expect(response.headers.location).not.to.match(/^\/auth\/(?!login\?done=deleted$)/);
      });
    }
  }
});

// The role form for a role manager (admin.access, roles.view, roles.manage) and the
// roles above it: shown read-only with a notice, and any change posted anyway refused.
describe('/admin/roles/:id: a role manager and the roles above it', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const MANAGER = ['admin.access', 'roles.view', 'roles.manage'];
  const lastEvent = async () => Number((await ctx.db('app_audit_events').max({ id: 'id' }).first())?.id ?? 0);
  const roleEvents = (mark: number) => ctx.db('app_audit_events').where('id', '>', mark).andWhere('action', 'like', 'role.%').pluck('action');

  it('refuses to lift the two-step requirement of admin (403 on the form, saying why), and changes nothing', async () => {
    const manager = await AdminClient.as(app, { permissions: MANAGER });
    const admin = (await ctx.db('app_auth_roles').where({ name: 'admin' }).first())!;
    await ctx.db('app_auth_roles').where({ id: admin.id }).update({ require_2fa: true });
    const page = await manager.get(`/admin/roles/${admin.id}`);
    expect(page.text).not.to.include('Enregistrer</button>');
    expect(textOf(page.text)).to.include('Ce rôle détient des permissions que ce compte n’a pas');
    const mark = await lastEvent();
    // The checkbox left unticked: the form asks to lift the requirement.
    const response = await manager.post(`/admin/roles/${admin.id}`, {}, `/admin/roles/${admin.id}`);
    expect(response.status).to.equal(403);
    expect(textOf(response.text)).to.include('Le rôle Administrateur détient toutes les permissions');
    expect((await ctx.db('app_auth_roles').where({ id: admin.id }).first())!.require_2fa).to.equal(true);
    expect(await roleEvents(mark)).to.deep.equal([]);
  });

  it('refuses a new label on a role giving a permission it lacks, and saves it on a role whose permissions it holds', async () => {
    const manager = await AdminClient.as(app, { permissions: MANAGER });
    const topId = await makeRole(ctx, ['users.manage'], 'top');
    const plainId = await makeRole(ctx, ['roles.view'], 'plain');
    const mark = await lastEvent();
    const refused = await manager.post(`/admin/roles/${topId}`, { label: 'Lecteurs', description: 'Changé' }, `/admin/roles/${topId}`);
    expect(refused.status).to.equal(403);
    expect(textOf(refused.text)).to.include('Ce rôle détient des permissions que ce compte n’a pas (users.manage)');
    expect(await ctx.db('app_auth_roles').where({ id: topId }).first()).to.include({ label: 'top', description: '' });
    const saved = await manager.post(
      `/admin/roles/${plainId}`,
      // Without admin.access: saved as chosen once the form has said so (test/teams/role-form.test.ts).
      { label: 'Lecteurs', description: 'Changé', permissions: 'roles.view', admin_access_warned: '1' },
      `/admin/roles/${plainId}`,
    );
    expect(saved.status, saved.text.slice(0, 500)).to.equal(303);
    expect(await ctx.db('app_auth_roles').where({ id: plainId }).first()).to.include({ label: 'Lecteurs', description: 'Changé' });
    expect(await roleEvents(mark)).to.deep.equal(['role.updated']);
  });
});
