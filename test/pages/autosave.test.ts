// Autosave (issue 23): `"autosave": true` on PUT /app/api/admin/pages/:id/draft (and the
// editor's own autosave, action=autosave on its form) continues the person's own recent
// autosaved revision instead of adding one each, so 20 autosaves in 10 minutes add at
// most one revision; an explicit save, another person's save, a preview link, another
// editor present or ten minutes start a new one. The application's clock is moved.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient } from '../support/admin-client.js';
import { caller } from '../support/fixtures.js';
import { formFields, setField } from './editor-form.js';
import { getDraft } from '../../models/pages/drafts.js';
import { countStatements, makePage } from './helpers.js';

const MANAGE = ['admin.access', 'pages.view', 'pages.manage'];
const START = Date.parse('2026-11-26T09:42:00Z');

describe('autosave of drafts', () => {
  let app: App;
  let ctx: AppContext;
  let now: number;
  let claire: Awaited<ReturnType<typeof caller>>;
  let paul: Awaited<ReturnType<typeof caller>>;

  const later = (ms: number) => {
    now += ms;
  };
  const put = (who: { cookie: string }, id: number, body: object) => request(app).put(`/app/api/admin/pages/${id}/draft`).set('Cookie', who.cookie).send(body);
  const revisions = async (id: number) =>
    ctx.db('app_page_revisions').where({ page_id: id }).orderBy('number').select('number', 'blocks', 'author_id', 'recorded_at', 'autosaved_at');
  const audits = async () => Number((await ctx.db('app_audit_events').where({ action: 'page.draft_saved' }).count({ n: '*' }).first())!.n);

  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  after(async () => {
    ctx.clock.set();
    await closeTestApp(app);
  });
  beforeEach(async () => {
    await resetData(ctx);
    now = START;
    ctx.clock.set(() => now);
    claire = await caller(ctx, { name: 'Claire Martin', permissions: MANAGE });
    paul = await caller(ctx, { name: 'Paul Durand', permissions: MANAGE });
  });

  async function horaires() {
    return makePage(ctx, { title: 'Horaires', blocks: [{ type: 'paragraph', text: 'Ouvert le samedi.' }] });
  }

  it('20 autosaves in 10 minutes add one revision, which holds the last text; the next explicit save adds another', async () => {
    const { id } = await horaires();
    const before = (await revisions(id)).length;
    let revision = (await ctx.db('app_pages').where({ id }).first())!.revision;
    for (let index = 1; index <= 20; index++) {
      const answer = await put(claire, id, {
        blocks: [{ type: 'paragraph', text: `Ouvert le samedi, version ${index}.` }],
        if_revision: revision,
        autosave: true,
      });
      expect(answer.status, `autosave ${index}`).to.equal(200);
      expect(answer.body.revision).to.equal(revision + 1);
      revision = answer.body.revision;
      later(29_000);
    }
    const rows = await revisions(id);
    expect(rows).to.have.length(before + 1);
    const last = rows[rows.length - 1];
    expect(last.blocks.map((block) => block.text)).to.deep.equal(['Ouvert le samedi, version 20.']);
    expect(last.number).to.equal(revision);
    expect(last.recorded_at.toISOString()).to.equal(new Date(START).toISOString());
    expect(last.autosaved_at!.toISOString()).to.equal(new Date(START + 19 * 29_000).toISOString());
    // One audit line for the run, not twenty.
    expect(await audits()).to.equal(1);
    const page = (await ctx.db('app_pages').where({ id }).first())!;
    expect(page).to.include({ revision, draft_revision: revision });
    // The draft reads what was typed last.
    expect((await request(app).get(`/app/api/admin/pages/${id}/draft`).set('Cookie', claire.cookie)).body.blocks[0].text).to.equal(
      'Ouvert le samedi, version 20.',
    );

    // An explicit save starts a new revision, and the autosave after it another.
    const explicit = await put(claire, id, { title: 'Horaires d’été', if_revision: revision });
    expect(explicit.status).to.equal(200);
    const next = await put(claire, id, { title: 'Horaires d’été 2026', if_revision: explicit.body.revision, autosave: true });
    expect(next.status).to.equal(200);
    expect(await revisions(id)).to.have.length(before + 3);
  });

  it('starts a new revision after ten minutes, for another person, with another editor present, or once a preview link names it', async () => {
    const { id } = await horaires();
    const save = async (who: { cookie: string }, text: string) => {
      const revision = (await ctx.db('app_pages').where({ id }).first())!.revision;
      const answer = await put(who, id, { blocks: [{ type: 'paragraph', text }], if_revision: revision, autosave: true });
      expect(answer.status, text).to.equal(200);
      return (await revisions(id)).length;
    };
    const first = await save(claire, 'a');
    expect(await save(claire, 'b')).to.equal(first);
    later(10 * 60_000);
    expect(await save(claire, 'c')).to.equal(first + 1);
    // Paul's autosave never continues Claire's revision.
    expect(await save(paul, 'd')).to.equal(first + 2);
    expect(await save(paul, 'e')).to.equal(first + 2);
    // Claire opens the page: Paul's autosaves keep every revision, for her merges.
    await request(app).post(`/app/api/admin/pages/${id}/presence`).set('Cookie', claire.cookie).send({});
    expect(await save(paul, 'f')).to.equal(first + 3);
    // Claire gone a minute later: Paul's autosaves continue his revision again.
    later(61_000);
    expect(await save(paul, 'g')).to.equal(first + 3);
    // A preview link names the revision: it is kept as it is.
    const link = await request(app).post(`/app/api/admin/pages/${id}/preview-link`).set('Cookie', paul.cookie).send({});
    expect(link.status).to.equal(201);
    expect(await save(paul, 'h')).to.equal(first + 4);
  });

  it('costs the same number of statements for 3 blocks and for 60, continued or not', async () => {
    const cost = async (count: number) => {
      const blocks = Array.from({ length: count }, (_, index) => ({ type: 'paragraph', text: `Paragraphe ${index + 1}` }));
      const { id } = await makePage(ctx, { title: `Page ${count}`, blocks });
      let revision = (await ctx.db('app_pages').where({ id }).first())!.revision;
      const counts: number[] = [];
      for (const text of ['premier', 'suite']) {
        const counted = await countStatements(ctx, () =>
          put(claire, id, { blocks: [...blocks.slice(1), { type: 'paragraph', text }], if_revision: revision, autosave: true }).expect(200),
        );
        revision = counted.result.body.revision;
        counts.push(counted.count);
      }
      return counts;
    };
    await cost(1); // the process's first write reads what it then remembers (the active theme)
    const [first3, continued3] = await cost(3);
    const [first60, continued60] = await cost(60);
    console.log(`      an autosave's request: ${first3} statements for a new revision, ${continued3} for a continued one`);
    expect([first60, continued60]).to.deep.equal([first3, continued3]);
  });

  it('refuses a stale autosave with 409 and writes nothing (a merge is the explicit save’s)', async () => {
    const { id } = await horaires();
    const revision = (await ctx.db('app_pages').where({ id }).first())!.revision;
    expect((await put(paul, id, { title: 'Par Paul', if_revision: revision })).status).to.equal(200);
    const count = (await revisions(id)).length;
    const stale = await put(claire, id, { title: 'Par Claire', if_revision: revision, autosave: true });
    expect(stale.status).to.equal(409);
    expect(stale.body.code).to.equal('revision_conflict');
    expect(await revisions(id)).to.have.length(count);
    expect((await put(claire, id, { autosave: 'yes' })).status).to.equal(400);
  });

  describe('through the editor’s form (action=autosave, as its script sends it)', () => {
    it('answers JSON with the new revision and the ids of new blocks, keeps the text, and says why when it cannot save', async () => {
      const { id } = await horaires();
      const client = new AdminClient(app, claire);
      const editor = await client.get(`/admin/pages/${id}`);
      const fields = setField(formFields(editor.text), 'b.0.text', 'Ouvert le samedi et le dimanche.');
      const autosave = () =>
        request(app)
          .post(`/admin/pages/${id}`)
          .set('Cookie', client.cookies())
          .set('Accept', 'application/json')
          .type('form')
          .send(new URLSearchParams([...fields, ['action', 'autosave']]).toString());
      const answer = await autosave();
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ message: 'Brouillon enregistré à 10\u00a0h\u00a042' });
      expect(answer.body.block_ids).to.have.length(1);
      const reloaded = await client.get(`/admin/pages/${id}`);
      expect(reloaded.text).to.include('Ouvert le samedi et le dimanche.');
      expect(reloaded.text).to.include('Brouillon enregistré à 10\u00a0h\u00a042 par Claire Martin');

      // The same form again, now stale: the usual 409 in JSON (the script says why in the bar), nothing written.
      const stale = await autosave();
      expect(stale.status).to.equal(409);
      expect(stale.body.code).to.equal('revision_conflict');
      expect((await getDraft(ctx, id)).blocks[0].text).to.equal('Ouvert le samedi et le dimanche.');
    });
  });
});
