// For every /app/api row the modules register, malformed requests (wrong types, arrays
// for strings, __proto__, unknown fields, NUL and lone surrogates, bad params,
// oversized or non-JSON bodies, cross-site writes) → a 4xx with the error shape, never
// a 500, and nothing written. A row without a case fails this file. Unknown paths,
// whatever the method, are a JSON 404.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { caller, makeUser } from '../../support/fixtures.js';
import { mounted, registeredRows, type ApiBadInput } from '../../support/route-table.js';
import { fixtureModules } from '../../support/modules.js';

type Case = ApiBadInput;

// What a name, label, description or title that does not fit on one line is told.
const ONE_LINE = 'tient sur une seule ligne, sans caractère de contrôle';

const T = 1; // the target user's id (first user after reset is the caller: see below)
const big = 'x'.repeat(110 * 1024);

const SITE_CASES: Case[] = [
  { method: 'get', route: '/users', path: '/users?limit=abc', status: 400, why: 'limit not a number' },
  { method: 'get', route: '/users', path: '/users?limit=1&limit=2', status: 400, why: 'limit given twice' },
  { method: 'get', route: '/users', path: '/users?offset=-1', status: 400, why: 'negative offset' },
  { method: 'get', route: '/users', path: '/users?search=a&search=b', status: 400, why: 'search given twice' },
  { method: 'get', route: '/users', path: '/users?sort=email', status: 400, why: 'unknown query parameter' },
  { method: 'post', route: '/users', path: '/users', body: { email: ['a@example.com'], name: 'A' }, status: 400, why: 'array for the email' },
  { method: 'post', route: '/users', path: '/users', body: { email: 'not-an-address', name: 'A' }, status: 400, why: 'invalid address' },
  { method: 'post', route: '/users', path: '/users', body: { email: 'a@example.com', name: 'A', email_verified: true }, status: 400, why: 'unknown field' },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    raw: { type: 'application/json', data: '{"email":"a@example.com","name":"A","__proto__":{"role":"admin"}}' },
    status: 400,
    why: '__proto__ key',
  },
  { method: 'post', route: '/users', path: '/users', raw: { type: 'application/json', data: '{"email":' }, status: 400, why: 'broken JSON' },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    raw: { type: 'application/x-www-form-urlencoded', data: 'email=a%40example.com&name=A' },
    status: 415,
    why: 'form body',
  },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    raw: { type: 'text/plain', data: '{"email":"a@example.com","name":"A"}' },
    status: 415,
    why: 'text/plain body',
  },
  { method: 'post', route: '/users', path: '/users', body: { email: 'a@example.com', name: big }, status: 413, why: 'body over the JSON limit' },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    body: { email: 'a@example.com', name: 'A', password: 'short' },
    status: 400,
    why: 'password under 8 characters',
  },
  { method: 'post', route: '/users', path: '/users', body: [{ email: 'a@example.com', name: 'A' }], status: 400, why: 'array body' },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    body: { email: 'a@example.com', name: 'A' },
    headers: { Origin: 'https://evil.example' },
    status: 403,
    why: 'cross-site Origin',
  },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    body: { email: 'a@example.com', name: 'A' },
    headers: { 'Sec-Fetch-Site': 'cross-site' },
    status: 403,
    why: 'cross-site fetch',
  },
  { method: 'get', route: '/users/:id', path: '/users/abc', status: 400, why: 'id not a number' },
  { method: 'get', route: '/users/:id', path: '/users/1.5', status: 400, why: 'id not an integer' },
  { method: 'get', route: '/users/:id', path: '/users/99999999999', status: 400, why: 'id out of range' },
  { method: 'get', route: '/users/:id', path: '/users/0', status: 400, why: 'id zero' },
  { method: 'put', route: '/users/:id', path: `/users/${T}`, body: {}, status: 400, why: 'empty body' },
  { method: 'put', route: '/users/:id', path: `/users/${T}`, body: { name: 42 }, status: 400, why: 'number for the name' },
  { method: 'put', route: '/users/:id', path: `/users/${T}`, body: { email_verified: 'maybe' }, status: 400, why: 'non-boolean email_verified' },
  { method: 'put', route: '/users/:id', path: `/users/${T}`, body: { role: ['admin'] }, status: 400, why: 'array for the role' },
  { method: 'put', route: '/users/:id', path: `/users/${T}`, body: { name: 'A', role_id: 1 }, status: 400, why: 'unknown field role_id' },
  { method: 'put', route: '/users/:id/email', path: `/users/${T}/email`, body: { email: { $ne: null } }, status: 400, why: 'object for the email' },
  { method: 'put', route: '/users/:id/password', path: `/users/${T}/password`, body: { password: 12345678 }, status: 400, why: 'number for the password' },
  { method: 'put', route: '/users/:id/password', path: `/users/${T}/password`, body: { password: 'é'.repeat(40) }, status: 400, why: 'password over 72 bytes' },
  {
    method: 'post',
    route: '/users/:id/send-password-reset',
    path: `/users/${T}/send-password-reset`,
    body: { email: 'x@example.com' },
    status: 400,
    why: 'unexpected body',
  },
  { method: 'post', route: '/users/:id/send-password-reset', path: '/users/999999/send-password-reset', status: 404, why: 'no such user' },
  { method: 'get', route: '/users/:id/roles', path: '/users/-1/roles', status: 400, why: 'negative id' },
  { method: 'post', route: '/users/:id/roles', path: `/users/${T}/roles`, body: { role_id: 'admin' }, status: 400, why: 'name for role_id' },
  { method: 'post', route: '/users/:id/roles', path: `/users/${T}/roles`, body: {}, status: 400, why: 'missing role_id' },
  { method: 'delete', route: '/users/:id/roles/:roleId', path: `/users/${T}/roles/abc`, status: 400, why: 'roleId not a number' },
  { method: 'put', route: '/users/profile', path: '/users/profile', body: { name: '' }, status: 400, why: 'empty name' },
  { method: 'put', route: '/users/profile', path: '/users/profile', body: { name: 'A', image: '/etc/passwd' }, status: 400, why: 'unknown field image' },
  {
    method: 'post',
    route: '/users/profile/email',
    path: '/users/profile/email',
    body: { email: 'b@example.com' },
    status: 400,
    why: 'missing current password',
  },
  {
    method: 'post',
    route: '/users/profile/email',
    path: '/users/profile/email',
    body: { email: ['b@example.com'], current_password: 'x' },
    status: 400,
    why: 'array for the email',
  },
  { method: 'get', route: '/users/email/confirm', path: '/users/email/confirm', status: 400, why: 'missing token' },
  { method: 'get', route: '/users/email/confirm', path: '/users/email/confirm?token=a&token=b', status: 400, why: 'token given twice' },
  { method: 'get', route: '/users/email/confirm', path: '/users/email/confirm?token=%3Cscript%3E', status: 400, why: 'token with foreign characters' },
  { method: 'post', route: '/users/email/confirm', path: '/users/email/confirm', body: {}, status: 400, why: 'missing token' },
  { method: 'post', route: '/users/email/confirm', path: '/users/email/confirm', body: { token: 'unknowntoken' }, status: 400, why: 'unknown token' },
  { method: 'post', route: '/users/email/confirm', path: '/users/email/confirm', body: { token: ['a', 'b'] }, status: 400, why: 'array for the token' },
  {
    method: 'post',
    route: '/users/email/confirm',
    path: '/users/email/confirm',
    body: { token: 'abc', email: 'x@example.com' },
    status: 400,
    why: 'unknown field',
  },
  {
    method: 'post',
    route: '/users/email/confirm',
    path: '/users/email/confirm',
    raw: { type: 'text/plain', data: 'token=abc' },
    status: 415,
    why: 'text/plain body',
  },
  {
    method: 'post',
    route: '/users/email/confirm',
    path: '/users/email/confirm',
    raw: { type: 'application/x-www-form-urlencoded', data: 'token=abc' },
    headers: { 'Sec-Fetch-Site': 'cross-site' },
    status: 403,
    why: 'form posted from another site',
  },
  {
    method: 'post',
    route: '/users/profile/password',
    path: '/users/profile/password',
    body: { current_password: true, new_password: 'abcdefghij' },
    status: 400,
    why: 'boolean for the password',
  },
  {
    method: 'post',
    route: '/users/profile/picture',
    path: '/users/profile/picture',
    body: { picture: 'data:image/png;base64,AAAA' },
    status: 415,
    why: 'JSON instead of multipart',
  },
  { method: 'delete', route: '/users/profile/picture', path: '/users/profile/picture?all=1', status: 400, why: 'unknown query parameter' },
  { method: 'get', route: '/users/profile/sessions', path: '/users/profile/sessions?limit=5', status: 400, why: 'unknown query parameter' },
  { method: 'delete', route: '/users/profile/sessions', path: '/users/profile/sessions?keep_current=perhaps', status: 400, why: 'non-boolean keep_current' },
  { method: 'delete', route: '/users/profile/sessions/:sessionId', path: '/users/profile/sessions/not-hex', status: 400, why: 'malformed session id' },
  { method: 'get', route: '/users/profile/passkeys', path: '/users/profile/passkeys?all=1', status: 400, why: 'unknown query parameter' },
  { method: 'post', route: '/users/profile/passkeys/options', path: '/users/profile/passkeys/options', body: {}, status: 400, why: 'missing current password' },
  { method: 'post', route: '/users/profile/passkeys', path: '/users/profile/passkeys', body: { name: 'Clé' }, status: 400, why: 'missing answer' },
  {
    method: 'post',
    route: '/users/profile/passkeys',
    path: '/users/profile/passkeys',
    body: { name: 'Clé', response: '{not json' },
    status: 400,
    why: 'answer as unreadable text',
  },
  {
    method: 'delete',
    route: '/users/profile/passkeys/:id',
    path: '/users/profile/passkeys/abc',
    body: { current_password: 'x' },
    status: 400,
    why: 'id not a number',
  },
  { method: 'patch', route: '/users/profile/passkeys/:id', path: '/users/profile/passkeys/abc', body: { name: 'x' }, status: 400, why: 'id not a number' },
  { method: 'patch', route: '/users/profile/passkeys/:id', path: '/users/profile/passkeys/1', body: { name: '' }, status: 400, why: 'empty name' },
  {
    method: 'patch',
    route: '/users/profile/passkeys/:id',
    path: '/users/profile/passkeys/1',
    body: { name: 'x', extra: 1 },
    status: 400,
    why: 'unknown field',
  },
  { method: 'get', route: '/users/profile/2fa', path: '/users/profile/2fa?secret=1', status: 400, why: 'unknown query parameter' },
  { method: 'post', route: '/users/profile/2fa/setup', path: '/users/profile/2fa/setup', body: {}, status: 400, why: 'missing current password' },
  {
    method: 'post',
    route: '/users/profile/2fa/setup',
    path: '/users/profile/2fa/setup',
    body: { current_password: 'x', secret: 'JBSWY3DPEHPK3PXP' },
    status: 400,
    why: 'a secret chosen by the client',
  },
  { method: 'post', route: '/users/profile/2fa/enable', path: '/users/profile/2fa/enable', body: { code: 123456 }, status: 400, why: 'code as a number' },
  { method: 'post', route: '/users/profile/2fa/enable', path: '/users/profile/2fa/enable', body: { code: '12<34>' }, status: 400, why: 'code with markup' },
  {
    method: 'post',
    route: '/users/profile/2fa/recovery-codes',
    path: '/users/profile/2fa/recovery-codes',
    body: { current_password: 'x', code: ['123456'] },
    status: 400,
    why: 'code as an array',
  },
  { method: 'delete', route: '/users/profile/2fa', path: '/users/profile/2fa', body: { current_password: 'x' }, status: 400, why: 'missing code' },
  {
    method: 'delete',
    route: '/users/profile/2fa',
    path: '/users/profile/2fa',
    body: { current_password: 'x', code: '1'.repeat(41) },
    status: 400,
    why: 'code too long',
  },
  { method: 'delete', route: '/users/:id/2fa', path: '/users/1e3/2fa', status: 400, why: 'id in exponent form' },
  { method: 'delete', route: '/users/:id/2fa', path: `/users/${T}/2fa`, body: { force: true }, status: 400, why: 'unknown field' },
  {
    method: 'delete',
    route: '/users/profile/sessions/:sessionId',
    path: `/users/profile/sessions/${'b'.repeat(32)}`,
    status: 404,
    why: 'someone else’s or no session',
  },
  { method: 'get', route: '/roles', path: '/roles?limit=0', status: 400, why: 'limit zero' },
  { method: 'post', route: '/roles', path: '/roles', body: { name: 'x', permissions: 'users.view' }, status: 400, why: 'string for permissions' },
  { method: 'post', route: '/roles', path: '/roles', body: { name: 'x', permissions: [1, 2] }, status: 400, why: 'numbers in permissions' },
  {
    method: 'post',
    route: '/roles',
    path: '/roles',
    body: { name: 'x', permissions: ['users.view', 'users.view'] },
    status: 400,
    why: 'duplicate permissions',
  },
  { method: 'post', route: '/roles', path: '/roles', body: { name: 'x', permissions: [], system: true }, status: 400, why: 'unknown field system' },
  { method: 'get', route: '/roles/:id', path: '/roles/abc', status: 400, why: 'id not a number' },
  { method: 'get', route: '/roles/:id', path: '/roles/999999', status: 404, why: 'no such role' },
  { method: 'put', route: '/roles/:id', path: '/roles/1', body: { permissions: null }, status: 400, why: 'null permissions' },
  { method: 'delete', route: '/roles/:id', path: '/roles/1e3', status: 400, why: 'exponent id' },
  { method: 'get', route: '/permissions', path: '/permissions?section=users', status: 400, why: 'unknown query parameter' },
  { method: 'get', route: '/audit', path: '/audit?sort=at', status: 400, why: 'unknown query parameter' },
  { method: 'get', route: '/audit', path: '/audit?cursor=not-a-cursor', status: 400, why: 'cursor this API did not give' },
  { method: 'get', route: '/audit', path: '/audit?actor_id=1e3', status: 400, why: 'exponent actor id' },
  { method: 'get', route: '/audit', path: '/audit?limit=201', status: 400, why: 'limit over 200' },
  { method: 'get', route: '/audit', path: '/audit?from=hier', status: 400, why: 'from not a date' },
  { method: 'get', route: '/audit', path: '/audit?action=Auth%20Login', status: 400, why: 'action outside its pattern' },
  { method: 'get', route: '/audit', path: '/audit?target_id=%00', status: 400, why: 'NUL in target_id' },
  { method: 'get', route: '/audit', path: '/audit?action=a&action=b', status: 400, why: 'action given twice' },
  { method: 'get', route: '/audit', path: '/audit?target_id=12', status: 400, why: 'target id without its type' },
  { method: 'post', route: '/users', path: '/users', body: { email: 'a@example.com', name: 'A\u0000B' }, status: 400, why: 'NUL in the name' },
  { method: 'post', route: '/users', path: '/users', body: { email: 'a@example.com', name: 'A\ud800' }, status: 400, why: 'lone surrogate in the name' },
  {
    method: 'post',
    route: '/users',
    path: '/users',
    body: { email: 'a@example.com', name: 'A', role: 'bad<role>' },
    status: 400,
    why: 'role name outside its pattern',
  },
  { method: 'post', route: '/users/:id/resend-invitation', path: '/users/abc/resend-invitation', status: 400, why: 'id not a number' },
  {
    method: 'post',
    route: '/users/:id/resend-invitation',
    path: `/users/${T}/resend-invitation`,
    body: { email: 'x@example.com' },
    status: 400,
    why: 'unexpected body',
  },
  { method: 'post', route: '/users/:id/invitation', path: '/users/abc/invitation', status: 400, why: 'id not a number' },
  { method: 'post', route: '/users/:id/invitation', path: `/users/${T}/invitation`, body: { email: 'x@example.com' }, status: 400, why: 'unexpected body' },
  // Account lifecycle
  { method: 'delete', route: '/users/:id', path: '/users/abc', status: 400, why: 'id not a number' },
  { method: 'delete', route: '/users/:id', path: '/users/999999', status: 404, why: 'no such user' },
  { method: 'delete', route: '/users/:id', path: `/users/${T}`, body: { force: true }, status: 400, why: 'unexpected body' },
  { method: 'post', route: '/users/:id/suspend', path: '/users/1e3/suspend', status: 400, why: 'exponent id' },
  { method: 'post', route: '/users/:id/suspend', path: `/users/${T}/suspend`, body: { reason: 5 }, status: 400, why: 'number for the reason' },
  {
    method: 'post',
    route: '/users/:id/suspend',
    path: `/users/${T}/suspend`,
    body: { reason: 'x'.repeat(501) },
    status: 400,
    why: 'reason over 500 characters',
  },
  { method: 'post', route: '/users/:id/suspend', path: `/users/${T}/suspend`, body: { reason: 'a\u0000b' }, status: 400, why: 'NUL in the reason' },
  { method: 'post', route: '/users/:id/suspend', path: `/users/${T}/suspend`, body: { reason: 'r', until: '2030-01-01' }, status: 400, why: 'unknown field' },
  { method: 'delete', route: '/users/:id/suspend', path: '/users/abc/suspend', status: 400, why: 'id not a number' },
  { method: 'delete', route: '/users/:id/suspend', path: `/users/${T}/suspend`, status: 409, why: 'not suspended' },
  { method: 'delete', route: '/users/profile', path: '/users/profile', body: {}, status: 400, why: 'missing current password' },
  { method: 'delete', route: '/users/profile', path: '/users/profile', body: { current_password: ['x'] }, status: 400, why: 'array for the password' },
  { method: 'delete', route: '/users/profile', path: '/users/profile', body: { current_password: 'x', confirm: true }, status: 400, why: 'unknown field' },
  { method: 'get', route: '/users/profile/export', path: '/users/profile/export?format=csv', status: 400, why: 'unknown query parameter' },
  { method: 'post', route: '/roles', path: '/roles', body: { name: 'bad/name', permissions: [] }, status: 400, why: 'role name outside its pattern' },
  { method: 'put', route: '/roles/:id', path: '/roles/1', body: { name: 'a\u0000b' }, status: 400, why: 'NUL in the role name' },
  // Control characters and bidirectional overrides in what a person types on one line
  {
    method: 'post',
    route: '/users',
    path: '/users',
    body: { email: 'a@example.com', name: 'A\r\nBcc: x' },
    status: 400,
    why: 'CR/LF in the name',
    notSingleLine: 'name',
  },
  {
    method: 'put',
    route: '/users/:id',
    path: `/users/${T}`,
    body: { name: '\u001b[31mRouge' },
    status: 400,
    why: 'ANSI escape in the name',
    notSingleLine: 'name',
  },
  {
    method: 'put',
    route: '/users/profile',
    path: '/users/profile',
    body: { name: 'gpj.\u202eexe' },
    status: 400,
    why: 'right-to-left override in the name',
    notSingleLine: 'name',
  },
  {
    method: 'post',
    route: '/roles',
    path: '/roles',
    body: { name: 'ed', label: 'É\u2066d', permissions: [] },
    status: 400,
    why: 'bidi isolate in the label',
    notSingleLine: 'label',
  },
  {
    method: 'post',
    route: '/roles',
    path: '/roles',
    body: { name: 'ed', description: 'a\tb', permissions: [] },
    status: 400,
    why: 'tab in the description',
    notSingleLine: 'description',
  },
  { method: 'put', route: '/roles/:id', path: '/roles/2', body: { label: 'a\u0085b' }, status: 400, why: 'C1 control in the label', notSingleLine: 'label' },
  {
    method: 'put',
    route: '/roles/:id',
    path: '/roles/2',
    body: { description: 'a\nb' },
    status: 400,
    why: 'LF in the description',
    notSingleLine: 'description',
  },
  { method: 'post', route: '/admin/pages', path: '/admin/pages', body: { title: 'T\u007f' }, status: 400, why: 'DEL in the title', notSingleLine: 'title' },
  // Pages module: admin routes
  { method: 'get', route: '/admin/pages', path: '/admin/pages?limit=abc', status: 400, why: 'limit not a number' },
  { method: 'get', route: '/admin/pages', path: '/admin/pages?visibility=hidden', status: 400, why: 'unknown visibility' },
  { method: 'post', route: '/admin/pages', path: '/admin/pages', body: { title: 42 }, status: 400, why: 'number for the title' },
  { method: 'post', route: '/admin/pages', path: '/admin/pages', body: { title: 'T', author_id: 1 }, status: 400, why: 'unknown field' },
  { method: 'post', route: '/admin/pages', path: '/admin/pages', body: { title: 'T\u0000' }, status: 400, why: 'NUL in the title' },
  { method: 'get', route: '/admin/pages/templates', path: '/admin/pages/templates?all=1', status: 400, why: 'unknown query parameter' },
  { method: 'delete', route: '/admin/sample-content', path: '/admin/sample-content?all=1', status: 400, why: 'unknown query parameter' },
  { method: 'get', route: '/admin/pages/:id', path: '/admin/pages/abc', status: 400, why: 'id not a number' },
  { method: 'put', route: '/admin/pages/:id', path: '/admin/pages/999999', body: { blocks: 'x' }, status: 400, why: 'string for the blocks' },
  { method: 'post', route: '/admin/pages/:id/duplicate', path: '/admin/pages/999999/duplicate', status: 404, why: 'no such page' },
  {
    method: 'post',
    route: '/admin/pages/:id/preview-link',
    path: '/admin/pages/1/preview-link',
    body: { revision: 'deux' },
    status: 400,
    why: 'revision not a number',
  },
  { method: 'post', route: '/admin/pages/:id/preview-link', path: '/admin/pages/999999/preview-link', body: {}, status: 404, why: 'no such page' },
  { method: 'delete', route: '/admin/pages/:id/preview-links', path: '/admin/pages/999999/preview-links', status: 404, why: 'no such page' },
  { method: 'post', route: '/admin/pages/:id/presence', path: '/admin/pages/999999/presence', body: {}, status: 404, why: 'no such page' },
  { method: 'post', route: '/admin/pages/:id/presence', path: '/admin/pages/abc/presence', body: {}, status: 400, why: 'id not a number' },
  { method: 'post', route: '/admin/pages/:id/presence', path: '/admin/pages/1/presence', body: { here: true }, status: 400, why: 'unexpected body' },
  { method: 'get', route: '/admin/pages/:id/presence', path: '/admin/pages/999999/presence', status: 404, why: 'no such page' },
  { method: 'get', route: '/admin/pages/:id/presence', path: '/admin/pages/0/presence', status: 400, why: 'id not positive' },
  { method: 'get', route: '/admin/pages/presence', path: '/admin/pages/presence?page=2', status: 400, why: 'unknown query parameter' },
  { method: 'delete', route: '/admin/pages/:id/preview-links', path: '/admin/pages/abc/preview-links', status: 400, why: 'id not a number' },
  { method: 'get', route: '/admin/pages/:id/permissions', path: '/admin/pages/1e3/permissions', status: 400, why: 'exponent id' },
  { method: 'get', route: '/admin/pages/:id/permissions', path: '/admin/pages/999999/permissions', status: 404, why: 'no such page' },
  {
    method: 'post',
    route: '/admin/pages/:id/permissions',
    path: '/admin/pages/1/permissions',
    body: { role_id: 1, permissions: ['pages.view'], inherited: true },
    status: 400,
    why: 'unknown field',
  },
  {
    method: 'post',
    route: '/admin/pages/:id/permissions',
    path: '/admin/pages/1/permissions',
    body: { role_id: 1, permissions: [] },
    status: 400,
    why: 'no permission',
  },
  {
    method: 'post',
    route: '/admin/pages/:id/permissions',
    path: '/admin/pages/1/permissions',
    body: { role_id: 1, permissions: ['pages.view\u0000'] },
    status: 400,
    why: 'NUL in a permission',
  },
  { method: 'delete', route: '/admin/pages/:id/permissions/:grantId', path: '/admin/pages/1/permissions/abc', status: 400, why: 'grant id not a number' },
  { method: 'delete', route: '/admin/pages/:id/permissions/:grantId', path: '/admin/pages/1/permissions/999999', status: 404, why: 'no such grant' },
  { method: 'delete', route: '/admin/pages/:id/preview-links', path: '/admin/pages/1/preview-links', body: { all: true }, status: 400, why: 'unexpected body' },
  { method: 'get', route: '/admin/pages/:id/revisions', path: '/admin/pages/1/revisions?limit=abc', status: 400, why: 'limit not a number' },
  { method: 'get', route: '/admin/pages/:id/revisions/:number', path: '/admin/pages/1/revisions/abc', status: 400, why: 'revision number not a number' },
  { method: 'post', route: '/admin/pages/:id/revisions/:number/restore', path: '/admin/pages/1/revisions/0/restore', status: 400, why: 'revision number zero' },
  { method: 'get', route: '/admin/pages/:id/draft', path: '/admin/pages/abc/draft', status: 400, why: 'id not a number' },
  { method: 'put', route: '/admin/pages/:id/draft', path: '/admin/pages/1/draft', body: { blocks: 'x' }, status: 400, why: 'string for the blocks' },
  { method: 'delete', route: '/admin/pages/:id/draft', path: '/admin/pages/abc/draft', status: 400, why: 'id not a number' },
  {
    method: 'post',
    route: '/admin/pages/:id/publish',
    path: '/admin/pages/1/publish',
    body: { at: 'demain' },
    status: 400,
    why: 'unreadable publication time',
  },
  { method: 'delete', route: '/admin/pages/:id/schedule', path: '/admin/pages/abc/schedule', status: 400, why: 'id not a number' },
  { method: 'get', route: '/admin/pages/:id/review', path: '/admin/pages/1e3/review', status: 400, why: 'exponent id' },
  { method: 'post', route: '/admin/pages/:id/review', path: '/admin/pages/1/review', body: { comment: 'x', reviewer: 2 }, status: 400, why: 'unknown field' },
  { method: 'post', route: '/admin/pages/:id/review', path: '/admin/pages/1/review', body: { at: 'bientôt' }, status: 400, why: 'unreadable publication time' },
  { method: 'post', route: '/admin/pages/:id/review/approve', path: '/admin/pages/1/review/approve', body: { comment: 'ok' }, status: 400, why: 'no revision' },
  {
    method: 'post',
    route: '/admin/pages/:id/review/approve',
    path: '/admin/pages/1/review/approve',
    body: { revision: 1, comment: 'a\u0000' },
    status: 400,
    why: 'NUL in the comment',
  },
  { method: 'post', route: '/admin/pages/:id/review/reject', path: '/admin/pages/1/review/reject', body: {}, status: 400, why: 'no comment' },
  {
    method: 'post',
    route: '/admin/pages/:id/review/reject',
    path: '/admin/pages/1/review/reject',
    body: { comment: 'x'.repeat(5001) },
    status: 400,
    why: 'comment too long',
  },
  { method: 'delete', route: '/admin/pages/:id', path: '/admin/pages/1?cascade=perhaps', status: 400, why: 'non-boolean cascade' },
  { method: 'get', route: '/admin/media', path: '/admin/media?limit=0', status: 400, why: 'limit zero' },
  { method: 'post', route: '/admin/media', path: '/admin/media', body: { file: 'data:image/png;base64,AAAA' }, status: 415, why: 'JSON instead of multipart' },
  { method: 'get', route: '/admin/media/:id', path: '/admin/media/abc', status: 400, why: 'id not a number' },
  { method: 'put', route: '/admin/media/:id', path: '/admin/media/999999', body: { alt: 5 }, status: 400, why: 'number for the alt text' },
  { method: 'delete', route: '/admin/media/:id', path: '/admin/media/1e3', status: 400, why: 'exponent id' },
  { method: 'get', route: '/admin/redirects', path: '/admin/redirects?limit=0', status: 400, why: 'limit zero' },
  { method: 'post', route: '/admin/redirects', path: '/admin/redirects', body: { from: '/a', page_id: 'un' }, status: 400, why: 'page id not a number' },
  { method: 'post', route: '/admin/redirects', path: '/admin/redirects', body: { from: 'Pas Bon', page_id: 1 }, status: 400, why: 'path not made of slugs' },
  { method: 'post', route: '/admin/redirects', path: '/admin/redirects', body: { from: '/a', page_id: 1, kind: 'manual' }, status: 400, why: 'unknown field' },
  { method: 'delete', route: '/admin/redirects/:id', path: '/admin/redirects/abc', status: 400, why: 'id not a number' },
  // Settings module
  { method: 'get', route: '/admin/settings', path: '/admin/settings?full=1', status: 400, why: 'unknown query parameter' },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { accent_colour: 'rouge' }, status: 400, why: 'colour not #rrggbb' },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { home_page_id: '1e3' }, status: 400, why: 'exponent home page id' },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { time_zone: 'Mars/Olympus' }, status: 400, why: 'unknown time zone' },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { theme: 'sombre' }, status: 400, why: 'theme not installed' },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { title: 'A\u0000B' }, status: 400, why: 'NUL in the title' },
  {
    method: 'put',
    route: '/admin/settings',
    path: '/admin/settings',
    body: { title: 'Mon\nsite' },
    status: 400,
    why: 'line break in the title',
    notSingleLine: 'title',
  },
  { method: 'put', route: '/admin/settings', path: '/admin/settings', body: { favicon_url: '/x.png' }, status: 400, why: 'unknown field' },
  {
    method: 'post',
    route: '/admin/settings/:image',
    path: '/admin/settings/logo',
    body: { file: 'data:image/png;base64,AAAA' },
    status: 415,
    why: 'JSON instead of multipart',
  },
  { method: 'delete', route: '/admin/settings/:image', path: '/admin/settings/banner', status: 400, why: 'unknown image' },
  { method: 'get', route: '/admin/themes', path: '/admin/themes?active=1', status: 400, why: 'unknown query parameter' },
  // Pages module: menus
  { method: 'get', route: '/admin/menus/:name', path: '/admin/menus/sidebar', status: 404, why: 'no such menu' },
  { method: 'get', route: '/admin/menus/:name', path: '/admin/menus/header?x=1', status: 400, why: 'unknown query parameter' },
  {
    method: 'put',
    route: '/admin/menus/:name',
    path: '/admin/menus/header',
    body: { items: [{ label: 'X', url: 'javascript:alert(1)' }] },
    status: 400,
    why: 'javascript: address',
  },
  {
    method: 'put',
    route: '/admin/menus/:name',
    path: '/admin/menus/header',
    body: { items: [{ page_id: 1, url: '/a' }] },
    status: 400,
    why: 'a page and an address',
  },
  {
    method: 'put',
    route: '/admin/menus/:name',
    path: '/admin/menus/header',
    body: { items: [{ label: 'X', url: '/a', colour: 'red' }] },
    status: 400,
    why: 'unknown field',
  },
  {
    method: 'put',
    route: '/admin/menus/:name',
    path: '/admin/menus/header',
    body: { items: [{ label: 'A\nB', url: '/a' }] },
    status: 400,
    why: 'LF in a label',
    notSingleLine: 'items[0].label',
  },
  {
    method: 'put',
    route: '/admin/menus/:name',
    path: '/admin/menus/header',
    body: { items: [{ label: 'A\u0000', url: '/a' }] },
    status: 400,
    why: 'NUL in a label',
  },
  { method: 'put', route: '/admin/menus/:name', path: '/admin/menus/sidebar', body: { items: [] }, status: 404, why: 'no such menu' },
  // Single sign-on providers
  { method: 'get', route: '/admin/sign-in/providers', path: '/admin/sign-in/providers?limit=1', status: 400, why: 'unknown query parameter' },
  {
    method: 'post',
    route: '/admin/sign-in/providers',
    path: '/admin/sign-in/providers',
    body: { label: 'A', issuer: 'ftp://idp.example.com', client_id: 'c' },
    status: 400,
    why: 'issuer neither https nor http',
  },
  {
    method: 'post',
    route: '/admin/sign-in/providers',
    path: '/admin/sign-in/providers',
    body: { label: 'A', issuer: 'https://idp.example.com', client_id: 'c', scopes: 'openid' },
    status: 400,
    why: 'string for the scopes',
  },
  { method: 'get', route: '/admin/sign-in/providers/:id', path: '/admin/sign-in/providers/abc', status: 400, why: 'id not a number' },
  { method: 'get', route: '/admin/sign-in/providers/:id', path: '/admin/sign-in/providers/999999', status: 404, why: 'no such provider' },
  { method: 'put', route: '/admin/sign-in/providers/:id', path: '/admin/sign-in/providers/1', body: {}, status: 400, why: 'nothing to change' },
  { method: 'put', route: '/admin/sign-in/providers/:id', path: '/admin/sign-in/providers/1', body: { enabled: 'maybe' }, status: 400, why: 'not a boolean' },
  { method: 'delete', route: '/admin/sign-in/providers/:id', path: '/admin/sign-in/providers/0', status: 400, why: 'id zero' },
  // Pages module: public reads
  { method: 'get', route: '/pages/by-path', path: '/pages/by-path', status: 400, why: 'missing path' },
  { method: 'get', route: '/pages', path: '/pages?limit=0', status: 400, why: 'limit zero' },
  { method: 'get', route: '/pages/search', path: '/pages/search?q=a', status: 400, why: 'one-character search' },
  { method: 'get', route: '/pages/search', path: '/pages/search?q=atelier&limit=51', status: 400, why: 'limit over 50' },
];

// The site's cases, then the fixture modules' (test/support/modules.ts).
const CASES: Case[] = [...SITE_CASES, ...fixtureModules().flatMap((fixture) => fixture.apiBadInput ?? [])];

const ROWS = mounted(registeredRows().apiRoutes);

describe('/app/api bad input', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('has at least one malformed request for every row, and none for a row that does not exist', () => {
    const covered = new Set(CASES.map((entry) => `${entry.method.toUpperCase()} ${entry.route}`));
    expect(ROWS.map((row) => row.key).filter((key) => !covered.has(key))).to.deep.equal([]);
    expect([...covered].filter((key) => !ROWS.some((row) => row.key === key))).to.deep.equal([]);
  });

  for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
    it(`${method.toUpperCase()} /app/api/does-not-exist → 404 {error, code: not_found}`, async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const response = await request(app)
        [method]('/app/api/does-not-exist')
        .set('Cookie', admin.cookie)
        .send(method === 'get' ? undefined : { x: 1 });
      expect(response.status).to.equal(404);
      expect(response.headers['content-type']).to.match(/^application\/json/);
      expect(response.body).to.include({ code: 'not_found' });
      expect(response.body.error).to.be.a('string');
    });
  }

  it('answers an unknown path with a JSON 404 without a session too, and for a method no row declares', async () => {
    for (const [method, path] of [
      ['post', '/app/api/does-not-exist'],
      ['get', '/app/api/users/1/unknown'],
      ['patch', '/app/api/users/1'],
    ] as const) {
      const response = await request(app)[method](path);
      expect(response.status, `${method} ${path}`).to.equal(404);
      expect(response.body.code).to.equal('not_found');
    }
  });

  const tables = [
    'app_auth_users',
    'app_auth_roles',
    'app_auth_role_permissions',
    'app_auth_user_roles',
    'app_pages',
    'app_pages_media',
    'app_site_settings',
    'app_page_menus',
    ...fixtureModules().flatMap((fixture) => fixture.tables ?? []),
  ];
  const snapshot = async () =>
    Promise.all(
      tables.map((table) =>
        ctx
          .db(table)
          .select()
          .then((rows) => JSON.stringify(rows)),
      ),
    );

  for (const entry of CASES) {
    it(`${entry.method.toUpperCase()} ${entry.path.slice(0, 60)} (${entry.why}) → ${entry.status}`, async () => {
      const target = await makeUser(ctx, { name: 'Target' });
      expect(target.id).to.equal(T);
      const admin = await caller(ctx, { role: 'admin' });
      const before = await snapshot();
      let req = request(app)
        [entry.method]('/app/api' + entry.path)
        .set('Cookie', admin.cookie);
      for (const [name, value] of Object.entries(entry.headers ?? {})) req = req.set(name, value);
      if (entry.raw) req = req.set('Content-Type', entry.raw.type).send(entry.raw.data);
      else if (entry.body !== undefined) req = req.send(entry.body as object);
      const response = await req;
      expect(response.status, JSON.stringify(response.body)).to.equal(entry.status);
      expect(response.body).to.have.property('error').that.is.a('string');
      expect(response.body).to.have.property('code').that.is.a('string');
      if (entry.notSingleLine) {
        const detail = response.body.details.find((item: { field: string }) => item.field === entry.notSingleLine);
        expect(detail?.message, JSON.stringify(response.body.details)).to.include(ONE_LINE);
      }
      expect(await snapshot()).to.deep.equal(before);
    });
  }
});
