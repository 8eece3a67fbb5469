// The page editor without JavaScript, two people on one page: a save from a form opened
// before the other's save is merged with it («Fusionné avec les modifications de …»);
// the same field changed by both shows only that field, with both versions and a choice.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { getDraft } from '../../models/pages/drafts.js';
import { createPage } from '../../models/pages/pages.js';
import { AdminClient, textOf } from '../support/admin-client.js';
import { contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { fieldValue, formFields, setField, submitEditor, type Fields } from './editor-form.js';
import { withoutIds } from './helpers.js';
import { applyChoices } from '../../controllers/pages/admin-screens-conflict.js';

describe('page editor: two people, one page (merged saves, no JavaScript)', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp();
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  const editor = (name: string) => AdminClient.as(app, { name, permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'] });
  const texts = async (id: number) => withoutIds((await getDraft(ctx, id)).blocks).map((block) => block.text);

  async function open(client: AdminClient, id: number): Promise<Fields> {
    const response = await client.get(`/admin/pages/${id}`);
    expect(response.status).to.equal(200);
    return formFields(response.text);
  }

  async function threeParagraphs() {
    return createPage(ctx, { title: 'Atelier', blocks: [1, 2, 3].map((n) => ({ type: 'paragraph', text: `Texte ${n}` })) });
  }

  it('keeps both edits when two forms opened at once change different blocks, and says with whose', async () => {
    const page = await threeParagraphs();
    const [claire, bruno] = [await editor('Claire Martin'), await editor('Bruno Petit')];
    const [first, second] = [await open(claire, page.id), await open(bruno, page.id)];
    expect(fieldValue(first, 'b.0.id')).to.match(/^[a-z0-9]{12}$/);
    setField(first, 'b.0.text', 'Texte de Claire');
    expect((await submitEditor(claire, page.id, first)).status).to.equal(303);
    setField(second, 'b.2.text', 'Texte de Bruno');
    setField(second, 'title', 'Atelier de Bruno');
    const merged = await submitEditor(bruno, page.id, second);
    expect(merged.status).to.equal(303);
    expect(textOf((await bruno.follow(merged)).text)).to.include('Fusionné avec les modifications de Claire Martin. Le brouillon est enregistré');
    expect(await texts(page.id)).to.deep.equal(['Texte de Claire', 'Texte 2', 'Texte de Bruno']);
    expect((await getDraft(ctx, page.id)).title).to.equal('Atelier de Bruno');
    const ids = (await getDraft(ctx, page.id)).blocks.map((block) => block.id);
    expect(ids).to.deep.equal((await createdIds(page.id)).slice(0, 3));
  });

  it('lists only the paragraph both changed, with what each typed, and saves the version chosen', async () => {
    const page = await threeParagraphs();
    const [claire, bruno] = [await editor('Claire Martin'), await editor('Bruno Petit')];
    const [first, second] = [await open(claire, page.id), await open(bruno, page.id)];
    setField(first, 'b.1.text', 'Version de Claire');
    setField(first, 'b.0.text', 'Premier de Claire');
    expect((await submitEditor(claire, page.id, first)).status).to.equal(303);
    const saved = await getDraft(ctx, page.id);

    setField(second, 'b.1.text', 'Version de Bruno');
    setField(second, 'b.2.text', 'Dernier de Bruno');
    const conflict = await submitEditor(bruno, page.id, second);
    expect(conflict.status).to.equal(409);
    const clashes = textOf(/<section class="panel conflict-fields"[\s\S]*?<\/section>/.exec(conflict.text)![0]);
    expect(clashes).to.include('1 champ').and.include('Bloc 2').and.include('Version de Claire').and.include('Version de Bruno');
    expect(clashes).not.to.include('Premier de Claire').and.not.include('Dernier de Bruno');
    expect(textOf(conflict.text)).to.include('déjà fusionné avec les modifications de Claire Martin');
    expect(conflict.text).not.to.include('conflict-current');
    // The form holds the merge: Claire's first block, Bruno's version of the clash, Bruno's last block.
    const fields = formFields(conflict.text);
    expect(['b.0.text', 'b.1.text', 'b.2.text'].map((name) => fieldValue(fields, name))).to.deep.equal([
      'Premier de Claire',
      'Version de Bruno',
      'Dernier de Bruno',
    ]);
    expect(fieldValue(fields, 'if_revision')).to.equal(String(saved.revision));
    expect(await getDraft(ctx, page.id)).to.deep.equal(saved);

    // Taking Claire's version of the clash.
    fields.push(['take:b.1.text', 'theirs']);
    const chosen = await submitEditor(
      bruno,
      page.id,
      fields.filter(([name, value]) => !(name === 'take:b.1.text' && value === 'mine')),
    );
    expect(chosen.status).to.equal(303);
    expect(await texts(page.id)).to.deep.equal(['Premier de Claire', 'Version de Claire', 'Dernier de Bruno']);
  });

  it('a block removed in one form and edited in the other is a conflict that keeps the block', async () => {
    const page = await threeParagraphs();
    const [claire, bruno] = [await editor('Claire Martin'), await editor('Bruno Petit')];
    const [first, second] = [await open(claire, page.id), await open(bruno, page.id)];
    setField(first, 'b.2.text', 'Texte 3 revu par Claire');
    expect((await submitEditor(claire, page.id, first)).status).to.equal(303);
    const saved = await getDraft(ctx, page.id);
    const conflict = await submitEditor(bruno, page.id, second, 'remove:2');
    expect(conflict.status).to.equal(409);
    const clashes = textOf(/<section class="panel conflict-fields"[\s\S]*?<\/section>/.exec(conflict.text)![0]);
    expect(clashes).to.include('Bloc 3').and.include('Vous avez retiré ce bloc');
    expect(fieldValue(formFields(conflict.text), 'b.2.text')).to.equal('Texte 3 revu par Claire');
    expect(await getDraft(ctx, page.id)).to.deep.equal(saved);
  });

  async function createdIds(id: number): Promise<string[]> {
    const first = await ctx.db('app_page_revisions').where({ page_id: id, number: 1 }).first();
    return (first!.blocks as unknown as Array<{ id: string }>).map((block) => block.id);
  }
});

describe('applyChoices (the conflict screen’s «Prendre l’autre version»)', () => {
  it('puts the other version in the chosen content fields only, an unchecked box included', () => {
    const body: Record<string, unknown> = {
      title: 'Mien',
      'take:title': 'theirs',
      'theirs:title': 'Leur',
      'take:seo_noindex': 'theirs',
      'theirs:seo_noindex': 'on',
      'b.1.text': 'Mien',
      'take:b.1.text': 'mine',
      'theirs:b.1.text': 'Leur',
      if_revision: '3',
      'take:if_revision': 'theirs',
      'theirs:if_revision': '9',
      'b.1.id': 'abc',
      'take:b.1.id': 'theirs',
      'theirs:b.1.id': 'xyz',
    };
    applyChoices(body);
    expect(body).to.include({ title: 'Leur', seo_noindex: 'on', 'b.1.text': 'Mien', if_revision: '3', 'b.1.id': 'abc' });
  });
});
