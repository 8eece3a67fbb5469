import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { pageMessages } from '../../models/pages/messages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makeChain, makePage, userWith, withoutIds } from './helpers.js';

describe('admin pages routes (/app/api/admin/pages)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  describe('permissions', () => {
    const routes: Array<[string, string, string, object?]> = [
      ['get', '/app/api/admin/pages', 'pages.view'],
      ['get', '/app/api/admin/pages/templates', 'pages.view'],
      ['get', '/app/api/admin/pages/1', 'pages.view'],
      // pages.manage alone creates drafts and moves; a live page or a live edit also needs pages.publish.
      ['post', '/app/api/admin/pages', 'pages.manage', { title: 'X', publish: false }],
      ['put', '/app/api/admin/pages/1', 'pages.manage', { parent_id: null }],
      ['post', '/app/api/admin/pages/1/duplicate', 'pages.manage', {}],
      ['delete', '/app/api/admin/pages/1', 'pages.manage'],
    ];

    for (const [method, path, permission, body] of routes) {
      it(`${method.toUpperCase()} ${path} answers 401 without a session and 403 without ${permission} or without admin.access`, async () => {
        await makePage(ctx, { title: 'Une' });
        const call = (cookie?: string) => {
          const req = (request(app) as unknown as Record<string, (path: string) => request.Test>)[method](path);
          if (cookie) req.set('Cookie', cookie);
          return body ? req.send(body) : req;
        };
        expect((await call()).status).to.equal(401);
        const other = permission === 'pages.view' ? 'pages.manage' : 'pages.view';
        const withoutPermission = await userWith(ctx, ['admin.access', other]);
        const denied = await call(withoutPermission.cookie);
        expect(denied.status).to.equal(403);
        expect(denied.body.code).to.equal('forbidden');
        const withoutAdminAccess = await userWith(ctx, [permission]);
        expect((await call(withoutAdminAccess.cookie)).status).to.equal(403);
        const allowed = await userWith(ctx, ['admin.access', permission]);
        expect((await call(allowed.cookie)).status).to.be.oneOf([200, 201, 204]);
      });
    }
  });

  it('POST creates a page with the defaults, records the author and answers 201', async () => {
    const res = await request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send({ title: 'Été à Paris' });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({
      title: 'Été à Paris',
      slug: 'ete-a-paris',
      template: 'default',
      visibility: 'public',
      parent_id: null,
      author_id: manager.id,
    });
    expect(res.body.blocks).to.deep.equal([]);
    expect(res.body.seo).to.deep.equal({});
    expect(await ctx.db('app_pages').where({ id: res.body.id }).first()).to.include({ title: 'Été à Paris' });
  });

  describe('errors of SPEC "Errors" (400 with the message)', () => {
    const cases: Array<[string, object, string]> = [
      ['a missing title', {}, '«\u00a0title\u00a0» est obligatoire.'],
      ['a blank title', { title: '   ' }, pageMessages.titleRequired],
      ['an invalid slug', { title: 'T', slug: 'Pas Bon' }, pageMessages.slugInvalid],
      ['a reserved root slug', { title: 'T', slug: 'assets' }, pageMessages.slugReserved('assets')],
      ['a parent that does not exist', { title: 'T', parent_id: 999 }, pageMessages.parentNotFound],
      ['an unknown template', { title: 'T', template: 'nope' }, pageMessages.templateUnknown('nope')],
      ['blocks that are not objects with a string type', { title: 'T', blocks: [{ text: 'no type' }] }, '«\u00a0blocks[0].type\u00a0» est obligatoire.'],
      ['seo that is not an object', { title: 'T', seo: 'x' }, '«\u00a0seo\u00a0» doit être un objet.'],
      ['a bad visibility', { title: 'T', visibility: 'draft' }, '«\u00a0visibility\u00a0» doit valoir'],
      ['created_at on create', { title: 'T', created_at: '2020-01-01' }, '«\u00a0created_at\u00a0» n’est pas un champ accepté.'],
      ['an unknown field', { title: 'T', owner: 1 }, '«\u00a0owner\u00a0» n’est pas un champ accepté.'],
    ];
    for (const [label, body, message] of cases) {
      it(`POST refuses ${label}`, async () => {
        const res = await request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send(body);
        expect(res.status).to.equal(400);
        const messages = [res.body.error, ...(res.body.details ?? []).map((detail: { message: string }) => detail.message)];
        expect(
          messages.some((text) => typeof text === 'string' && text.startsWith(message)),
          messages.join(' | '),
        ).to.equal(true);
        expect(await ctx.db('app_pages').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
      });
    }

    it('PUT refuses a cycle, a future created_at and an unreadable created_at', async () => {
      const [top, child] = await makeChain(ctx, 2);
      const put = (id: number, body: object) => request(app).put(`/app/api/admin/pages/${id}`).set('Cookie', manager.cookie).send(body);
      const cycle = await put(top, { parent_id: child });
      expect(cycle.status).to.equal(400);
      expect(cycle.body.error).to.equal(pageMessages.cycle);
      const future = await put(top, { created_at: '2999-01-01T00:00:00Z' });
      expect(future.status).to.equal(400);
      expect(future.body.error).to.equal(pageMessages.createdAtFuture);
      const unreadable = await put(top, { created_at: 'demain' });
      expect(unreadable.status).to.equal(400);
      expect(unreadable.body.error).to.equal(pageMessages.createdAtInvalid);
      expect((await ctx.db('app_pages').where({ id: top }).first())!.parent_id).to.equal(null);
    });
  });

  describe('strict input (the API refuses what it does not declare)', () => {
    const put = (id: number | string, body: object) => request(app).put(`/app/api/admin/pages/${id}`).set('Cookie', manager.cookie).send(body);
    const post = (body: object) => request(app).post('/app/api/admin/pages').set('Cookie', manager.cookie).send(body);
    const count = async () => (await ctx.db('app_pages').count({ n: '*' }))[0].n;

    it('answers 400 for an id that is not plain decimal digits, on every route with an id', async () => {
      // Page 1000 exists: `1e3` must not reach it.
      await ctx.db.raw('SELECT setval(pg_get_serial_sequence(?, ?), 999)', ['app_pages', 'id']);
      const page = await makePage(ctx, { title: 'Mille' });
      expect(page.id).to.equal(1000);
      for (const id of ['1e3', '+1', '01', '0x1', '1.0', '2147483648']) {
        expect((await request(app).get(`/app/api/admin/pages/${id}`).set('Cookie', manager.cookie)).status, `GET ${id}`).to.equal(400);
        expect((await put(id, { title: 'X' })).status, `PUT ${id}`).to.equal(400);
        expect((await request(app).post(`/app/api/admin/pages/${id}/duplicate`).set('Cookie', manager.cookie)).status, `duplicate ${id}`).to.equal(400);
        expect((await request(app).delete(`/app/api/admin/pages/${id}`).set('Cookie', manager.cookie)).status, `DELETE ${id}`).to.equal(400);
      }
      expect((await request(app).get(`/app/api/admin/pages/${page.id}`).set('Cookie', manager.cookie)).status).to.equal(200);
      expect(await count()).to.equal(1);
    });

    it('PUT refuses an unknown field (400) and writes nothing', async () => {
      const page = await makePage(ctx, { title: 'Avant' });
      const res = await put(page.id, { title: 'Après', author_id: 1 });
      expect(res.status).to.equal(400);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['author_id']);
      expect((await ctx.db('app_pages').where({ id: page.id }).first())!.title).to.equal('Avant');
    });

    it('GET refuses an unknown query parameter (400)', async () => {
      const res = await request(app).get('/app/api/admin/pages?visibility=public&sort=title').set('Cookie', manager.cookie);
      expect(res.status).to.equal(400);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).to.deep.equal(['sort']);
      expect((await request(app).get('/app/api/admin/pages?parent=1e3').set('Cookie', manager.cookie)).status).to.equal(400);
    });

    it('refuses an image block whose media id is out of range or names no media (400), and stores nothing', async () => {
      for (const mediaId of [99_999_999_999, 2_147_483_648, 0, -1, 1.5, 'x']) {
        const res = await post({ title: 'Image', blocks: [{ type: 'image', media_id: mediaId }] });
        expect(res.status, String(mediaId)).to.equal(400);
        expect(res.body.details[0].field).to.equal('blocks.0.media_id');
      }
      const missing = await post({ title: 'Image', blocks: [{ type: 'image', media_id: 4242 }] });
      expect(missing.status).to.equal(400);
      expect(missing.body.error).to.equal(pageMessages.mediaMissing);
      const page = await makePage(ctx, { title: 'Sans image' });
      expect((await put(page.id, { blocks: [{ type: 'image', media_id: 99_999_999_999 }] })).status).to.equal(400);
      expect(await count()).to.equal(1);
      expect((await ctx.db('app_pages').where({ id: page.id }).first())!.blocks).to.deep.equal([]);
    });

    it('refuses fields a block type does not declare, unsafe links and malformed known blocks', async () => {
      const cases: Array<[object, string]> = [
        [{ type: 'image', media_id: null, url: 'javascript:alert(1)' }, 'blocks.0.url'],
        [{ type: 'link', href: 'javascript:alert(1)', label: 'x' }, 'blocks.0.href'],
        [{ type: 'link', href: '//evil.example/', label: 'x' }, 'blocks.0.href'],
        [{ type: 'link', href: '/\\evil.example/', label: 'x' }, 'blocks.0.href'],
        [{ type: 'heading', text: 'T', level: 9 }, 'blocks.0.level'],
        [{ type: 'list', items: 'pas une liste' }, 'blocks.0.items'],
        [{ type: 'Pas un type' }, 'blocks.0.type'],
      ];
      for (const [block, field] of cases) {
        const res = await post({ title: 'Blocs', blocks: [block] });
        expect(res.status, JSON.stringify(block)).to.equal(400);
        expect(
          res.body.details.map((detail: { field: string }) => detail.field),
          JSON.stringify(block),
        ).to.include(field);
      }
      const seo = await post({ title: 'SEO', seo: { image: 'javascript:alert(1)' } });
      expect(seo.status).to.equal(400);
      expect((await post({ title: 'SEO', seo: { robots: 'none' } })).status).to.equal(400);
      expect(await count()).to.equal(0);
    });

    it('keeps a block of an unknown type as given', async () => {
      const res = await post({ title: 'Futur', blocks: [{ type: 'carte', lat: 48.85, lng: 2.35, nested: { label: 'Paris' } }] });
      expect(res.status).to.equal(201);
      expect(withoutIds(res.body.blocks)).to.deep.equal([{ type: 'carte', lat: 48.85, lng: 2.35, nested: { label: 'Paris' } }]);
    });

    it('refuses NUL and lone surrogates anywhere in a string, blocks and SEO included (400)', async () => {
      const page = await makePage(ctx, { title: 'Texte', blocks: [{ type: 'paragraph', text: 'garde' }] });
      const bodies = [
        { title: 'a\u0000b' },
        { blocks: [{ type: 'paragraph', text: 'a\u0000b' }] },
        { blocks: [{ type: 'list', items: ['ok', 'a\ud800b'] }] },
        { blocks: [{ type: 'carte', nested: { label: 'a\u0000' } }] },
        { blocks: [{ type: 'carte', 'clé\u0000': 1 }] },
        { seo: { description: 'a\udc00' } },
      ];
      for (const body of bodies) {
        // JSON.stringify writes NUL and lone surrogates as \u escapes, which the server decodes.
        const res = await put(page.id, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
      }
      expect(withoutIds((await ctx.db('app_pages').where({ id: page.id }).first())!.blocks)).to.deep.equal([{ type: 'paragraph', text: 'garde' }]);
    });

    it('PUT refuses a created_at that is not on the calendar or before 1970 (400)', async () => {
      const page = await makePage(ctx, { title: 'Datée' });
      for (const [value, message] of [
        ['2026-02-30', pageMessages.createdAtInvalid],
        ['2023-02-29', pageMessages.createdAtInvalid],
        ['2021-04-31T10:00:00Z', pageMessages.createdAtInvalid],
        ['2021-01-01T24:00:00Z', pageMessages.createdAtInvalid],
        ['1969-12-31', pageMessages.createdAtTooOld],
        ['0001-01-01', pageMessages.createdAtTooOld],
      ]) {
        const res = await put(page.id, { created_at: value });
        expect(res.status, value).to.equal(400);
        expect(res.body.error, value).to.equal(message);
      }
      const leap = await put(page.id, { created_at: '2024-02-29' });
      expect(leap.status).to.equal(200);
      expect(leap.body.created_at).to.equal('2024-02-29T00:00:00.000Z');
      expect((await put(page.id, { created_at: '1970-01-01T00:00:00Z' })).status).to.equal(200);
    });
  });

  it('GET lists light rows with visibility, limit (default 100) and offset', async () => {
    for (let index = 0; index < 105; index++)
      await makePage(ctx, { title: `Page ${String(index).padStart(3, '0')}`, visibility: index % 2 ? 'private' : 'public' });
    const all = await request(app).get('/app/api/admin/pages').set('Cookie', manager.cookie);
    expect(all.status).to.equal(200);
    expect(all.body).to.include({ total: 105, limit: 100, offset: 0 });
    expect(all.body.items).to.have.length(100);
    expect(all.body.items[0]).to.not.have.property('blocks');
    const privatePage = await request(app).get('/app/api/admin/pages?visibility=private&limit=5&offset=2').set('Cookie', manager.cookie);
    expect(privatePage.body.total).to.equal(52);
    expect(privatePage.body.items.map((page: { title: string }) => page.title)).to.deep.equal(['Page 005', 'Page 007', 'Page 009', 'Page 011', 'Page 013']);
    expect((await request(app).get('/app/api/admin/pages?limit=0').set('Cookie', manager.cookie)).status).to.equal(400);
    expect((await request(app).get('/app/api/admin/pages?visibility=draft').set('Cookie', manager.cookie)).status).to.equal(400);
  });

  it('GET /:id returns the full row; an unknown id is 404 and a non-numeric one 400', async () => {
    const page = await makePage(ctx, { title: 'Pleine', blocks: [{ type: 'paragraph', text: 'Bonjour' }], visibility: 'private' });
    const res = await request(app).get(`/app/api/admin/pages/${page.id}`).set('Cookie', manager.cookie);
    expect(res.status).to.equal(200);
    expect(withoutIds(res.body.blocks)).to.deep.equal([{ type: 'paragraph', text: 'Bonjour' }]);
    expect((await request(app).get('/app/api/admin/pages/999').set('Cookie', manager.cookie)).status).to.equal(404);
    expect((await request(app).get('/app/api/admin/pages/abc').set('Cookie', manager.cookie)).status).to.equal(400);
  });

  it('PUT writes only the fields present, visibility included, and records the editor', async () => {
    const page = await makePage(ctx, { title: 'Avant', seo: { description: 'garde' }, blocks: [{ type: 'paragraph', text: 'garde' }] });
    const res = await request(app)
      .put(`/app/api/admin/pages/${page.id}`)
      .set('Cookie', manager.cookie)
      .send({ visibility: 'private', created_at: '2021-03-04T05:06:07Z' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ title: 'Avant', visibility: 'private', created_at: '2021-03-04T05:06:07.000Z', updated_by: manager.id });
    expect(res.body.seo).to.deep.equal({ description: 'garde' });
    expect(withoutIds(res.body.blocks)).to.deep.equal([{ type: 'paragraph', text: 'garde' }]);
  });

  it('POST /:id/duplicate creates « (copie)» with a unique slug (201)', async () => {
    const page = await makePage(ctx, { title: 'Original', visibility: 'private', blocks: [{ type: 'heading', text: 'T' }] });
    const res = await request(app).post(`/app/api/admin/pages/${page.id}/duplicate`).set('Cookie', manager.cookie);
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ title: 'Original (copie)', slug: 'original-2', visibility: 'private' });
    expect(res.body.id).to.not.equal(page.id);
    expect((await request(app).post('/app/api/admin/pages/999/duplicate').set('Cookie', manager.cookie)).status).to.equal(404);
  });

  it('DELETE answers 409 for a page with children, removes the subtree with ?cascade=true (204)', async () => {
    const ids = await makeChain(ctx, 3);
    const refused = await request(app).delete(`/app/api/admin/pages/${ids[0]}`).set('Cookie', manager.cookie);
    expect(refused.status).to.equal(409);
    expect(refused.body.error).to.equal(pageMessages.hasChildren);
    const done = await request(app).delete(`/app/api/admin/pages/${ids[0]}?cascade=true`).set('Cookie', manager.cookie);
    expect(done.status).to.equal(204);
    expect(await ctx.db('app_pages').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    expect((await request(app).delete(`/app/api/admin/pages/${ids[0]}`).set('Cookie', manager.cookie)).status).to.equal(404);
  });

  it('GET /templates lists the registry, default first', async () => {
    const res = await request(app).get('/app/api/admin/pages/templates').set('Cookie', manager.cookie);
    expect(res.status).to.equal(200);
    expect(res.body.items[0]).to.deep.equal({ name: 'default', label: 'Page standard' });
    expect(res.body.items.map((template: { name: string }) => template.name)).to.include('section');
  });
});
