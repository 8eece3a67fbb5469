// For every row of /admin (core and modules), /admin/profile and /account, malformed
// submissions (empty or invalid fields, NUL characters, arrays, ids that are not ids,
// missing CSRF token, files that are not images) → the expected 4xx page (a form shown
// again with its messages, or the error page), never a 500, and nothing written. A
// row without a case fails this file. Unknown paths answer the error page's 404.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { profileRoutes } from '../../../routes/account.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, caller } from '../../support/fixtures.js';
import { makeFixture, mounted, registeredRows, type AdminBadInput, type Fixture, type FormFields as Fields } from '../../support/route-table.js';
import { fixtureModules } from '../../support/modules.js';
import { textOf } from '../../support/admin-client.js';

type Case = AdminBadInput;

const ONE_LINE = 'tient sur une seule ligne, sans caractère de contrôle';

const page = async (f: Fixture) => `/admin/pages/${(await f.page()).id}`;

function profileCases(prefix: string): Case[] {
  return [
    { row: `GET ${prefix}`, path: `${prefix}?email_change=%00&x=1`, status: 200, why: 'unknown or odd query parameters are ignored' },
    { row: `POST ${prefix}/name`, path: `${prefix}/name`, fields: { name: '   ' }, status: 400, why: 'blank name' },
    { row: `POST ${prefix}/name`, path: `${prefix}/name`, fields: { name: 'A\u0000B' }, status: 400, why: 'NUL in the name' },
    { row: `POST ${prefix}/name`, path: `${prefix}/name`, fields: { name: 'A\r\nB' }, status: 400, why: 'CR/LF in the name', notSingleLine: true },
    { row: `POST ${prefix}/review-emails`, path: `${prefix}/review-emails`, fields: { review_emails: 'peut-être' }, status: 400, why: 'not a checkbox value' },
    {
      row: `POST ${prefix}/email`,
      path: `${prefix}/email`,
      fields: { email: 'not-an-address', current_password: '' },
      status: 400,
      why: 'invalid address, no password',
    },
    {
      row: `POST ${prefix}/password`,
      path: `${prefix}/password`,
      fields: { current_password: PASSWORD, new_password: 'a new secret', confirm_password: 'another one' },
      status: 400,
      why: 'confirmation differs',
    },
    { row: `POST ${prefix}/picture`, path: `${prefix}/picture`, notAnImage: 'picture', status: 415, why: 'a file that is not an image' },
    { row: `POST ${prefix}/picture/delete`, path: `${prefix}/picture/delete`, noToken: true, status: 403, why: 'no CSRF token' },
    { row: `POST ${prefix}/sessions/delete-others`, path: `${prefix}/sessions/delete-others`, noToken: true, status: 403, why: 'no CSRF token' },
    { row: `POST ${prefix}/sessions/:sessionId/delete`, path: `${prefix}/sessions/not-hex/delete`, status: 400, why: 'malformed session id' },
    {
      row: `POST ${prefix}/passkeys/:id/delete`,
      path: `${prefix}/passkeys/abc/delete`,
      fields: { current_password: 'x' },
      status: 400,
      why: 'id not a number',
    },
    {
      row: `POST ${prefix}/passkeys/:id/delete`,
      path: `${prefix}/passkeys/1/delete`,
      fields: { current_password: '' },
      status: 400,
      why: 'empty current password',
    },
    { row: `POST ${prefix}/passkeys/:id/rename`, path: `${prefix}/passkeys/abc/rename`, fields: { name: 'x' }, status: 400, why: 'id not a number' },
    { row: `POST ${prefix}/passkeys/:id/rename`, path: `${prefix}/passkeys/1/rename`, fields: { name: '' }, status: 400, why: 'empty name' },
    { row: `GET ${prefix}/2fa`, path: `${prefix}/2fa?x=%00`, status: 200, why: 'unknown query parameters are ignored' },
    { row: `POST ${prefix}/2fa/setup`, path: `${prefix}/2fa/setup`, fields: { current_password: '' }, status: 400, why: 'empty current password' },
    { row: `POST ${prefix}/2fa/setup`, path: `${prefix}/2fa/setup`, fields: { current_password: PASSWORD }, noToken: true, status: 403, why: 'no CSRF token' },
    { row: `POST ${prefix}/2fa/enable`, path: `${prefix}/2fa/enable`, fields: { code: '12\u00003' }, status: 400, why: 'NUL in the code' },
    { row: `POST ${prefix}/2fa/enable`, path: `${prefix}/2fa/enable`, fields: { code: ['1', '2'] }, status: 400, why: 'code given twice' },
    {
      row: `POST ${prefix}/2fa/recovery-codes`,
      path: `${prefix}/2fa/recovery-codes`,
      fields: { current_password: PASSWORD, code: '' },
      status: 400,
      why: 'empty code',
    },
    {
      row: `POST ${prefix}/2fa/disable`,
      path: `${prefix}/2fa/disable`,
      fields: { current_password: PASSWORD, code: '<b>1</b>' },
      status: 400,
      why: 'markup in the code',
    },
    { row: `POST ${prefix}/sso/:provider/delete`, path: `${prefix}/sso/abc/delete`, status: 400, why: 'provider id not a number' },
    { row: `GET ${prefix}/delete`, path: `${prefix}/delete?x=%00`, status: 200, why: 'unknown query parameters are ignored' },
    { row: `POST ${prefix}/delete`, path: `${prefix}/delete`, fields: { current_password: '' }, status: 400, why: 'empty current password' },
    { row: `POST ${prefix}/delete`, path: `${prefix}/delete`, fields: { current_password: ['a', 'b'] }, status: 400, why: 'password given twice' },
    { row: `POST ${prefix}/delete`, path: `${prefix}/delete`, fields: { current_password: PASSWORD }, noToken: true, status: 403, why: 'no CSRF token' },
  ];
}

const SITE_CASES: Case[] = [
  { row: 'GET /admin', path: '/admin?x=%00', status: 200, why: 'unknown query parameters are ignored' },
  // Users
  { row: 'GET /admin/users', path: '/admin/users?page=abc', status: 400, why: 'page not a number' },
  { row: 'GET /admin/users', path: '/admin/users?search=%00', status: 400, why: 'NUL in the search' },
  { row: 'GET /admin/users/new', path: '/admin/users/new?role=x', status: 200, why: 'unknown query parameters are ignored' },
  {
    row: 'POST /admin/users',
    path: '/admin/users',
    fields: { name: '', email: 'not-an-address', role: 'user' },
    status: 400,
    why: 'empty name, invalid address',
  },
  { row: 'POST /admin/users', path: '/admin/users', fields: { name: ['A', 'B'], email: 'a@example.com', role: 'user' }, status: 400, why: 'name given twice' },
  {
    row: 'POST /admin/users',
    path: '/admin/users',
    fields: { name: 'A', email: 'a@example.com', role: 'bad<role>' },
    status: 400,
    why: 'role name outside its pattern',
  },
  {
    row: 'POST /admin/users',
    path: '/admin/users',
    fields: { name: 'A', email: 'a@example.com', role: 'user', password: 'short' },
    status: 400,
    why: 'password under 8 characters',
  },
  { row: 'GET /admin/users/:id', path: '/admin/users/1e3', status: 404, why: 'exponent id' },
  { row: 'GET /admin/users/:id', path: '/admin/users/99999999999', status: 404, why: 'id out of range' },
  { row: 'GET /admin/users/:id', path: '/admin/users/999999', status: 404, why: 'no such user' },
  { row: 'POST /admin/users/:id', path: (f) => `/admin/users/${f.target.id}`, fields: { name: '', role: 'user' }, status: 400, why: 'empty name' },
  {
    row: 'POST /admin/users/:id',
    path: (f) => `/admin/users/${f.target.id}`,
    fields: { name: 'A\u001b[2JB', role: 'user' },
    status: 400,
    why: 'ANSI escape in the name',
    notSingleLine: true,
  },
  {
    row: 'POST /admin/users',
    path: '/admin/users',
    fields: { name: 'A\u202eB', email: 'a@example.com', role: 'user' },
    status: 400,
    why: 'bidi override in the invited name',
    notSingleLine: true,
  },
  { row: 'POST /admin/users/:id', path: '/admin/users/abc', fields: { name: 'A', role: 'user' }, status: 404, why: 'id not a number' },
  { row: 'POST /admin/users/:id/verify', path: '/admin/users/999999/verify', status: 404, why: 'no such user' },
  { row: 'POST /admin/users/:id/verify', path: (f) => `/admin/users/${f.target.id}/verify`, noToken: true, status: 403, why: 'no CSRF token' },
  { row: 'POST /admin/users/:id/email', path: (f) => `/admin/users/${f.target.id}/email`, fields: { email: 'after@' }, status: 400, why: 'invalid address' },
  {
    row: 'POST /admin/users/:id/email',
    path: (f) => `/admin/users/${f.target.id}/email`,
    fields: { email: 'a\u0000@example.com' },
    status: 400,
    why: 'NUL in the address',
  },
  {
    row: 'POST /admin/users/:id/password',
    path: (f) => `/admin/users/${f.target.id}/password`,
    fields: { password: 'short' },
    status: 400,
    why: 'password under 8 characters',
  },
  { row: 'POST /admin/users/:id/send-password-reset', path: '/admin/users/-1/send-password-reset', status: 404, why: 'negative id' },
  { row: 'POST /admin/users/:id/resend-invitation', path: '/admin/users/abc/resend-invitation', status: 404, why: 'id not a number' },
  { row: 'POST /admin/users/:id/2fa/delete', path: '/admin/users/1e3/2fa/delete', status: 404, why: 'id in exponent form' },
  { row: 'POST /admin/users/:id/2fa/delete', path: (f) => `/admin/users/${f.target.id}/2fa/delete`, noToken: true, status: 403, why: 'no CSRF token' },
  { row: 'GET /admin/users/:id/suspend', path: '/admin/users/abc/suspend', status: 404, why: 'id not a number' },
  { row: 'GET /admin/users/:id/suspend', path: '/admin/users/999999/suspend', status: 404, why: 'no such user' },
  {
    row: 'POST /admin/users/:id/suspend',
    path: (f) => `/admin/users/${f.target.id}/suspend`,
    fields: { reason: 'x'.repeat(501) },
    status: 400,
    why: 'reason over 500 characters',
  },
  {
    row: 'POST /admin/users/:id/suspend',
    path: (f) => `/admin/users/${f.target.id}/suspend`,
    fields: { reason: 'a\u0000b' },
    status: 400,
    why: 'NUL in the reason',
  },
  { row: 'POST /admin/users/:id/suspend', path: (f) => `/admin/users/${f.target.id}/suspend`, noToken: true, status: 403, why: 'no CSRF token' },
  { row: 'POST /admin/users/:id/restore', path: '/admin/users/1e3/restore', status: 404, why: 'exponent id' },
  { row: 'POST /admin/users/:id/restore', path: (f) => `/admin/users/${f.target.id}/restore`, noToken: true, status: 403, why: 'no CSRF token' },
  { row: 'GET /admin/users/:id/delete', path: '/admin/users/-1/delete', status: 404, why: 'negative id' },
  { row: 'POST /admin/users/:id/delete', path: '/admin/users/abc/delete', status: 404, why: 'id not a number' },
  { row: 'POST /admin/users/:id/delete', path: (f) => `/admin/users/${f.target.id}/delete`, noToken: true, status: 403, why: 'no CSRF token' },
  { row: 'POST /admin/users/:id/delete', path: '/admin/users/999999/delete', status: 404, why: 'no such user' },
  {
    row: 'POST /admin/users/:id/roles',
    path: (f) => `/admin/users/${f.target.id}/roles`,
    fields: { role_id: 'abc' },
    status: 400,
    why: 'role id not a number',
  },
  { row: 'POST /admin/users/:id/roles/:roleId/delete', path: (f) => `/admin/users/${f.target.id}/roles/x/delete`, status: 404, why: 'role id not a number' },
  // Roles
  { row: 'GET /admin/roles', path: '/admin/roles?limit=abc', status: 200, why: 'unknown query parameters are ignored' },
  { row: 'GET /admin/audit', path: '/admin/audit?cursor=abc', status: 400, why: 'cursor this screen did not give' },
  { row: 'GET /admin/audit', path: '/admin/audit?actor_id=1e3', status: 400, why: 'exponent actor id' },
  { row: 'GET /admin/audit', path: '/admin/audit?from=23/11/2026', status: 400, why: 'day not as a date field sends it' },
  { row: 'GET /admin/audit', path: '/admin/audit?target_id=%00', status: 400, why: 'NUL in the target' },
  { row: 'GET /admin/audit', path: '/admin/audit?target_id=12&target_type=', status: 400, why: 'target number without its type' },
  { row: 'GET /admin/audit', path: '/admin/audit?action=&actor_id=&x=1', status: 200, why: 'empty filters and unknown parameters are ignored' },
  { row: 'GET /admin/roles/new', path: '/admin/roles/new?x=1', status: 200, why: 'unknown query parameters are ignored' },
  { row: 'POST /admin/roles', path: '/admin/roles', fields: { name: 'bad/name' }, status: 400, why: 'role name outside its pattern' },
  { row: 'POST /admin/roles', path: '/admin/roles', fields: { name: 'ed', label: 'É\nd' }, status: 400, why: 'LF in the label', notSingleLine: true },
  {
    row: 'POST /admin/roles/:id',
    path: (f) => `/admin/roles/${f.spareRoleId}`,
    fields: { label: 'Ok', description: 'a\u2069b' },
    status: 400,
    why: 'bidi isolate in the description',
    notSingleLine: true,
  },
  {
    row: 'POST /admin/roles',
    path: '/admin/roles',
    fields: { name: 'valid', permissions: 'no.such.permission' },
    status: 400,
    why: 'permission outside the catalogue',
  },
  { row: 'GET /admin/roles/:id', path: '/admin/roles/abc', status: 404, why: 'id not a number' },
  // An empty key is derived from the label (issue 26); a key with a slash is not one.
  {
    row: 'POST /admin/roles/:id',
    path: (f) => `/admin/roles/${f.spareRoleId}`,
    fields: { name: 'bad/name', description: '' },
    status: 400,
    why: 'key with a slash',
  },
  { row: 'GET /admin/roles/:id/delete', path: '/admin/roles/0/delete', status: 404, why: 'id zero' },
  { row: 'POST /admin/roles/:id/delete', path: '/admin/roles/1/delete', status: 409, why: 'a system role' },
  // Pages module: pages and blocks
  { row: 'GET /admin/pages', path: '/admin/pages?visibility=hidden', status: 400, why: 'unknown visibility' },
  { row: 'GET /admin/pages/new', path: '/admin/pages/new?parent=abc', status: 400, why: 'parent not an id' },
  { row: 'GET /admin/pages/parent-candidates', path: '/admin/pages/parent-candidates?exclude=abc', status: 400, why: 'exclude not an id' },
  { row: 'POST /admin/pages', path: '/admin/pages', fields: { title: '  ', slug: 'Bad Slug' }, status: 400, why: 'blank title' },
  { row: 'GET /admin/pages/:id', path: '/admin/pages/abc', status: 404, why: 'id not a number' },
  { row: 'POST /admin/pages/:id', path: page, fields: { if_revision: '1', title: 'T\u0000' }, status: 400, why: 'NUL in the title' },
  { row: 'POST /admin/pages/:id', path: page, fields: { if_revision: '1', title: 'T\nU' }, status: 400, why: 'LF in the title', notSingleLine: true },
  {
    row: 'POST /admin/pages/:id/live-preview',
    path: async (f) => `${await page(f)}/live-preview`,
    fields: { title: 'T\u0000' },
    status: 400,
    why: 'NUL in the title',
  },
  {
    row: 'POST /admin/pages/:id/live-preview',
    path: '/admin/pages/999999/live-preview',
    fields: { title: 'T', template: 'default', visibility: 'public' },
    status: 404,
    why: 'no such page',
  },
  { row: 'POST /admin/pages/:id/preview', path: '/admin/pages/999999/preview', status: 404, why: 'no such page' },
  { row: 'POST /admin/pages/:id/preview-links/revoke', path: '/admin/pages/999999/preview-links/revoke', status: 404, why: 'no such page' },
  { row: 'POST /admin/pages/:id/preview-links/revoke', path: '/admin/pages/1e3/preview-links/revoke', status: 404, why: 'exponent id' },
  { row: 'GET /admin/pages/:id/permissions', path: '/admin/pages/999999/permissions', status: 404, why: 'no such page' },
  {
    row: 'POST /admin/pages/:id/permissions',
    path: async (f) => `${await page(f)}/permissions`,
    fields: { role_id: 'abc', permissions: 'pages.view' },
    status: 400,
    why: 'role not an id',
  },
  {
    row: 'POST /admin/pages/:id/permissions',
    path: async (f) => `${await page(f)}/permissions`,
    fields: { role_id: '1', permissions: 'users.manage' },
    status: 400,
    why: 'not a pages permission',
  },
  {
    row: 'POST /admin/pages/:id/permissions/:grantId/delete',
    path: async (f) => `${await page(f)}/permissions/999999/delete`,
    status: 404,
    why: 'no such grant',
  },
  { row: 'GET /admin/pages/:id/revisions', path: async (f) => `${await page(f)}/revisions?page=0`, status: 400, why: 'page zero' },
  { row: 'GET /admin/pages/:id/revisions/compare', path: async (f) => `${await page(f)}/revisions/compare?a=un&b=1`, status: 400, why: 'a not a number' },
  { row: 'POST /admin/pages/:id/revisions/:number/restore', path: async (f) => `${await page(f)}/revisions/999/restore`, status: 404, why: 'no such revision' },
  { row: 'POST /admin/pages/:id/duplicate', path: '/admin/pages/999999/duplicate', status: 404, why: 'no such page' },
  { row: 'GET /admin/pages/:id/delete', path: '/admin/pages/1.5/delete', status: 404, why: 'id not an integer' },
  { row: 'POST /admin/pages/:id/delete', path: '/admin/pages/999999/delete', status: 404, why: 'no such page' },
  {
    row: 'POST /admin/pages/:id/access',
    path: async (f) => `${await page(f)}/access`,
    fields: { access: 'partout' },
    status: 400,
    why: 'access not everyone, members or roles',
  },
  { row: 'GET /admin/pages/:id/review', path: '/admin/pages/1e3/review', status: 404, why: 'exponent id' },
  { row: 'POST /admin/pages/:id/review', path: async (f) => `${await page(f)}/review`, fields: { comment: 'a\u0000' }, status: 400, why: 'NUL in the comment' },
  {
    row: 'POST /admin/pages/:id/review/approve',
    path: async (f) => `${await page(f)}/review/approve`,
    fields: { revision: 'dernière' },
    status: 400,
    why: 'revision not a number',
  },
  {
    row: 'POST /admin/pages/:id/review/reject',
    path: async (f) => `${await page(f)}/review/reject`,
    fields: { comment: '  ' },
    status: 400,
    why: 'blank comment',
  },
  // Pages module: media library
  { row: 'GET /admin/media', path: '/admin/media?page=0', status: 400, why: 'page zero' },
  { row: 'POST /admin/media', path: '/admin/media', notAnImage: 'file', status: 415, why: 'a file that is not an image' },
  { row: 'POST /admin/media', path: '/admin/media', fields: { alt: 'no file' }, status: 415, why: 'a form without multipart' },
  { row: 'GET /admin/media/:id', path: '/admin/media/abc', status: 404, why: 'id not a number' },
  {
    row: 'POST /admin/media/:id',
    path: async (f) => `/admin/media/${(await f.media()).id}`,
    fields: { alt: 'x'.repeat(600) },
    status: 400,
    why: 'alt text too long',
  },
  { row: 'POST /admin/media/:id/delete', path: '/admin/media/999999/delete', status: 404, why: 'no such media' },
  // Pages module: redirects
  { row: 'GET /admin/redirects', path: '/admin/redirects?page=0', status: 400, why: 'page zero' },
  { row: 'POST /admin/redirects', path: '/admin/redirects', fields: { from: '', page_id: '' }, status: 400, why: 'empty fields' },
  { row: 'POST /admin/redirects', path: '/admin/redirects', fields: { from: '/admin/x', page_id: '1' }, status: 400, why: 'a path the site keeps' },
  { row: 'POST /admin/redirects/:id/delete', path: '/admin/redirects/999999/delete', status: 404, why: 'no such redirect' },
  // Settings module
  { row: 'GET /admin/settings', path: '/admin/settings?home_q=' + 'x'.repeat(300), status: 400, why: 'search too long' },
  { row: 'POST /admin/settings', path: '/admin/settings', fields: { title: '', theme: 'default' }, status: 400, why: 'empty title' },
  { row: 'POST /admin/settings', path: '/admin/settings', fields: { title: 'Mon site', accent_colour: 'rouge' }, status: 400, why: 'colour not #rrggbb' },
  { row: 'POST /admin/settings', path: '/admin/settings', fields: { title: 'Mon site', home_page_id: '1e3' }, status: 400, why: 'exponent home page id' },
  { row: 'POST /admin/settings', path: '/admin/settings', fields: { title: 'Mon site', time_zone: 'Mars/Olympus' }, status: 400, why: 'unknown time zone' },
  { row: 'POST /admin/settings', path: '/admin/settings', fields: { title: 'Mon\nsite' }, status: 400, why: 'line break in the title', notSingleLine: true },
  { row: 'POST /admin/settings/:image', path: '/admin/settings/logo', notAnImage: 'file', status: 415, why: 'not an image' },
  { row: 'POST /admin/settings/:image/delete', path: '/admin/settings/banner/delete', status: 400, why: 'unknown image' },
  { row: 'GET /admin/sample-content/delete', path: '/admin/sample-content/delete?x=1', status: 200, why: 'unknown query parameters are ignored' },
  { row: 'POST /admin/sample-content/delete', path: '/admin/sample-content/delete', fields: { confirm: 'oui' }, status: 400, why: 'not the confirmation' },
  // Pages module: menus
  { row: 'GET /admin/menus', path: '/admin/menus?x=%00', status: 200, why: 'unknown query parameters are ignored' },
  {
    row: 'POST /admin/menus/:name',
    path: '/admin/menus/header',
    fields: { label_0: 'X', url_0: 'javascript:alert(1)', level_0: '0', action: 'save' },
    status: 400,
    why: 'javascript: address',
  },
  {
    row: 'POST /admin/menus/:name',
    path: '/admin/menus/footer',
    fields: { label_0: 'A\r\nB', url_0: '/a', level_0: '0' },
    status: 400,
    why: 'CR/LF in a label',
    notSingleLine: true,
  },
  {
    row: 'POST /admin/menus/:name',
    path: '/admin/menus/footer',
    fields: { label_0: 'A\u0000', url_0: '/a', level_0: '0' },
    status: 400,
    why: 'NUL in a label',
  },
  {
    row: 'POST /admin/menus/:name',
    path: '/admin/menus/footer',
    fields: { label_0: ['A', 'B'], url_0: '/a', level_0: '0' },
    status: 400,
    why: 'a label given twice',
  },
  { row: 'POST /admin/menus/:name', path: '/admin/menus/sidebar', fields: { action: 'save' }, status: 404, why: 'no such menu' },
  // Single sign-on providers
  { row: 'GET /admin/sign-in', path: '/admin/sign-in?x=%00', status: 200, why: 'unknown query parameters are ignored' },
  {
    row: 'POST /admin/sign-in',
    path: '/admin/sign-in',
    fields: { label: '', issuer: 'not a url', client_id: '' },
    status: 400,
    why: 'empty label, issuer not a URL',
  },
  {
    row: 'POST /admin/sign-in',
    path: '/admin/sign-in',
    fields: { label: 'A', issuer: 'https://idp.example.com', client_id: 'c', allowed_domains: 'example.org not_a_domain' },
    status: 400,
    why: 'a domain that is not one',
  },
  { row: 'GET /admin/sign-in/:id', path: '/admin/sign-in/abc', status: 404, why: 'id not a number' },
  { row: 'POST /admin/sign-in/:id', path: '/admin/sign-in/abc', fields: { label: 'A' }, status: 404, why: 'id not a number' },
  { row: 'POST /admin/sign-in/:id/delete', path: '/admin/sign-in/abc/delete', status: 404, why: 'id not a number' },
  // The profile page, in both places
  ...profileCases('/admin/profile'),
  ...profileCases('/account'),
];

// The site's cases, then the fixture modules' (test/support/modules.ts).
const CASES: Case[] = [...SITE_CASES, ...fixtureModules().flatMap((fixture) => fixture.adminBadInput ?? [])];

const registry = registeredRows();
const ROWS = [...mounted(registry.adminRoutes, '/admin'), ...mounted(profileRoutes, '/admin/profile'), ...mounted(profileRoutes, '/account')];

async function formToken(app: App, cookie: string): Promise<{ cookie: string; token: string }> {
  const page = await request(app).get('/account').set('Cookie', cookie);
  const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1];
  const csrf = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((line) => line.startsWith('site.csrf='))!;
  return { cookie: `${cookie}; ${csrf.split(';')[0]}`, token };
}

describe('/admin and /account bad input', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('has at least one malformed submission for every row, and none for a row that does not exist', () => {
    const covered = new Set(CASES.map((entry) => entry.row));
    expect(ROWS.map((row) => row.key).filter((key) => !covered.has(key))).to.deep.equal([]);
    expect([...covered].filter((key) => !ROWS.some((row) => row.key === key))).to.deep.equal([]);
  });

  it('answers an unknown path under /admin, /admin/profile or /account with the error page’s 404, behind the guard', async () => {
    const admin = await caller(ctx, { role: 'admin' });
    for (const [method, path] of [
      ['get', '/admin/x'],
      ['post', '/admin/x'],
      ['get', '/admin/profile/x'],
      ['get', '/account/x'],
      ['post', '/account/x'],
      ['get', '/admin/users/1/unknown'],
    ] as const) {
      const response = await request(app)[method](path).set('Cookie', admin.cookie).set('Accept', 'text/html');
      expect(response.status, `${method} ${path}`).to.equal(404);
      expect(response.text, `${method} ${path}`).to.include('<title>Page introuvable');
    }
    // Without a session the guard answers first, known URL or not.
    expect((await request(app).get('/admin/x')).headers.location).to.equal('/auth/login?next=%2Fadmin%2Fx');
    expect((await request(app).get('/account/x')).headers.location).to.equal('/auth/login?next=%2Faccount%2Fx');
    const plain = await caller(ctx);
    expect((await request(app).get('/admin/x').set('Cookie', plain.cookie)).status).to.equal(403);
  });

  const tables = [
    'app_auth_users',
    'app_auth_accounts',
    'app_auth_roles',
    'app_auth_role_permissions',
    'app_auth_user_roles',
    'app_auth_verifications',
    'app_pages',
    'app_pages_media',
    'app_site_settings',
    'app_page_menus',
    ...fixtureModules().flatMap((fixture) => fixture.tables ?? []),
  ];
  const snapshot = () =>
    Promise.all(
      tables.map((table) =>
        ctx
          .db(table)
          .select()
          .then((rows) => JSON.stringify(rows)),
      ),
    );

  for (const entry of CASES) {
    const method = entry.row.split(' ')[0].toLowerCase() as 'get' | 'post';
    it(`${entry.row} (${entry.why}) → ${entry.status}`, async () => {
      const fixture = await makeFixture(ctx);
      const admin = await caller(ctx, { role: 'admin' });
      const path = typeof entry.path === 'function' ? await entry.path(fixture) : entry.path;
      const fields = typeof entry.fields === 'function' ? await entry.fields(fixture) : (entry.fields ?? {});
      const before = await snapshot();
      let response: request.Response;
      if (method === 'get') {
        response = await request(app).get(path).set('Cookie', admin.cookie);
      } else {
        const form = await formToken(app, admin.cookie);
        const all: Fields = entry.noToken ? fields : { _csrf: form.token, ...fields };
        let req = request(app).post(path).set('Cookie', form.cookie);
        if (entry.notAnImage) {
          for (const [name, value] of Object.entries(all)) for (const item of ([] as string[]).concat(value)) req = req.field(name, item);
          response = await req.attach(entry.notAnImage, Buffer.from('plain text, not an image'), { filename: 'a.png', contentType: 'image/png' });
        } else {
          const body = new URLSearchParams();
          for (const [name, value] of Object.entries(all)) for (const item of ([] as string[]).concat(value)) body.append(name, item);
          response = await req.type('form').send(body.toString());
        }
      }
      expect(response.status, textOf(response.text).slice(0, 400)).to.equal(entry.status);
      expect(response.headers['content-type']).to.match(/^text\/html/);
      if (entry.notSingleLine) expect(textOf(response.text)).to.include(ONE_LINE);
      expect(await snapshot()).to.deep.equal(before);
    });
  }
});
