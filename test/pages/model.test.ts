import { CORE_PERMISSION_SECTIONS } from '../../models/auth/schema.js';
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createPageCatalog } from '../../models/pages/catalog.js';
import { PAGES_PERMISSION_SECTION } from '../../models/pages/manifest.js';
import { createPage, deletePage, duplicatePage, editPageBlocks, getPage, listPages, updatePage } from '../../models/pages/pages.js';
import { RESERVED_ROOT_SLUGS, slugify } from '../../models/pages/slugs.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { makeChain, withoutIds } from './helpers.js';

async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; details?: Array<{ field: string; message: string }> }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('pages model', () => {
  let ctx: AppContext;
  before(() => {
    ctx = contextOf(createTestApp());
  });
  beforeEach(() => resetData(ctx));

  describe('slugify', () => {
    it('transliterates French accents and ligatures', () => {
      expect(slugify('Été à Paris')).to.equal('ete-a-paris');
      expect(slugify('Œuvres complètes : l’œil & le cœur')).to.equal('oeuvres-completes-l-oeil-le-coeur');
      expect(slugify('  Ça -- marche !! ')).to.equal('ca-marche');
    });

    it('falls back to `page` for a title without letters or digits and cuts long titles at a hyphen', () => {
      expect(slugify('!!! ???')).to.equal('page');
      const slug = slugify('mot '.repeat(60));
      expect(slug.length).to.be.at.most(100);
      expect(slug).to.match(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    });
  });

  describe('createPage', () => {
    it('applies the defaults of the Page table and derives the slug from the title', async () => {
      const page = await createPage(ctx, { title: '  Été à Paris ' });
      expect(page).to.include({ title: 'Été à Paris', slug: 'ete-a-paris', parent_id: null, template: 'default', visibility: 'public' });
      expect(page.blocks).to.deep.equal([]);
      expect(page.seo).to.deep.equal({});
    });

    it('requires a non-empty title', async () => {
      for (const title of ['', '   ', undefined as unknown as string]) {
        const error = await rejection(createPage(ctx, { title }));
        expect(error).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.titleRequired);
      }
      expect(await ctx.db('app_pages').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    });

    it('refuses an invalid slug with the message', async () => {
      for (const slug of ['Majuscule', 'deux--tirets', '-debut', 'fin-', 'avec espace', 'accentué', 'a'.repeat(101), '']) {
        const error = await rejection(createPage(ctx, { title: 'Titre', slug }));
        expect(error, slug).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.slugInvalid);
      }
    });

    it('refuses every reserved root slug, but accepts it below a parent', async () => {
      for (const slug of RESERVED_ROOT_SLUGS) {
        if (!/^[a-z0-9-]+$/.test(slug)) continue;
        const error = await rejection(createPage(ctx, { title: 'Titre', slug }));
        expect(error.message).to.equal(pageMessages.slugReserved(slug));
      }
      const derived = await rejection(createPage(ctx, { title: 'Admin' }));
      expect(derived.message).to.equal(pageMessages.slugReserved('admin'));
      const parent = await createPage(ctx, { title: 'Parent' });
      expect((await createPage(ctx, { title: 'Admin', parent_id: parent.id })).slug).to.equal('admin');
    });

    it('refuses a parent that does not exist', async () => {
      const error = await rejection(createPage(ctx, { title: 'Orpheline', parent_id: 9999 }));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.message).to.equal(pageMessages.parentNotFound);
    });

    it('refuses a template that is not registered', async () => {
      const error = await rejection(createPage(ctx, { title: 'Titre', template: 'inconnu' }));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.message).to.equal(pageMessages.templateUnknown('inconnu'));
    });

    it('makes a colliding slug unique among siblings only (-2, -3…)', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      expect((await createPage(ctx, { title: 'Contact' })).slug).to.equal('contact');
      expect((await createPage(ctx, { title: 'Contact' })).slug).to.equal('contact-2');
      expect((await createPage(ctx, { title: 'Autre', slug: 'contact' })).slug).to.equal('contact-3');
      expect((await createPage(ctx, { title: 'Contact', parent_id: parent.id })).slug).to.equal('contact');
    });

    it('gives 10 simultaneous creates of the same title under one parent 10 distinct slugs', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      const pages = await Promise.all(Array.from({ length: 10 }, () => createPage(ctx, { title: 'Même titre', parent_id: parent.id })));
      const slugs = pages.map((page) => page.slug).sort();
      expect(new Set(slugs).size).to.equal(10);
      expect(slugs).to.include.members(['meme-titre', 'meme-titre-2', 'meme-titre-10']);
      expect(await ctx.db('app_pages').where({ parent_id: parent.id }).count({ n: '*' })).to.deep.equal([{ n: 10 }]);
    });

    it('gives 10 simultaneous root creates of the same title 10 distinct slugs too', async () => {
      const pages = await Promise.all(Array.from({ length: 10 }, () => createPage(ctx, { title: 'Racine' })));
      expect(new Set(pages.map((page) => page.slug)).size).to.equal(10);
    });
  });

  describe('updatePage', () => {
    it('writes only the fields present and keeps the slug when the title changes', async () => {
      const page = await createPage(ctx, { title: 'Avant', blocks: [{ type: 'paragraph', text: 'x' }], seo: { description: 'd' }, visibility: 'private' });
      const updated = await updatePage(ctx, page.id, { title: 'Après' });
      expect(updated).to.include({ title: 'Après', slug: 'avant', visibility: 'private' });
      expect(withoutIds(updated.blocks)).to.deep.equal([{ type: 'paragraph', text: 'x' }]);
      expect(updated.seo).to.deep.equal({ description: 'd' });
      expect(updated.updated_at.getTime()).to.be.at.least(page.updated_at.getTime());
    });

    it('makes a colliding slug unique on update, and re-checks it when the page moves', async () => {
      const a = await createPage(ctx, { title: 'A' });
      const b = await createPage(ctx, { title: 'B' });
      await createPage(ctx, { title: 'Cible', slug: 'b', parent_id: a.id });
      expect((await updatePage(ctx, b.id, { slug: 'a' })).slug).to.equal('a-2');
      expect((await updatePage(ctx, b.id, { slug: 'a-2' })).slug).to.equal('a-2');
      const moved = await updatePage(ctx, b.id, { parent_id: a.id, slug: 'b' });
      expect(moved).to.include({ parent_id: a.id, slug: 'b-2' });
    });

    it('refuses a move under itself or under a descendant (cycle) with the message', async () => {
      const [top, middle, bottom] = await makeChain(ctx, 3);
      for (const parent of [top, middle, bottom]) {
        const error = await rejection(updatePage(ctx, top, { parent_id: parent }));
        expect(error).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.cycle);
      }
      expect((await getPage(ctx, top)).parent_id).to.equal(null);
      expect((await updatePage(ctx, bottom, { parent_id: null })).parent_id).to.equal(null);
    });

    it('never lets two concurrent moves build a cycle', async () => {
      const a = await createPage(ctx, { title: 'A' });
      const b = await createPage(ctx, { title: 'B' });
      const results = await Promise.allSettled([updatePage(ctx, a.id, { parent_id: b.id }), updatePage(ctx, b.id, { parent_id: a.id })]);
      expect(results.filter((result) => result.status === 'fulfilled')).to.have.length(1);
      const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected')!;
      expect(rejected.reason.message).to.equal(pageMessages.cycle);
    });

    it('refuses a parent that does not exist and a reserved slug at the root', async () => {
      const [top, child] = await makeChain(ctx, 2);
      expect((await rejection(updatePage(ctx, child, { parent_id: 4242 }))).message).to.equal(pageMessages.parentNotFound);
      expect((await rejection(updatePage(ctx, top, { slug: 'uploads' }))).message).to.equal(pageMessages.slugReserved('uploads'));
      await updatePage(ctx, child, { slug: 'admin' });
      expect((await rejection(updatePage(ctx, child, { parent_id: null }))).message).to.equal(pageMessages.slugReserved('admin'));
    });

    it('accepts created_at in the past only, as an ISO date', async () => {
      const page = await createPage(ctx, { title: 'Datée' });
      const updated = await updatePage(ctx, page.id, { created_at: '2020-05-01T10:00:00Z' });
      expect(updated.created_at.toISOString()).to.equal('2020-05-01T10:00:00.000Z');
      const future = await rejection(updatePage(ctx, page.id, { created_at: new Date(Date.now() + 3_600_000).toISOString() }));
      expect(future.message).to.equal(pageMessages.createdAtFuture);
      for (const bad of ['hier', '2020-13-45', '01/05/2020', 1234 as unknown as string]) {
        expect((await rejection(updatePage(ctx, page.id, { created_at: bad }))).message, String(bad)).to.equal(pageMessages.createdAtInvalid);
      }
    });

    it('judges "in the past" by the application clock', async () => {
      const page = await createPage(ctx, { title: 'Horloge' });
      ctx.clock.set(() => Date.parse('2030-01-01T00:00:00Z'));
      expect((await updatePage(ctx, page.id, { created_at: '2029-06-01' })).created_at.toISOString()).to.equal('2029-06-01T00:00:00.000Z');
    });

    it('answers NotFound for a missing page', async () => {
      expect(await rejection(updatePage(ctx, 777, { title: 'x' }))).to.be.instanceOf(NotFoundError);
    });
  });

  describe('editPageBlocks', () => {
    const append = (text: string) => (blocks: Array<{ type: string }>) => [...blocks, { type: 'paragraph', text }];

    it('refuses (409 stale_page) an edit made from a version another write has replaced, even within one clock reading', async () => {
      ctx.clock.set(() => Date.parse('2030-01-01T00:00:00Z'));
      const page = await createPage(ctx, { title: 'Blocs', blocks: [{ type: 'paragraph', text: 'A' }] });
      const version = page.updated_at.toISOString();
      const edited = await editPageBlocks(ctx, page.id, version, append('B'));
      expect(edited.updated_at.getTime()).to.be.greaterThan(page.updated_at.getTime());
      const stale = await rejection(editPageBlocks(ctx, page.id, version, append('C')));
      expect(stale).to.be.instanceOf(ConflictError);
      expect((stale as ConflictError).code).to.equal('stale_page');
      expect(withoutIds((await getPage(ctx, page.id)).blocks)).to.deep.equal([
        { type: 'paragraph', text: 'A' },
        { type: 'paragraph', text: 'B' },
      ]);
    });

    it('lets one of two simultaneous edits from the same version through: the check runs on the locked row', async () => {
      const page = await createPage(ctx, { title: 'Course', blocks: [] });
      const version = page.updated_at.toISOString();
      const results = await Promise.allSettled(['un', 'deux', 'trois'].map((text) => editPageBlocks(ctx, page.id, version, append(text))));
      expect(results.filter((result) => result.status === 'fulfilled')).to.have.length(1);
      for (const result of results) if (result.status === 'rejected') expect(result.reason.code).to.equal('stale_page');
      expect((await getPage(ctx, page.id)).blocks).to.have.length(1);
    });

    it('applies the block rules to the edited list (an unsafe link is refused, nothing written)', async () => {
      const page = await createPage(ctx, { title: 'Lien' });
      const error = await rejection(editPageBlocks(ctx, page.id, page.updated_at.toISOString(), () => [{ type: 'link', href: 'javascript:alert(1)' }]));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.details?.[0].field).to.equal('blocks.0.href');
      expect((await getPage(ctx, page.id)).blocks).to.deep.equal([]);
    });
  });

  describe('duplicatePage', () => {
    it('copies the page with « (copie)», the same parent, template, blocks, SEO and visibility, a unique slug and its own date', async () => {
      const parent = await createPage(ctx, { title: 'Parent' });
      const source = await createPage(ctx, {
        title: 'Source',
        parent_id: parent.id,
        template: 'section',
        blocks: [{ type: 'heading', text: 'H' }],
        seo: { title: 'S' },
        visibility: 'private',
      });
      await updatePage(ctx, source.id, { created_at: '2019-01-01T00:00:00Z' });
      const copy = await duplicatePage(ctx, source.id);
      expect(copy).to.include({ title: 'Source (copie)', parent_id: parent.id, template: 'section', visibility: 'private', slug: 'source-2' });
      expect(withoutIds(copy.blocks)).to.deep.equal([{ type: 'heading', text: 'H' }]);
      expect(copy.seo).to.deep.equal({ title: 'S' });
      expect(copy.created_at.getUTCFullYear()).to.be.greaterThan(2019);
      expect((await duplicatePage(ctx, source.id)).slug).to.equal('source-3');
    });
  });

  describe('deletePage', () => {
    it('refuses (409) to delete a page with children unless cascade, which removes the whole subtree', async () => {
      const ids = await makeChain(ctx, 4);
      const other = await createPage(ctx, { title: 'Autre' });
      const error = await rejection(deletePage(ctx, ids[0]));
      expect(error).to.be.instanceOf(ConflictError);
      expect(error.message).to.equal(pageMessages.hasChildren);
      expect(await ctx.db('app_pages').count({ n: '*' })).to.deep.equal([{ n: 5 }]);
      expect(await deletePage(ctx, ids[1], { cascade: true })).to.equal(3);
      expect(await ctx.db('app_pages').orderBy('id').pluck('id')).to.deep.equal([ids[0], other.id]);
      expect(await deletePage(ctx, ids[0])).to.equal(1);
    });

    it('answers NotFound for a missing page', async () => {
      expect(await rejection(deletePage(ctx, 12345))).to.be.instanceOf(NotFoundError);
    });
  });

  describe('listPages', () => {
    it('returns light rows ordered by title with the total, filtered by visibility', async () => {
      await createPage(ctx, { title: 'Bêta', blocks: [{ type: 'paragraph', text: 'x' }] });
      await createPage(ctx, { title: 'Alpha', visibility: 'private' });
      await createPage(ctx, { title: 'Gamma' });
      const all = await listPages(ctx, { limit: 2 });
      expect(all.total).to.equal(3);
      expect(all.items.map((page) => page.title)).to.deep.equal(['Alpha', 'Bêta']);
      expect(all.items[0]).to.not.have.property('blocks');
      const privateOnly = await listPages(ctx, { visibility: 'private' });
      expect(privateOnly.items.map((page) => page.title)).to.deep.equal(['Alpha']);
      expect((await listPages(ctx, { offset: 10 })).total).to.equal(3);
    });
  });

  describe('permission catalogue', () => {
    it('seeds the pages section after the core sections, as the module declares it, held by the admin role', async () => {
      // After every core section (other modules' sections may follow it).
      const sections = await ctx.db('app_auth_permission_sections').orderBy('position').pluck('key');
      const core = CORE_PERMISSION_SECTIONS.map((section) => sections.indexOf(section.key));
      expect(core).to.not.include(-1);
      expect(sections.indexOf('pages')).to.be.greaterThan(Math.max(...core));
      const section = await ctx.db('app_auth_permission_sections').where({ key: 'pages' }).first();
      expect(section).to.include({ label: PAGES_PERMISSION_SECTION.label, position: PAGES_PERMISSION_SECTION.position });
      expect(section!.position).to.be.at.least(100);
      const permissions = await ctx.db('app_auth_permissions').where({ section: 'pages' }).orderBy('position').select('key', 'label');
      expect(permissions).to.deep.equal(PAGES_PERMISSION_SECTION.permissions);
      const admin = await ctx.db('app_auth_roles').where({ name: 'admin' }).first('id');
      expect(await ctx.db('app_auth_role_permissions').where({ role_id: admin!.id, permission_key: 'pages.manage' }).first()).to.not.equal(undefined);
      expect(ctx.site.permissionSections.filter((declared) => declared.key === 'pages')).to.deep.equal([PAGES_PERMISSION_SECTION]);
    });
  });

  describe('catalog (templates and block types)', () => {
    it('is made per call of createPageCatalog: a template registered in one is unknown to another', async () => {
      const mine = createPageCatalog();
      mine.templates.register({ name: 'landing', label: 'Accueil', view: 'site/templates/default.njk' });
      expect((await createPage(ctx, { title: 'Avec', template: 'landing' }, null, mine)).template).to.equal('landing');
      const error = await rejection(createPage(ctx, { title: 'Sans', template: 'landing' }));
      expect(error.message).to.equal(pageMessages.templateUnknown('landing'));
      expect(
        createPageCatalog()
          .templates.list()
          .map((template) => template.name),
      ).to.deep.equal(['default', 'section']);
    });
  });
});
