// Every answer that depends on the session must never be kept by a cache (hardening
// issue, item 7); public reads may be.
import { expect } from 'chai';
import request from 'supertest';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';

describe('Cache-Control on private answers', () => {
  let app: App;
  before(() => {
    app = createTestApp();
  });
  beforeEach(() => resetData(contextOf(app)));

  for (const path of ['/app/api/users/profile/sessions', '/app/api/users', '/admin', '/admin/users', '/account', '/admin/profile']) {
    it(`GET ${path} with a session answers Cache-Control: no-store`, async () => {
      const admin = await caller(contextOf(app), { role: 'admin' });
      const response = await request(app).get(path).set('Cookie', admin.cookie);
      expect(response.status).to.equal(200);
      expect(response.headers['cache-control']).to.equal('no-store');
    });
  }

  it('GET /auth answers no-store (its forms carry tokens)', async () => {
    const response = await request(app).get('/auth');
    expect(response.headers['cache-control']).to.equal('no-store');
  });

  it('a public page read does not carry no-store', async () => {
    const response = await request(app).get('/app/api/pages');
    expect(response.status).to.equal(200);
    expect(response.headers['cache-control'] ?? '').to.not.include('no-store');
  });
});
