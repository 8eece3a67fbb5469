// The one-document page editor without JavaScript (HTTP, urlencoded posts of the whole
// form as a browser sends it): every button saves everything typed, the draft stays off
// the site until «Publier», a stale revision shows the conflict screen with both
// contents, and a save costs the same statements whatever the number of blocks.
import { expect } from 'chai';
import request from 'supertest';
import type { AppContext } from '../../lib/context.js';
import { frenchDates } from '../../lib/dates.js';
import { getDraft } from '../../models/pages/drafts.js';
import { createPage, getPage } from '../../models/pages/pages.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { countStatements, withoutIds } from './helpers.js';
import { fieldValue, formFields, setField, submitEditor, type Fields } from './editor-form.js';
import { blockMessages } from '../../models/pages/messages.js';

describe('page editor: one document, drafts, conflicts (no JavaScript)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ APP_TIME_ZONE: 'Europe/Paris' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const editor = () => AdminClient.as(app, { permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });

  async function pageWithBlocks(count = 3) {
    return createPage(ctx, {
      title: 'Atelier',
      blocks: Array.from({ length: count }, (_, i) => ({ type: 'paragraph', text: `Texte ${i + 1}` })),
    });
  }

  async function open(client: AdminClient, id: number, query = ''): Promise<{ html: string; fields: Fields }> {
    const response = await client.get(`/admin/pages/${id}${query}`);
    expect(response.status).to.equal(200);
    return { html: response.text, fields: formFields(response.text) };
  }

  it('keeps the title and two edited blocks when a block is moved, as a draft the public page does not show', async () => {
    const page = await pageWithBlocks(3);
    const client = await editor();
    const { fields } = await open(client, page.id);
    expect(fieldValue(fields, 'if_revision')).to.equal('1');
    setField(fields, 'title', 'Atelier de poterie');
    setField(fields, 'b.0.text', 'Premier texte revu');
    setField(fields, 'b.2.text', 'Troisième texte revu');
    const moved = await submitEditor(client, page.id, fields, 'up:2');
    expect(moved.status).to.equal(303);
    expect(moved.headers.location).to.equal(`/admin/pages/${page.id}?done=moved&at=1`);

    const draft = await getDraft(ctx, page.id);
    expect(draft.title).to.equal('Atelier de poterie');
    expect(draft.blocks.map((block) => block.text)).to.deep.equal(['Premier texte revu', 'Troisième texte revu', 'Texte 2']);
    // The live page and the site are unchanged until publication.
    const live = await getPage(ctx, page.id);
    expect(live.title).to.equal('Atelier');
    expect(live.blocks.map((block) => block.text)).to.deep.equal(['Texte 1', 'Texte 2', 'Texte 3']);
    const site = await request(app).get('/atelier');
    expect(site.status).to.equal(200);
    expect(site.text).to.include('Texte 1').and.not.include('revu');

    // The form comes back with the draft, the message at the moved block, focused.
    const after = await client.get(moved.headers.location);
    const block = /<li class="block-card" id="block-1"[\s\S]*?<\/li>/.exec(after.text)![0];
    expect(block).to.match(/<p class="alert alert-success block-message" role="status" tabindex="-1" autofocus>Le bloc est déplacé/);
    expect(block).to.include('Troisième texte revu');
    expect(fieldValue(formFields(after.text), 'title')).to.equal('Atelier de poterie');
    expect(fieldValue(formFields(after.text), 'if_revision')).to.equal(String(draft.revision));
    expect(textOf(after.text)).to.include('Brouillon en attente');
  });

  it('adds at the end, inserts between two blocks and removes one, each keeping what was typed', async () => {
    const page = await pageWithBlocks(2);
    const client = await editor();
    let { fields } = await open(client, page.id);
    setField(fields, 'b.0.text', 'Un');
    setField(fields, 'add_type', 'heading');
    let response = await submitEditor(client, page.id, fields, 'add');
    expect(response.headers.location).to.equal(`/admin/pages/${page.id}?done=added&at=2`);
    expect(withoutIds((await getDraft(ctx, page.id)).blocks)).to.deep.equal([
      { type: 'paragraph', text: 'Un' },
      { type: 'paragraph', text: 'Texte 2' },
      { type: 'heading', text: '', level: 2 },
    ]);

    ({ fields } = await open(client, page.id));
    setField(fields, 'b.2.text', 'Intertitre');
    response = await submitEditor(client, page.id, fields, 'insert:0:quote');
    expect(response.headers.location).to.equal(`/admin/pages/${page.id}?done=added&at=1`);
    expect((await getDraft(ctx, page.id)).blocks.map((block) => block.type)).to.deep.equal(['paragraph', 'quote', 'paragraph', 'heading']);
    expect(withoutIds((await getDraft(ctx, page.id)).blocks[3])).to.deep.equal({ type: 'heading', text: 'Intertitre', level: 2 });

    ({ fields } = await open(client, page.id));
    setField(fields, 'b.3.level', '3');
    response = await submitEditor(client, page.id, fields, 'remove:1');
    expect(response.status).to.equal(303);
    expect(withoutIds((await getDraft(ctx, page.id)).blocks)).to.deep.equal([
      { type: 'paragraph', text: 'Un' },
      { type: 'paragraph', text: 'Texte 2' },
      { type: 'heading', text: 'Intertitre', level: 3 },
    ]);
  });

  it('publishes the draft with «Publier»: the site shows it only then', async () => {
    const page = await pageWithBlocks(1);
    const client = await editor();
    const { fields } = await open(client, page.id);
    setField(fields, 'b.0.text', 'Version publiée');
    await submitEditor(client, page.id, fields, 'save');
    expect((await request(app).get('/atelier')).text).to.not.include('Version publiée');

    const again = await open(client, page.id);
    const published = await submitEditor(client, page.id, again.fields, 'publish');
    expect(published.status).to.equal(303);
    expect(textOf((await client.follow(published)).text)).to.include('La page est publiée.');
    expect(withoutIds((await getPage(ctx, page.id)).blocks)).to.deep.equal([{ type: 'paragraph', text: 'Version publiée' }]);
    expect((await request(app).get('/atelier')).text).to.include('Version publiée');
    expect((await ctx.db('app_pages').where({ id: page.id }).first())!.draft_revision).to.equal(null);
  });

  it('«Aperçu» saves what was typed and opens its preview link; a private page’s «Voir sur le site» is a preview too', async () => {
    const page = await pageWithBlocks(1);
    const client = await editor();
    const { fields } = await open(client, page.id);
    setField(fields, 'b.0.text', 'Texte en aperçu');
    const preview = await submitEditor(client, page.id, fields, 'preview');
    expect(preview.status).to.equal(303);
    expect(preview.headers.location).to.match(/^\/_apercu\/\d+\.\d+\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(withoutIds((await getDraft(ctx, page.id)).blocks)).to.deep.equal([{ type: 'paragraph', text: 'Texte en aperçu' }]);
    const shown = await request(app).get(preview.headers.location);
    expect(shown.status).to.equal(200);
    expect(shown.text).to.include('Texte en aperçu');
    expect((await request(app).get('/atelier')).text).to.not.include('Texte en aperçu');

    const hidden = await createPage(ctx, { title: 'Cachée', visibility: 'private', blocks: [{ type: 'paragraph', text: 'Secret' }] });
    const edit = await client.get(`/admin/pages/${hidden.id}`);
    expect(edit.text).to.include(`action="/admin/pages/${hidden.id}/preview"`).and.not.include('href="/cachee"');
    const link = await client.post(`/admin/pages/${hidden.id}/preview`, {}, `/admin/pages/${hidden.id}`);
    expect(link.status).to.equal(303);
    expect((await request(app).get(link.headers.location)).text).to.include('Secret');
    expect((await request(app).get('/cachee')).status).to.equal(404);
  });

  it('records who made a preview link from the editor, «Aperçu» and «Voir sur le site» alike, as the API does', async () => {
    const page = await pageWithBlocks(1);
    const hidden = await createPage(ctx, { title: 'Cachée', visibility: 'private', blocks: [{ type: 'paragraph', text: 'Secret' }] });
    const client = await editor();
    const { fields } = await open(client, page.id);
    expect((await submitEditor(client, page.id, fields, 'preview')).status).to.equal(303);
    expect((await client.post(`/admin/pages/${hidden.id}/preview`, {}, `/admin/pages/${hidden.id}`)).status).to.equal(303);
    const events = await ctx
      .db('app_audit_events')
      .where({ action: 'page.preview_link_created' })
      .orderBy('id')
      .select('actor_id', 'actor_name', 'ip', 'target_id');
    expect(events).to.have.length(2);
    expect(events.map((event) => event.target_id)).to.deep.equal([String(page.id), String(hidden.id)]);
    for (const event of events) {
      expect(event).to.include({ actor_id: client.user.id, actor_name: client.user.name });
      expect(event.ip).to.be.a('string').and.not.equal('');
    }
  });

  it('schedules the draft at a time of the site’s zone, and cancels it', async () => {
    const page = await pageWithBlocks(1);
    const client = await editor();
    const { fields } = await open(client, page.id);
    setField(fields, 'schedule_at', '2099-01-15T10:00');
    const scheduled = await submitEditor(client, page.id, fields, 'schedule');
    expect(scheduled.status).to.equal(303);
    const row = (await ctx.db('app_pages').where({ id: page.id }).first())!;
    // Paris is UTC+1 in January.
    expect(new Date(row.scheduled_at!).toISOString()).to.equal('2099-01-15T09:00:00.000Z');
    const shown = await client.follow(scheduled);
    const when = frenchDates('Europe/Paris').dateTime(new Date('2099-01-15T09:00:00Z'));
    expect(when).to.match(/^15\s?janvier 2099/);
    expect(textOf(shown.text)).to.include(`La publication est programmée le ${when.replace(/\s+/g, ' ')}.`);
    expect(fieldValue(formFields(shown.text), 'schedule_at')).to.equal('2099-01-15T10:00');

    const cancelled = await submitEditor(client, page.id, formFields(shown.text), 'unschedule');
    expect(cancelled.status).to.equal(303);
    expect((await ctx.db('app_pages').where({ id: page.id }).first())!.scheduled_at).to.equal(null);
  });

  it('abandons the draft after confirmation: the form shows the live page again', async () => {
    const page = await pageWithBlocks(1);
    const client = await editor();
    let { fields } = await open(client, page.id);
    setField(fields, 'title', 'Titre abandonné');
    await submitEditor(client, page.id, fields);
    ({ fields } = await open(client, page.id));
    expect(fieldValue(fields, 'title')).to.equal('Titre abandonné');
    const discarded = await submitEditor(client, page.id, fields, 'discard');
    expect(discarded.status).to.equal(303);
    const shown = await client.follow(discarded);
    expect(textOf(shown.text)).to.include('Le brouillon est abandonné');
    expect(fieldValue(formFields(shown.text), 'title')).to.equal('Atelier');
    expect((await ctx.db('app_pages').where({ id: page.id }).first())!.draft_revision).to.equal(null);
  });

  it('shows the conflict screen to the second of two saves from the same revision that change the same field: both versions, nothing written', async () => {
    const page = await pageWithBlocks(2);
    const first = await editor();
    const second = await editor();
    const mine = (await open(first, page.id)).fields;
    const theirs = (await open(second, page.id)).fields;
    setField(mine, 'title', 'Titre du premier');
    expect((await submitEditor(first, page.id, mine)).status).to.equal(303);
    const before = await getDraft(ctx, page.id);

    setField(theirs, 'title', 'Titre du second');
    setField(theirs, 'b.1.text', 'Texte du second');
    const conflict = await submitEditor(second, page.id, theirs, 'down:0');
    expect(conflict.status).to.equal(409);
    // Only the title clashed: it is listed with both versions; the moved block and its text are merged in.
    const clashes = /<section class="panel conflict-fields"[\s\S]*?<\/section>/.exec(conflict.text)![0];
    expect(textOf(clashes)).to.include('Titre du premier').and.include('Titre du second').and.include('1 champ');
    const submitted = formFields(conflict.text);
    expect(fieldValue(submitted, 'title')).to.equal('Titre du second');
    expect(fieldValue(submitted, 'b.1.text')).to.equal('Texte du second');
    // Saving again from the conflict screen carries the current revision: it keeps the submitted content.
    expect(fieldValue(submitted, 'if_revision')).to.equal(String(before.revision));
    expect(await getDraft(ctx, page.id)).to.deep.equal(before);

    const kept = await submitEditor(second, page.id, submitted, 'save');
    expect(kept.status).to.equal(303);
    const after = await getDraft(ctx, page.id);
    expect(after.title).to.equal('Titre du second');
    // The move asked with the stale save («Descendre» the first block) is part of the merge.
    expect(withoutIds(after.blocks)).to.deep.equal([
      { type: 'paragraph', text: 'Texte du second' },
      { type: 'paragraph', text: 'Texte 1' },
    ]);
  });

  it('refuses an unsafe link with every field kept as typed, even a long text, and writes nothing', async () => {
    const page = await createPage(ctx, {
      title: 'Liens',
      blocks: [
        { type: 'paragraph', text: 'Court' },
        { type: 'link', href: '/ailleurs', label: 'Ailleurs' },
      ],
    });
    const client = await editor();
    const { fields } = await open(client, page.id);
    const long = 'Une longue phrase. '.repeat(600);
    setField(fields, 'title', 'Liens revus');
    setField(fields, 'b.0.text', long);
    setField(fields, 'b.1.href', 'javascript:alert(1)');
    const refused = await submitEditor(client, page.id, fields, 'up:1');
    expect(refused.status).to.equal(400);
    const again = formFields(refused.text);
    expect(fieldValue(again, 'title')).to.equal('Liens revus');
    expect(fieldValue(again, 'b.0.text')).to.equal(long);
    expect(fieldValue(again, 'b.1.href')).to.equal('javascript:alert(1)');
    expect(/id="b-1-href-error"[^>]*>([^<]*)/.exec(refused.text)?.[1]).to.equal(blockMessages.hrefInvalid);
    expect(textOf(refused.text)).to.include('Rien n’est enregistré');
    // The summary at the top links to the block's field, named by its block.
    expect(refused.text).to.match(/<a href="#field-b\.1\.href">Bloc 2\u00a0: Adresse/);
    expect((await ctx.db('app_pages').where({ id: page.id }).first())!.draft_revision).to.equal(null);
  });

  it('refuses a post without its revision, and a reader without pages.manage', async () => {
    const page = await pageWithBlocks(1);
    const client = await editor();
    const { fields } = await open(client, page.id);
    const refused = await submitEditor(
      client,
      page.id,
      fields.filter(([name]) => name !== 'if_revision'),
    );
    expect(refused.status).to.equal(400);
    const reader = await AdminClient.as(app, { permissions: ['admin.access', 'pages.view'] });
    const shown = await reader.get(`/admin/pages/${page.id}`);
    expect(shown.status).to.equal(200);
    expect(shown.text).to.not.include('Enregistrer le brouillon');
    const token = await reader.token(`/admin/pages/${page.id}`);
    expect((await reader.postRaw(`/admin/pages/${page.id}`, { _csrf: token, if_revision: '1', title: 'Non' })).status).to.equal(403);
    expect((await ctx.db('app_pages').where({ id: page.id }).first())!.draft_revision).to.equal(null);
  });

  it('saves a long page in one form: 200 blocks, 400 kB', async () => {
    const page = await createPage(ctx, {
      title: 'Longue',
      blocks: Array.from({ length: 200 }, (_, i) => ({ type: 'paragraph', text: `${i} `.padEnd(2000, 'x') })),
    });
    const client = await editor();
    const { fields } = await open(client, page.id);
    setField(fields, 'b.199.text', 'Fin revue');
    const saved = await submitEditor(client, page.id, fields, 'up:199');
    expect(saved.status).to.equal(303);
    const blocks = (await getDraft(ctx, page.id)).blocks;
    expect(blocks).to.have.length(200);
    expect(withoutIds(blocks[198])).to.deep.equal({ type: 'paragraph', text: 'Fin revue' });
  });

  it('saves with the same number of statements for 2 blocks and for 60', async () => {
    const counts: number[] = [];
    for (const size of [2, 60]) {
      const page = await createPage(ctx, {
        title: `Page ${size}`,
        blocks: Array.from({ length: size }, (_, i) => (i % 2 ? { type: 'paragraph', text: `P${i}` } : { type: 'heading', text: `H${i}`, level: 2 })),
      });
      const client = await editor();
      const { fields } = await open(client, page.id);
      setField(fields, 'b.1.text', 'Revu');
      const { result, count } = await countStatements(ctx, () => submitEditor(client, page.id, fields, 'down:0'));
      expect(result.status).to.equal(303);
      counts.push(count);
    }
    expect(counts[1]).to.equal(counts[0]);
  });
});
