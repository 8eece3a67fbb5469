import { expect } from 'chai';
import { setClock } from '../../lib/clock.js';
import { db } from '../../lib/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { pageMessages } from '../../models/pages/messages.js';
import { createPage, deletePage, duplicatePage, getPage, listPages, updatePage } from '../../models/pages/pages.js';
import { RESERVED_ROOT_SLUGS, slugify } from '../../models/pages/slugs.js';
import { createTestApp, resetData } from '../support/app.js';
import { makeChain } from './helpers.js';

async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number; details?: Array<{ field: string; message: string }> }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('pages model', () => {
  before(() => createTestApp());
  beforeEach(resetData);

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
      const page = await createPage({ title: '  Été à Paris ' });
      expect(page).to.include({ title: 'Été à Paris', slug: 'ete-a-paris', parent_id: null, template: 'default', visibility: 'public' });
      expect(page.blocks).to.deep.equal([]);
      expect(page.seo).to.deep.equal({});
    });

    it('requires a non-empty title', async () => {
      for (const title of ['', '   ', undefined as unknown as string]) {
        const error = await rejection(createPage({ title }));
        expect(error).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.titleRequired);
      }
      expect(await db()('app_pages').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    });

    it('refuses an invalid slug with the message', async () => {
      for (const slug of ['Majuscule', 'deux--tirets', '-debut', 'fin-', 'avec espace', 'accentué', 'a'.repeat(101), '']) {
        const error = await rejection(createPage({ title: 'Titre', slug }));
        expect(error, slug).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.slugInvalid);
      }
    });

    it('refuses every reserved root slug, but accepts it below a parent', async () => {
      for (const slug of RESERVED_ROOT_SLUGS) {
        if (!/^[a-z0-9-]+$/.test(slug)) continue;
        const error = await rejection(createPage({ title: 'Titre', slug }));
        expect(error.message).to.equal(pageMessages.slugReserved(slug));
      }
      const derived = await rejection(createPage({ title: 'Admin' }));
      expect(derived.message).to.equal(pageMessages.slugReserved('admin'));
      const parent = await createPage({ title: 'Parent' });
      expect((await createPage({ title: 'Admin', parent_id: parent.id })).slug).to.equal('admin');
    });

    it('refuses a parent that does not exist', async () => {
      const error = await rejection(createPage({ title: 'Orpheline', parent_id: 9999 }));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.message).to.equal(pageMessages.parentNotFound);
    });

    it('refuses a template that is not registered', async () => {
      const error = await rejection(createPage({ title: 'Titre', template: 'inconnu' }));
      expect(error).to.be.instanceOf(ValidationError);
      expect(error.message).to.equal(pageMessages.templateUnknown('inconnu'));
    });

    it('makes a colliding slug unique among siblings only (-2, -3…)', async () => {
      const parent = await createPage({ title: 'Parent' });
      expect((await createPage({ title: 'Contact' })).slug).to.equal('contact');
      expect((await createPage({ title: 'Contact' })).slug).to.equal('contact-2');
      expect((await createPage({ title: 'Autre', slug: 'contact' })).slug).to.equal('contact-3');
      expect((await createPage({ title: 'Contact', parent_id: parent.id })).slug).to.equal('contact');
    });

    it('gives 10 simultaneous creates of the same title under one parent 10 distinct slugs', async () => {
      const parent = await createPage({ title: 'Parent' });
      const pages = await Promise.all(Array.from({ length: 10 }, () => createPage({ title: 'Même titre', parent_id: parent.id })));
      const slugs = pages.map((page) => page.slug).sort();
      expect(new Set(slugs).size).to.equal(10);
      expect(slugs).to.include.members(['meme-titre', 'meme-titre-2', 'meme-titre-10']);
      expect(await db()('app_pages').where({ parent_id: parent.id }).count({ n: '*' })).to.deep.equal([{ n: 10 }]);
    });

    it('gives 10 simultaneous root creates of the same title 10 distinct slugs too', async () => {
      const pages = await Promise.all(Array.from({ length: 10 }, () => createPage({ title: 'Racine' })));
      expect(new Set(pages.map((page) => page.slug)).size).to.equal(10);
    });
  });

  describe('updatePage', () => {
    it('writes only the fields present and keeps the slug when the title changes', async () => {
      const page = await createPage({ title: 'Avant', blocks: [{ type: 'paragraph', text: 'x' }], seo: { description: 'd' }, visibility: 'private' });
      const updated = await updatePage(page.id, { title: 'Après' });
      expect(updated).to.include({ title: 'Après', slug: 'avant', visibility: 'private' });
      expect(updated.blocks).to.deep.equal([{ type: 'paragraph', text: 'x' }]);
      expect(updated.seo).to.deep.equal({ description: 'd' });
      expect(updated.updated_at.getTime()).to.be.at.least(page.updated_at.getTime());
    });

    it('makes a colliding slug unique on update, and re-checks it when the page moves', async () => {
      const a = await createPage({ title: 'A' });
      const b = await createPage({ title: 'B' });
      await createPage({ title: 'Cible', slug: 'b', parent_id: a.id });
      expect((await updatePage(b.id, { slug: 'a' })).slug).to.equal('a-2');
      expect((await updatePage(b.id, { slug: 'a-2' })).slug).to.equal('a-2');
      const moved = await updatePage(b.id, { parent_id: a.id, slug: 'b' });
      expect(moved).to.include({ parent_id: a.id, slug: 'b-2' });
    });

    it('refuses a move under itself or under a descendant (cycle) with the message', async () => {
      const [top, middle, bottom] = await makeChain(3);
      for (const parent of [top, middle, bottom]) {
        const error = await rejection(updatePage(top, { parent_id: parent }));
        expect(error).to.be.instanceOf(ValidationError);
        expect(error.message).to.equal(pageMessages.cycle);
      }
      expect((await getPage(top)).parent_id).to.equal(null);
      expect((await updatePage(bottom, { parent_id: null })).parent_id).to.equal(null);
    });

    it('never lets two concurrent moves build a cycle', async () => {
      const a = await createPage({ title: 'A' });
      const b = await createPage({ title: 'B' });
      const results = await Promise.allSettled([updatePage(a.id, { parent_id: b.id }), updatePage(b.id, { parent_id: a.id })]);
      expect(results.filter((result) => result.status === 'fulfilled')).to.have.length(1);
      const rejected = results.find((result): result is PromiseRejectedResult => result.status === 'rejected')!;
      expect(rejected.reason.message).to.equal(pageMessages.cycle);
    });

    it('refuses a parent that does not exist and a reserved slug at the root', async () => {
      const [top, child] = await makeChain(2);
      expect((await rejection(updatePage(child, { parent_id: 4242 }))).message).to.equal(pageMessages.parentNotFound);
      expect((await rejection(updatePage(top, { slug: 'uploads' }))).message).to.equal(pageMessages.slugReserved('uploads'));
      await updatePage(child, { slug: 'admin' });
      expect((await rejection(updatePage(child, { parent_id: null }))).message).to.equal(pageMessages.slugReserved('admin'));
    });

    it('accepts created_at in the past only, as an ISO date', async () => {
      const page = await createPage({ title: 'Datée' });
      const updated = await updatePage(page.id, { created_at: '2020-05-01T10:00:00Z' });
      expect(updated.created_at.toISOString()).to.equal('2020-05-01T10:00:00.000Z');
      const future = await rejection(updatePage(page.id, { created_at: new Date(Date.now() + 3_600_000).toISOString() }));
      expect(future.message).to.equal(pageMessages.createdAtFuture);
      for (const bad of ['hier', '2020-13-45', '01/05/2020', 1234 as unknown as string]) {
        expect((await rejection(updatePage(page.id, { created_at: bad }))).message, String(bad)).to.equal(pageMessages.createdAtInvalid);
      }
    });

    it('judges "in the past" by the application clock', async () => {
      const page = await createPage({ title: 'Horloge' });
      setClock(() => Date.parse('2030-01-01T00:00:00Z'));
      expect((await updatePage(page.id, { created_at: '2029-06-01' })).created_at.toISOString()).to.equal('2029-06-01T00:00:00.000Z');
    });

    it('answers NotFound for a missing page', async () => {
      expect(await rejection(updatePage(777, { title: 'x' }))).to.be.instanceOf(NotFoundError);
    });
  });

  describe('duplicatePage', () => {
    it('copies the page with « (copie)», the same parent, template, blocks, SEO and visibility, a unique slug and its own date', async () => {
      const parent = await createPage({ title: 'Parent' });
      const source = await createPage({ title: 'Source', parent_id: parent.id, template: 'section', blocks: [{ type: 'heading', text: 'H' }], seo: { title: 'S' }, visibility: 'private' });
      await updatePage(source.id, { created_at: '2019-01-01T00:00:00Z' });
      const copy = await duplicatePage(source.id);
      expect(copy).to.include({ title: 'Source (copie)', parent_id: parent.id, template: 'section', visibility: 'private', slug: 'source-2' });
      expect(copy.blocks).to.deep.equal([{ type: 'heading', text: 'H' }]);
      expect(copy.seo).to.deep.equal({ title: 'S' });
      expect(copy.created_at.getUTCFullYear()).to.be.greaterThan(2019);
      expect((await duplicatePage(source.id)).slug).to.equal('source-3');
    });
  });

  describe('deletePage', () => {
    it('refuses (409) to delete a page with children unless cascade, which removes the whole subtree', async () => {
      const ids = await makeChain(4);
      const other = await createPage({ title: 'Autre' });
      const error = await rejection(deletePage(ids[0]));
      expect(error).to.be.instanceOf(ConflictError);
      expect(error.message).to.equal(pageMessages.hasChildren);
      expect(await db()('app_pages').count({ n: '*' })).to.deep.equal([{ n: 5 }]);
      expect(await deletePage(ids[1], { cascade: true })).to.equal(3);
      expect(await db()('app_pages').orderBy('id').pluck('id')).to.deep.equal([ids[0], other.id]);
      expect(await deletePage(ids[0])).to.equal(1);
    });

    it('answers NotFound for a missing page', async () => {
      expect(await rejection(deletePage(12345))).to.be.instanceOf(NotFoundError);
    });
  });

  describe('listPages', () => {
    it('returns light rows ordered by title with the total, filtered by visibility', async () => {
      await createPage({ title: 'Bêta', blocks: [{ type: 'paragraph', text: 'x' }] });
      await createPage({ title: 'Alpha', visibility: 'private' });
      await createPage({ title: 'Gamma' });
      const all = await listPages({ limit: 2 });
      expect(all.total).to.equal(3);
      expect(all.items.map((page) => page.title)).to.deep.equal(['Alpha', 'Bêta']);
      expect(all.items[0]).to.not.have.property('blocks');
      const privateOnly = await listPages({ visibility: 'private' });
      expect(privateOnly.items.map((page) => page.title)).to.deep.equal(['Alpha']);
      expect((await listPages({ offset: 10 })).total).to.equal(3);
    });
  });

  describe('permission catalogue', () => {
    it('seeds the pages section after the core sections, held by the admin role', async () => {
      const sections = await db()('app_auth_permission_sections').orderBy('position').pluck('key');
      expect(sections[sections.length - 1]).to.equal('pages');
      const section = await db()('app_auth_permission_sections').where({ key: 'pages' }).first();
      expect(section.position).to.be.at.least(100);
      expect(await db()('app_auth_permissions').where({ section: 'pages' }).orderBy('position').pluck('key')).to.deep.equal(['pages.view', 'pages.manage']);
      const admin = await db()('app_auth_roles').where({ name: 'admin' }).first('id');
      expect(await db()('app_auth_role_permissions').where({ role_id: admin.id, permission_key: 'pages.manage' }).first()).to.not.equal(undefined);
    });
  });
});
