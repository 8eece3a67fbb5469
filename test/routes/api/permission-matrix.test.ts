// Every /app/api route of SPEC A6 × five callers → the expected status. The table
// below is checked against the router's own route list first, so a route added
// without a row here fails this file.
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { db } from '../../../lib/db.js';
import { apiRoutes } from '../../../routes/api/index.js';
import { issueToken } from '../../../models/auth/verifications.js';
import { createTestApp, resetData } from '../../support/app.js';
import { PASSWORD, PNG_1X1, caller, logIn, makeRole, makeUser, type LoggedIn } from '../../support/fixtures.js';
import type { User } from '../../../models/auth/users.js';

type Access = string | 'user' | 'token';

interface Fixture {
  target: User;
  heldRoleId: number;
  spareRoleId: number;
  caller?: User & LoggedIn;
}

interface Row {
  method: 'get' | 'post' | 'put' | 'delete';
  /** The path as the router declares it, relative to /app/api. */
  route: string;
  access: Access;
  /** Status of a valid request by a caller who is allowed. */
  ok: number;
  path(fixture: Fixture): string | Promise<string>;
  body?: (fixture: Fixture) => object;
  upload?: boolean;
}

const unique = () => Math.random().toString(36).slice(2, 8);

const ROWS: Row[] = [
  // Users (users.view / users.manage)
  { method: 'get', route: '/users', access: 'users.view', ok: 200, path: () => '/users?limit=10' },
  { method: 'post', route: '/users', access: 'users.manage', ok: 201, path: () => '/users', body: () => ({ email: `new-${unique()}@example.com`, name: 'Nouveau', password: PASSWORD }) },
  { method: 'get', route: '/users/:id', access: 'users.view', ok: 200, path: (f) => `/users/${f.target.id}` },
  { method: 'put', route: '/users/:id', access: 'users.manage', ok: 200, path: (f) => `/users/${f.target.id}`, body: () => ({ name: 'Renommé' }) },
  { method: 'put', route: '/users/:id/email', access: 'users.manage', ok: 200, path: (f) => `/users/${f.target.id}/email`, body: () => ({ email: `moved-${unique()}@example.com` }) },
  { method: 'put', route: '/users/:id/password', access: 'users.manage', ok: 204, path: (f) => `/users/${f.target.id}/password`, body: () => ({ password: 'another password' }) },
  { method: 'post', route: '/users/:id/send-password-reset', access: 'users.manage', ok: 204, path: (f) => `/users/${f.target.id}/send-password-reset` },
  { method: 'get', route: '/users/:id/roles', access: 'users.view', ok: 200, path: (f) => `/users/${f.target.id}/roles` },
  { method: 'post', route: '/users/:id/roles', access: 'users.manage', ok: 201, path: (f) => `/users/${f.target.id}/roles`, body: (f) => ({ role_id: f.spareRoleId }) },
  { method: 'delete', route: '/users/:id/roles/:roleId', access: 'users.manage', ok: 204, path: (f) => `/users/${f.target.id}/roles/${f.heldRoleId}` },
  // Profile (any logged-in user)
  { method: 'put', route: '/users/profile', access: 'user', ok: 200, path: () => '/users/profile', body: () => ({ name: 'Moi' }) },
  { method: 'post', route: '/users/profile/email', access: 'user', ok: 202, path: () => '/users/profile/email', body: () => ({ email: `me-${unique()}@example.com`, current_password: PASSWORD }) },
  {
    method: 'get',
    route: '/users/email/confirm',
    access: 'token',
    ok: 200,
    path: async (f) => `/users/email/confirm?token=${(await issueToken('email_change', f.target, { newEmail: `confirmed-${unique()}@example.com` })).token}`,
  },
  { method: 'post', route: '/users/profile/password', access: 'user', ok: 204, path: () => '/users/profile/password', body: () => ({ current_password: PASSWORD, new_password: 'a new password' }) },
  { method: 'post', route: '/users/profile/picture', access: 'user', ok: 200, path: () => '/users/profile/picture', upload: true },
  { method: 'delete', route: '/users/profile/picture', access: 'user', ok: 204, path: () => '/users/profile/picture' },
  { method: 'get', route: '/users/profile/sessions', access: 'user', ok: 200, path: () => '/users/profile/sessions' },
  { method: 'delete', route: '/users/profile/sessions', access: 'user', ok: 200, path: () => '/users/profile/sessions?keep_current=true' },
  {
    method: 'delete',
    route: '/users/profile/sessions/:sessionId',
    access: 'user',
    ok: 204,
    path: async (f) => `/users/profile/sessions/${f.caller ? (await logIn(f.caller)).publicId : 'a'.repeat(32)}`,
  },
  // Roles and permissions (roles.view / roles.manage)
  { method: 'get', route: '/roles', access: 'roles.view', ok: 200, path: () => '/roles' },
  { method: 'post', route: '/roles', access: 'roles.manage', ok: 201, path: () => '/roles', body: () => ({ name: `role-${unique()}`, permissions: [] }) },
  { method: 'get', route: '/roles/:id', access: 'roles.view', ok: 200, path: (f) => `/roles/${f.spareRoleId}` },
  { method: 'put', route: '/roles/:id', access: 'roles.manage', ok: 200, path: (f) => `/roles/${f.spareRoleId}`, body: () => ({ description: 'Modifié' }) },
  { method: 'delete', route: '/roles/:id', access: 'roles.manage', ok: 204, path: (f) => `/roles/${f.spareRoleId}` },
  { method: 'get', route: '/permissions', access: 'roles.view', ok: 200, path: () => '/permissions' },
];

type CallerKind = 'no session' | 'user without permission' | 'admin.access only' | 'admin.access + the route permission' | 'administrator';
const CALLERS: CallerKind[] = ['no session', 'user without permission', 'admin.access only', 'admin.access + the route permission', 'administrator'];

function expectedStatus(row: Row, kind: CallerKind): number {
  if (row.access === 'token') return row.ok;
  if (kind === 'no session') return 401;
  if (row.access === 'user') return row.ok;
  if (kind === 'user without permission' || kind === 'admin.access only') return 403;
  return row.ok;
}

async function makeCaller(kind: CallerKind, row: Row): Promise<(User & LoggedIn) | undefined> {
  switch (kind) {
    case 'no session':
      return undefined;
    case 'user without permission':
      return caller();
    case 'admin.access only':
      return caller({ permissions: ['admin.access'] });
    case 'admin.access + the route permission':
      return caller({ permissions: ['admin.access', ...(row.access.includes('.') ? [row.access] : [])] });
    case 'administrator':
      return caller({ role: 'admin' });
  }
}

describe('/app/api permission matrix', () => {
  let app: Express;
  before(() => {
    app = createTestApp();
  });
  beforeEach(resetData);

  it('has one row for every route the API router mounts, with the same access rule', () => {
    const mounted = apiRoutes.map((route) => {
      const access = typeof route.access === 'object' ? route.access.permission : route.access;
      return `${route.method.toUpperCase()} ${route.path} ${access}`;
    });
    const tabled = ROWS.map((row) => `${row.method.toUpperCase()} ${row.route} ${row.access}`);
    expect(tabled.sort()).to.deep.equal(mounted.sort());
  });

  for (const row of ROWS) {
    for (const kind of CALLERS) {
      const status = expectedStatus(row, kind);
      it(`${row.method.toUpperCase()} ${row.route}: ${kind} → ${status}`, async () => {
        // The administrator keeps another admin beside it, and the target is a plain user.
        await makeUser({ role: 'admin' });
        const heldRoleId = await makeRole([], `held-${unique()}`);
        const spareRoleId = await makeRole([], `spare-${unique()}`);
        const target = await makeUser();
        await makeUser({ role: 'user' });
        await db()('app_auth_user_roles').insert({ user_id: target.id, role_id: heldRoleId });
        const who = await makeCaller(kind, row);
        const fixture: Fixture = { target, heldRoleId, spareRoleId, caller: who };
        const path = '/app/api' + (await row.path(fixture));
        let req = request(app)[row.method](path).set('Accept', 'application/json');
        if (who) req = req.set('Cookie', who.cookie);
        if (row.upload) req = req.attach('picture', PNG_1X1, { filename: 'me.png', contentType: 'image/png' });
        else if (row.body) req = req.send(row.body(fixture));
        const response = await req;
        expect(response.status, JSON.stringify(response.body)).to.equal(status);
        if (status === 401) expect(response.body.code).to.equal('unauthenticated');
        if (status === 403) expect(response.body.code).to.equal('forbidden');
      });
    }
  }
});
