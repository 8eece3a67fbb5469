// The admin shell: the guard, the navigation built from the permission catalogue
// (a section shows only with its view permission), the user's name, the logout form.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { makeUser } from '../../support/fixtures.js';
import { AdminClient, textOf } from '../../support/admin-client.js';

function navLinks(html: string): string[] {
  const nav = /<nav class="admin-nav"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
  return [...nav.matchAll(/<a href="([^"]+)"/g)].map((match) => match[1]);
}

describe('/admin shell', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('sends a visitor without a session to the login page, and refuses a session without admin.access', async () => {
    await makeUser(ctx);
    const anonymous = await request(app).get('/admin/users');
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.location).to.equal('/auth/login?next=%2Fadmin%2Fusers');
    const plain = await AdminClient.as(app);
    expect((await plain.get('/admin')).status).to.equal(403);
    expect((await plain.get('/admin/profile')).status).to.equal(403);
  });

  it('shows every section to an administrator, in catalogue order, with the name and a logout form carrying the token', async () => {
    const client = await AdminClient.as(app, { role: 'admin', name: 'Ada Lovelace' });
    const page = await client.get('/admin');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<title>Administration — Site de test</title>');
    expect(navLinks(page.text)).to.deep.equal([
      '/admin',
      '/admin/users',
      '/admin/roles',
      '/admin/audit',
      '/admin/sign-in',
      '/admin/pages',
      '/admin/media',
      '/admin/redirects',
      '/admin/menus',
      '/admin/settings',
      '/admin/profile',
    ]);
    expect(page.text).to.include('Ada Lovelace');
    expect(page.text).to.match(/<form method="post" action="\/auth\/logout"[^>]*>\s*<input type="hidden" name="_csrf" value="[^"]+">/);
    expect(page.headers['cache-control']).to.equal('no-store');
  });

  it('shows an editor only the pages sections, never the users one', async () => {
    const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
    const page = await client.get('/admin');
    expect(navLinks(page.text)).to.deep.equal(['/admin', '/admin/pages', '/admin/media', '/admin/redirects', '/admin/profile']);
    expect(textOf(page.text)).not.to.include('Utilisateurs');
  });

  it('shows pages.view without pages.manage no media library', async () => {
    const client = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'users.view'] });
    expect(navLinks((await client.get('/admin/pages')).text)).to.deep.equal(['/admin', '/admin/users', '/admin/pages', '/admin/redirects', '/admin/profile']);
    expect((await client.get('/admin/media')).status).to.equal(403);
  });

  it('uses no inline style or script (the CSP forbids them) on the admin screens', async () => {
    const client = await AdminClient.as(app, { role: 'admin' });
    for (const path of [
      '/admin',
      '/admin/users',
      '/admin/users/new',
      '/admin/roles',
      '/admin/roles/new',
      '/admin/pages',
      '/admin/pages/new',
      '/admin/media',
      '/account',
    ]) {
      const page = await client.get(path);
      expect(page.status, path).to.equal(200);
      expect(page.text, path).not.to.match(/ style=|<style|<script(?![^>]*src=)/);
      // A macro argument left undefined must never print a template function.
      expect(page.text, path).not.to.include('function macro');
    }
  });
});
