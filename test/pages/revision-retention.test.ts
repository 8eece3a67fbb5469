// Retention of page revisions (REVISIONS_KEEP_DRAFTS): every revision that has been live
// stays, the drafts between two publications are cut to the newest N once a day by one
// process of all, and never the pending draft or a revision a preview link still names.
import { expect } from 'chai';
import { loadConfig } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { publishDraft, saveDraft } from '../../models/pages/drafts.js';
import { updatePage } from '../../models/pages/pages.js';
import { createPreviewLink } from '../../models/pages/preview-links.js';
import { pruneRevisions } from '../../models/pages/revision-prune.js';
import { startRevisionRetention } from '../../services/revision-retention.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { makePage } from './helpers.js';

const HOUR = 3_600_000;

describe('retention of page revisions', () => {
  let app: App;
  let ctx: AppContext;

  const stored = async (pageId: number) =>
    (await ctx.db('app_page_revisions').where({ page_id: pageId }).orderBy('number').select('number', 'published')).map((row) => ({
      number: row.number,
      published: row.published,
    }));
  const numbers = async (pageId: number) => (await stored(pageId)).map((row) => row.number);
  const drafts = async (pageId: number, count: number) => {
    for (let index = 0; index < count; index++) await saveDraft(ctx, pageId, { title: `Brouillon ${index}` });
  };

  before(() => {
    app = createTestApp({ REVISIONS_KEEP_DRAFTS: '3' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  it('marks a revision published when it goes live, by creation, a publication or a live write, and a draft not', async () => {
    const page = await makePage(ctx, { title: 'Accueil' });
    await saveDraft(ctx, page.id, { title: 'Brouillon' });
    await publishDraft(ctx, page.id);
    await updatePage(ctx, page.id, { title: 'Écrit en ligne' });
    expect(await stored(page.id)).to.deep.equal([
      { number: 1, published: true },
      { number: 2, published: false },
      { number: 3, published: true },
      { number: 4, published: true },
    ]);
  });

  it('keeps every published revision, the newest drafts of each stretch, the pending draft and a revision a preview link names', async () => {
    const page = await makePage(ctx, { title: 'Accueil' }); // 1, live
    await drafts(page.id, 6); // 2–7
    await publishDraft(ctx, page.id); // 8, live
    await drafts(page.id, 5); // 9–13, 13 pending
    await createPreviewLink(ctx, page.id, { revision: 3 });

    const outcome = await pruneRevisions(ctx, ctx.config.revisionsKeepDrafts);

    expect(outcome).to.deep.equal({ ran: true, removed: 4 });
    expect(await numbers(page.id)).to.deep.equal([1, 3, 5, 6, 7, 8, 11, 12, 13]);
    const row = await ctx.db('app_pages').where({ id: page.id }).first('draft_revision', 'published_revision');
    expect(row).to.deep.equal({ draft_revision: 13, published_revision: 8 });
  });

  it('lets a revision go once the preview links naming it have expired', async () => {
    const page = await makePage(ctx, { title: 'Accueil' });
    await drafts(page.id, 5); // 2–6
    await createPreviewLink(ctx, page.id, { revision: 2 });
    ctx.clock.set(() => Date.now() + 25 * HOUR);

    expect(await pruneRevisions(ctx, 3)).to.deep.equal({ ran: true, removed: 2 });
    expect(await numbers(page.id)).to.deep.equal([1, 4, 5, 6]);
  });

  it('prunes once a day however many processes ask, each asking hourly from its start', async () => {
    const other = createTestApp({ REVISIONS_KEEP_DRAFTS: '3' });
    try {
      const page = await makePage(ctx, { title: 'Accueil' });
      await drafts(page.id, 5);
      const stops = [startRevisionRetention(ctx), startRevisionRetention(contextOf(other))];
      stops.forEach((stop) => stop());
      await Promise.all([ctx.background.settle(), contextOf(other).background.settle()]);
      expect(await numbers(page.id)).to.deep.equal([1, 4, 5, 6]);
      const [runs] = await ctx.db('app_page_revision_prune_state').select('last_run_at');
      expect(runs.last_run_at).to.be.instanceOf(Date);

      await drafts(page.id, 3); // 7–9: 6 drafts after the publication of 1
      expect(await pruneRevisions(ctx, 3)).to.deep.equal({ ran: false, removed: 0 });
      ctx.clock.set(() => Date.now() + 24 * HOUR + 1000);
      expect(await pruneRevisions(ctx, 3)).to.deep.equal({ ran: true, removed: 3 });
      expect(await numbers(page.id)).to.deep.equal([1, 7, 8, 9]);
    } finally {
      await closeTestApp(other);
    }
  });

  it('reads REVISIONS_KEEP_DRAFTS (default 50) and refuses a value under 1, naming it', () => {
    const base = { NODE_ENV: 'test', DATABASE_URL: 'postgres://localhost/x', SESSION_SECRET: 'x'.repeat(40) };
    expect(loadConfig(base).revisionsKeepDrafts).to.equal(50);
    expect(loadConfig({ ...base, REVISIONS_KEEP_DRAFTS: '7' }).revisionsKeepDrafts).to.equal(7);
    expect(() => loadConfig({ ...base, REVISIONS_KEEP_DRAFTS: '0' })).to.throw(/REVISIONS_KEEP_DRAFTS/);
  });
});
