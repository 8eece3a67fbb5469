// The malformed inputs of the hardening issue (items 8–10), sent to every row of every
// area: a path whose parameters are broken percent-encodings, every declared query
// parameter and body field holding U+0000 or a lone surrogate, a corrupt gzip body,
// and a truncated multipart form. Whatever the row, the answer is never ≥ 500.
import { expect } from 'chai';
import type Joi from 'joi';
import request from 'supertest';
import { profileRoutes } from '../../routes/account.js';
import { uploadRoutes } from '../../routes/uploads.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';
import { mounted, registeredRows, type MountedRow } from '../support/route-table.js';

const registry = registeredRows();
const AUTH_PATHS = [
  '/auth',
  '/auth/login',
  '/auth/register',
  '/auth/forgot',
  '/auth/reset',
  '/auth/confirm',
  '/auth/setup',
  '/auth/logout',
  '/auth/resend-verification',
];
const ROWS: MountedRow[] = [
  ...mounted(registry.apiRoutes, '/app/api'),
  ...mounted(registry.adminRoutes, '/admin'),
  ...mounted(profileRoutes, '/admin/profile'),
  ...mounted(profileRoutes, '/account'),
  ...mounted(uploadRoutes, '/uploads'),
  ...mounted(
    registry.siteRoutes.filter((row) => !String(row.path).includes('*')),
    '',
  ),
];
const UNSTORABLE = ['a\u0000b', 'a\ud800b'];

function keysOf(schema: Joi.ObjectSchema | undefined): string[] {
  const described = schema?.describe() as { keys?: Record<string, unknown> } | undefined;
  return Object.keys(described?.keys ?? {});
}

function withBrokenParams(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, '%ff').replace(/\*[A-Za-z_]*/g, '%ff');
}

function withFirstIds(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, '1');
}

describe('malformed input on every row of every area', () => {
  let app: App;
  let cookie: string;
  before(() => {
    app = createTestApp();
  });
  beforeEach(async () => {
    await resetData(contextOf(app));
    cookie = (await caller(contextOf(app), { role: 'admin' })).cookie;
  });

  it('lists rows from every area', () => {
    expect(ROWS.filter((row) => row.path.startsWith('/app/api')).length).to.be.greaterThan(20);
    expect(ROWS.filter((row) => row.path.startsWith('/admin/')).length).to.be.greaterThan(20);
  });

  for (const row of ROWS) {
    it(`${row.key}: no answer ≥ 500 to broken encodings, NUL and lone surrogates`, async () => {
      const statuses: string[] = [];
      const send = async (label: string, build: () => request.Test) => {
        const response = await build();
        statuses.push(`${label} → ${response.status}`);
        expect(response.status, `${label}: ${JSON.stringify(response.body ?? response.text).slice(0, 300)}`).to.be.lessThan(500);
      };
      const isJson = row.path.startsWith('/app/api');
      if (row.path.includes(':')) {
        await send('broken encoding in the path', () => request(app)[row.method](withBrokenParams(row.path)).set('Cookie', cookie));
      }
      const path = withFirstIds(row.path);
      for (const value of UNSTORABLE) {
        const queryKeys = keysOf(row.row.query);
        if (queryKeys.length) {
          const query = new URLSearchParams(Object.fromEntries(queryKeys.map((key) => [key, value]))).toString();
          await send(`query ${JSON.stringify(value)}`, () => request(app)[row.method](`${path}?${query}`).set('Cookie', cookie));
        }
        const bodyKeys = keysOf(row.row.body);
        if (row.method !== 'get' && bodyKeys.length) {
          const body = Object.fromEntries(bodyKeys.map((key) => [key, value]));
          await send(`body ${JSON.stringify(value)}`, () =>
            isJson
              ? request(app)[row.method](path).set('Cookie', cookie).send(body)
              : request(app)[row.method](path).set('Cookie', cookie).type('form').send(body),
          );
        }
      }
      if (row.method !== 'get') {
        await send('corrupt gzip body', () =>
          request(app)
            [row.method](path)
            .set('Cookie', cookie)
            .set('Content-Type', isJson ? 'application/json' : 'application/x-www-form-urlencoded')
            .set('Content-Encoding', 'gzip')
            .send('not gzip at all'),
        );
        await send('truncated multipart', () =>
          request(app)
            [row.method](path)
            .set('Cookie', cookie)
            .set('Content-Type', 'multipart/form-data; boundary=XYZ')
            .send('--XYZ\r\nContent-Disposition: form-data; name="picture"; filename="a.png"\r\n\r\nabc'),
        );
      }
    });
  }

  for (const path of AUTH_PATHS) {
    it(`POST ${path}: no answer ≥ 500 to NUL, lone surrogates, corrupt gzip or truncated multipart`, async () => {
      for (const value of UNSTORABLE) {
        const form = { name: value, email: value, password: value, token: value, newPassword: value, confirmPassword: value, _hp: '', _t: value, _csrf: value };
        const response = await request(app).post(path).type('form').send(form);
        expect(response.status, `${path} ${JSON.stringify(value)}`).to.be.lessThan(500);
      }
      const gzip = await request(app).post(path).set('Content-Type', 'application/x-www-form-urlencoded').set('Content-Encoding', 'gzip').send('not gzip');
      expect(gzip.status).to.be.lessThan(500);
      const broken = await request(app).get(`${path}/%ff`);
      expect(broken.status).to.be.lessThan(500);
    });
  }

  it('GET of a site path with a broken encoding is not a 500', async () => {
    for (const path of ['/%ff', '/a/%ff/b', '/sitemap-%ff.xml']) {
      const response = await request(app).get(path);
      expect(response.status, path).to.be.lessThan(500);
    }
  });
});
