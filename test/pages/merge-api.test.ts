// Block ids and merged saves through the JSON API: every block carries a stable id, and
// a save based on an older revision is merged three-way when it says `"merge": true`.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { revisionMessages } from '../../models/pages/messages.js';
import { blockMessages } from '../../models/pages/messages.js';
import { up as giveBlockIds } from '../../migrations/pages/20261126004000_pages_block_ids.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { countStatements, makePage, storeRawPage, userWith } from './helpers.js';

const paragraphs = (count: number) => Array.from({ length: count }, (_, index) => ({ type: 'paragraph', text: `Paragraphe ${index + 1}` }));
type Stored = { id: string; type: string; text?: string };
const idsOf = (blocks: unknown) => (blocks as Stored[]).map((block) => block.id);

describe('block ids and merged saves (/app/api/admin/pages)', () => {
  let app: App;
  let ctx: AppContext;
  let manager: { id: number; cookie: string };
  const put = (path: string, body: object) => request(app).put(path).set('Cookie', manager.cookie).send(body);
  const post = (path: string, body?: object) =>
    request(app)
      .post(path)
      .set('Cookie', manager.cookie)
      .send(body ?? {});
  const live = async (id: number) => (await ctx.db('app_pages').where({ id }).first())!;
  const revisions = async (id: number) => Number((await ctx.db('app_page_revisions').where({ page_id: id }).count({ n: '*' }).first())?.n);
  const draftRow = async (id: number) => {
    const page = await live(id);
    return (await ctx
      .db('app_page_revisions')
      .where({ page_id: id, number: page.draft_revision as number })
      .first())!;
  };

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  after(() => closeTestApp(app));
  beforeEach(async () => {
    await resetData(ctx);
    manager = await userWith(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish']);
  });

  /** A live page of three paragraphs; returns its id, its block ids and its revision. */
  async function threeBlocks(): Promise<{ id: number; ids: string[]; revision: number; blocks: Stored[] }> {
    const res = await post('/app/api/admin/pages', { title: 'Horaires', blocks: paragraphs(3) });
    expect(res.status).to.equal(201);
    const blocks = res.body.blocks as Stored[];
    return { id: res.body.id, ids: blocks.map((block) => block.id), revision: res.body.revision, blocks };
  }

  const edit = (blocks: Stored[], index: number, text: string) => blocks.map((block, at) => (at === index ? { ...block, text } : block));

  describe('block ids', () => {
    it('are given by the server when absent, and kept through saves, moves, drafts, publication and restores', async () => {
      const { id, ids, blocks } = await threeBlocks();
      expect(ids.every((blockId) => /^[a-z0-9]{12}$/.test(blockId))).to.equal(true);
      expect(new Set(ids).size).to.equal(3);
      expect(idsOf((await live(id)).blocks)).to.deep.equal(ids);
      // Moved and edited live: the ids follow their blocks.
      const moved = [blocks[2], { ...blocks[0], text: 'Premier revu' }, blocks[1], { type: 'paragraph', text: 'Nouveau' }];
      const res = await put(`/app/api/admin/pages/${id}`, { blocks: moved });
      expect(res.status).to.equal(200);
      expect(res.body.blocks.slice(0, 3).map((block: Stored) => block.id)).to.deep.equal([ids[2], ids[0], ids[1]]);
      const added = res.body.blocks[3].id as string;
      expect(added)
        .to.match(/^[a-z0-9]{12}$/)
        .and.not.be.oneOf(ids);
      // A draft, its publication and a restore keep them.
      const draft = await put(`/app/api/admin/pages/${id}/draft`, { title: 'Nos horaires' });
      expect(draft.body.blocks.map((block: Stored) => block.id)).to.deep.equal([ids[2], ids[0], ids[1], added]);
      expect((await post(`/app/api/admin/pages/${id}/publish`)).status).to.equal(200);
      expect(idsOf((await live(id)).blocks)).to.deep.equal([ids[2], ids[0], ids[1], added]);
      const restored = await post(`/app/api/admin/pages/${id}/revisions/1/restore`);
      expect(restored.status).to.equal(201);
      expect(restored.body.blocks.map((block: Stored) => block.id)).to.deep.equal(ids);
      expect(idsOf((await draftRow(id)).blocks)).to.deep.equal(ids);
      expect((await request(app).get(`/app/api/admin/pages/${id}`).set('Cookie', manager.cookie)).body.blocks[0].id).to.equal(ids[2]);
    });

    it('refuses two blocks with one id and an id of another shape (400), writing nothing', async () => {
      const { id, ids } = await threeBlocks();
      const twice = await put(`/app/api/admin/pages/${id}`, {
        blocks: [
          { type: 'paragraph', text: 'A', id: ids[0] },
          { type: 'paragraph', text: 'B', id: ids[0] },
        ],
      });
      expect(twice.status).to.equal(400);
      expect(twice.body.details).to.deep.equal([{ field: 'blocks.1.id', message: blockMessages.idTaken }]);
      const shape = await put(`/app/api/admin/pages/${id}/draft`, { blocks: [{ type: 'paragraph', text: 'A', id: 'Pas Un Id' }] });
      expect(shape.status).to.equal(400);
      expect(shape.body.details[0]).to.include({ field: 'blocks.0.id', message: blockMessages.idInvalid });
      expect(await live(id)).to.include({ revision: 1, draft_revision: null });
      expect(await revisions(id)).to.equal(1);
    });

    it('are given to the blocks stored before them by the migration: b1, b2… in the page and in its revisions', async () => {
      const raw = await storeRawPage(ctx, {
        title: 'Ancienne',
        slug: 'ancienne',
        blocks: [
          { type: 'paragraph', text: 'Un' },
          { type: 'widget', data: 1 },
        ],
      });
      await ctx.db('app_page_revisions').insert({
        page_id: raw,
        number: 1,
        title: 'Ancienne',
        slug: 'ancienne',
        template: 'default',
        blocks: JSON.stringify([{ type: 'paragraph', text: 'Un' }]),
        seo: '{}',
        visibility: 'public',
        created_at: new Date(),
        recorded_at: new Date(),
      });
      const kept = await makePage(ctx, { title: 'Récente', blocks: paragraphs(1) });
      const before = (await live(kept.id)).blocks;
      await giveBlockIds(ctx.db);
      expect((await live(raw)).blocks).to.deep.equal([
        { type: 'paragraph', text: 'Un', id: 'b1' },
        { type: 'widget', data: 1, id: 'b2' },
      ]);
      expect((await ctx.db('app_page_revisions').where({ page_id: raw, number: 1 }).first())!.blocks).to.deep.equal([
        { type: 'paragraph', text: 'Un', id: 'b1' },
      ]);
      expect((await live(kept.id)).blocks).to.deep.equal(before);
    });
  });

  describe('a stale if_revision', () => {
    it('is still refused (409 revision_conflict) without "merge": true', async () => {
      const { id, blocks, revision } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 0, 'Claire'), if_revision: revision })).status).to.equal(200);
      const stale = await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 2, 'Bruno'), if_revision: revision });
      expect(stale.status).to.equal(409);
      expect(stale.body).to.include({ code: 'revision_conflict' }).and.not.have.property('conflicts');
      expect(await revisions(id)).to.equal(2);
    });

    it('PUT …/draft with "merge": true keeps both edits of different blocks (200, merged: true)', async () => {
      const { id, blocks, revision, ids } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 0, 'Claire'), if_revision: revision })).status).to.equal(200);
      const res = await put(`/app/api/admin/pages/${id}/draft`, {
        title: 'Nos horaires',
        blocks: edit(blocks, 2, 'Bruno'),
        if_revision: revision,
        merge: true,
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ merged: true, title: 'Nos horaires', revision: 3, draft_revision: 3 });
      const { name } = (await ctx.db('app_auth_users').where({ id: manager.id }).first())!;
      expect(res.body.merged_with).to.deep.equal([name]);
      const expected = [
        { type: 'paragraph', text: 'Claire', id: ids[0] },
        { type: 'paragraph', text: 'Paragraphe 2', id: ids[1] },
        { type: 'paragraph', text: 'Bruno', id: ids[2] },
      ];
      expect(res.body.blocks).to.deep.equal(expected);
      expect(await draftRow(id)).to.deep.include({ title: 'Nos horaires', blocks: expected });
      const [event] = await ctx.db('app_audit_events').where({ action: 'page.draft_saved' }).orderBy('id', 'desc');
      expect(event.details).to.include({ merged_from: revision, revision: 3 });
    });

    it('PUT …/draft with "merge": true and a fresh revision saves as usual (merged: false)', async () => {
      const { id, blocks, revision } = await threeBlocks();
      const res = await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 0, 'Claire'), if_revision: revision, merge: true });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ merged: false, revision: 2 });
    });

    it('PUT …/draft with "merge": true answers 409 with only the clashing block field, both versions, and writes nothing', async () => {
      const { id, blocks, revision, ids } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 1, 'Claire'), if_revision: revision })).status).to.equal(200);
      const res = await put(`/app/api/admin/pages/${id}/draft`, { title: 'Autre titre', blocks: edit(blocks, 1, 'Bruno'), if_revision: revision, merge: true });
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ code: 'revision_conflict', error: revisionMessages.mergeConflict });
      expect(res.body.conflicts).to.deep.equal([{ block_id: ids[1], field: 'text', base: 'Paragraphe 2', mine: 'Bruno', theirs: 'Claire' }]);
      expect(res.body.current).to.include({ revision: 2, title: 'Horaires' });
      expect(await revisions(id)).to.equal(2);
      expect((await draftRow(id)).blocks[1]).to.include({ text: 'Claire' });
    });

    it('PUT …/draft with "merge": true: a block removed on one side and edited on the other is a conflict', async () => {
      const { id, blocks, revision, ids } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}/draft`, { blocks: edit(blocks, 2, 'Claire'), if_revision: revision })).status).to.equal(200);
      const res = await put(`/app/api/admin/pages/${id}/draft`, { blocks: blocks.slice(0, 2), if_revision: revision, merge: true });
      expect(res.status).to.equal(409);
      expect(res.body.conflicts).to.deep.equal([{ block_id: ids[2], base: blocks[2], mine: null, theirs: { ...blocks[2], text: 'Claire' } }]);
      expect(await revisions(id)).to.equal(2);
    });

    it('PUT /:id with "merge": true merges page fields and blocks into the live page (200, merged: true)', async () => {
      const { id, blocks, revision, ids } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}`, { slug: 'heures', blocks: edit(blocks, 0, 'Claire'), if_revision: revision })).status).to.equal(200);
      const stale = await put(`/app/api/admin/pages/${id}`, { title: 'Nos horaires', blocks: edit(blocks, 2, 'Bruno'), if_revision: revision });
      expect(stale.status).to.equal(409);
      const res = await put(`/app/api/admin/pages/${id}`, { title: 'Nos horaires', blocks: edit(blocks, 2, 'Bruno'), if_revision: revision, merge: true });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ merged: true, title: 'Nos horaires', slug: 'heures', revision: 3, published_revision: 3 });
      expect((await live(id)).blocks).to.deep.equal([
        { type: 'paragraph', text: 'Claire', id: ids[0] },
        { type: 'paragraph', text: 'Paragraphe 2', id: ids[1] },
        { type: 'paragraph', text: 'Bruno', id: ids[2] },
      ]);
      expect(await live(id)).to.include({ title: 'Nos horaires', slug: 'heures' });
    });

    it('PUT /:id with "merge": true: the same page field changed both ways is a conflict (409), nothing written', async () => {
      const { id, revision } = await threeBlocks();
      expect((await put(`/app/api/admin/pages/${id}`, { title: 'Heures', if_revision: revision })).status).to.equal(200);
      const res = await put(`/app/api/admin/pages/${id}`, { title: 'Nos horaires', if_revision: revision, merge: true });
      expect(res.status).to.equal(409);
      expect(res.body.conflicts).to.deep.equal([{ field: 'title', base: 'Horaires', mine: 'Nos horaires', theirs: 'Heures' }]);
      expect(await live(id)).to.include({ title: 'Heures', revision: 2 });
    });

    it('refuses a "merge" that is not a boolean (400)', async () => {
      const { id } = await threeBlocks();
      const res = await put(`/app/api/admin/pages/${id}/draft`, { title: 'X', merge: 'oui' });
      expect(res.status).to.equal(400);
      expect(await revisions(id)).to.equal(1);
    });
  });

  describe('statements', () => {
    it('a draft save costs the same whatever the number of blocks, and a merged one one statement more', async () => {
      const cost = async (count: number, stale: boolean) => {
        const res = await post('/app/api/admin/pages', { title: `Page ${count} ${stale}`, blocks: paragraphs(count) });
        const blocks = res.body.blocks as Stored[];
        const revision = res.body.revision as number;
        if (stale) await put(`/app/api/admin/pages/${res.body.id}/draft`, { blocks: edit(blocks, 0, 'Autre'), if_revision: revision }).expect(200);
        const body = { blocks: edit(blocks, count - 1, 'Fin'), if_revision: revision, merge: true };
        const counted = await countStatements(ctx, () => put(`/app/api/admin/pages/${res.body.id}/draft`, body).expect(200));
        expect(counted.result.body.merged).to.equal(stale);
        return counted.count;
      };
      const [fresh3, fresh60, merged3, merged60] = [await cost(3, false), await cost(60, false), await cost(3, true), await cost(60, true)];
      expect(fresh60).to.equal(fresh3);
      expect(merged60).to.equal(merged3);
      expect(merged3).to.equal(fresh3 + 1);
    });

    it('a live save likewise: the same for 3 and 60 blocks, a merged one one statement more', async () => {
      const cost = async (count: number, stale: boolean) => {
        const res = await post('/app/api/admin/pages', { title: `Page ${count} ${stale}`, blocks: paragraphs(count) });
        const blocks = res.body.blocks as Stored[];
        const revision = res.body.revision as number;
        if (stale) await put(`/app/api/admin/pages/${res.body.id}`, { blocks: edit(blocks, 0, 'Autre'), if_revision: revision }).expect(200);
        const body = { blocks: edit(blocks, count - 1, 'Fin'), if_revision: revision, merge: true };
        return (await countStatements(ctx, () => put(`/app/api/admin/pages/${res.body.id}`, body).expect(200))).count;
      };
      const [fresh3, fresh60, merged3, merged60] = [await cost(3, false), await cost(60, false), await cost(3, true), await cost(60, true)];
      expect(fresh60).to.equal(fresh3);
      expect(merged60).to.equal(merged3);
      expect(merged3).to.equal(fresh3 + 1);
    });
  });
});
