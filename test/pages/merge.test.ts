// The three-way merge of a page's content (models/pages/merge.ts), over a table of cases:
// the page's fields, SEO keys, block edits, moves, inserts, deletes, edit against delete.
import { expect } from 'chai';
import type { Block } from '../../models/pages/blocks.js';
import { mergeContent, type MergeConflict } from '../../models/pages/merge.js';
import type { PageContent } from '../../models/pages/revision-store.js';

const p = (id: string, text: string): Block => ({ type: 'paragraph', text, id });
const h = (id: string, text: string, level = 2): Block => ({ type: 'heading', text, level, id });

const BASE: PageContent = {
  title: 'Horaires',
  slug: 'horaires',
  parent_id: null,
  template: 'default',
  blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')],
  seo: { title: 'Horaires', description: 'Quand venir' },
  visibility: 'public',
  created_at: new Date('2026-01-01T00:00:00Z'),
};

type Change = Partial<PageContent>;
interface Case {
  name: string;
  mine: Change;
  theirs: Change;
  merged?: Change;
  conflicts?: MergeConflict[];
}

const cases: Case[] = [
  { name: 'nothing changed on either side', mine: {}, theirs: {}, merged: {} },
  { name: 'a page field changed on one side only', mine: { title: 'Nos horaires' }, theirs: {}, merged: { title: 'Nos horaires' } },
  { name: 'a page field changed on the other side only', mine: {}, theirs: { title: 'Heures' }, merged: { title: 'Heures' } },
  { name: 'two different page fields', mine: { title: 'Nos horaires' }, theirs: { slug: 'heures' }, merged: { title: 'Nos horaires', slug: 'heures' } },
  { name: 'the same page field, the same value', mine: { title: 'Heures' }, theirs: { title: 'Heures' }, merged: { title: 'Heures' } },
  {
    name: 'the same page field, two values',
    mine: { title: 'Nos horaires' },
    theirs: { title: 'Heures' },
    conflicts: [{ field: 'title', base: 'Horaires', mine: 'Nos horaires', theirs: 'Heures' }],
  },
  {
    name: 'the creation date changed on one side (compared as a time)',
    mine: { created_at: new Date('2026-01-01T00:00:00Z') },
    theirs: { created_at: new Date('2025-06-01T00:00:00Z') },
    merged: { created_at: new Date('2025-06-01T00:00:00Z') },
  },
  {
    name: 'two SEO keys',
    mine: { seo: { title: 'Nos horaires', description: 'Quand venir' } },
    theirs: { seo: { title: 'Horaires', description: 'Jours et heures' } },
    merged: { seo: { title: 'Nos horaires', description: 'Jours et heures' } },
  },
  {
    name: 'the same SEO key, two values',
    mine: { seo: { title: 'A', description: 'Quand venir' } },
    theirs: { seo: { title: 'B', description: 'Quand venir' } },
    conflicts: [{ field: 'seo.title', base: 'Horaires', mine: 'A', theirs: 'B' }],
  },
  {
    name: 'two different blocks edited',
    mine: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche et les jours fériés')] },
    merged: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche et les jours fériés')] },
  },
  {
    name: 'two different fields of one block',
    mine: { blocks: [h('a', 'Quand ouvrons-nous'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture', 3), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [h('a', 'Quand ouvrons-nous', 3), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
  },
  {
    name: 'the same field of one block, the same value',
    mine: { blocks: [h('a', 'Ouverture'), p('b', 'Tous les jours'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Tous les jours'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [h('a', 'Ouverture'), p('b', 'Tous les jours'), p('c', 'Fermé le dimanche')] },
  },
  {
    name: 'the same field of one block, two values',
    mine: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Tous les jours'), p('c', 'Fermé le dimanche')] },
    conflicts: [{ block_id: 'b', field: 'text', base: 'Du lundi au vendredi', mine: 'Du lundi au samedi', theirs: 'Tous les jours' }],
  },
  {
    name: 'a block moved on one side, another edited on the other',
    mine: { blocks: [p('c', 'Fermé le dimanche'), h('a', 'Ouverture'), p('b', 'Du lundi au vendredi')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [p('c', 'Fermé le dimanche'), h('a', 'Ouverture'), p('b', 'Du lundi au samedi')] },
  },
  {
    name: 'a block moved on the other side, another edited on this one',
    mine: { blocks: [h('a', 'Horaires d’été'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche'), p('b', 'Du lundi au vendredi')] },
    merged: { blocks: [h('a', 'Horaires d’été'), p('c', 'Fermé le dimanche'), p('b', 'Du lundi au vendredi')] },
  },
  {
    name: 'a block inserted on each side, at different places',
    mine: { blocks: [h('a', 'Ouverture'), p('m', 'Nouveau ici'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche'), p('t', 'Nouveau là')] },
    merged: { blocks: [h('a', 'Ouverture'), p('m', 'Nouveau ici'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche'), p('t', 'Nouveau là')] },
  },
  {
    name: 'a block inserted at the top on the other side',
    mine: { title: 'Nos horaires' },
    theirs: { blocks: [p('t', 'Avis'), h('a', 'Ouverture'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    merged: { title: 'Nos horaires', blocks: [p('t', 'Avis'), h('a', 'Ouverture'), p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
  },
  {
    name: 'a block deleted on one side, another edited on the other',
    mine: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au vendredi')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi')] },
  },
  {
    name: 'the same block deleted on both sides',
    mine: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] },
  },
  {
    name: 'a block deleted on the other side, untouched here though its keys come in another order',
    mine: { blocks: [{ id: 'a', level: 2, text: 'Ouverture', type: 'heading' }, p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
    merged: { blocks: [p('b', 'Du lundi au vendredi'), p('c', 'Fermé le dimanche')] },
  },
  {
    name: 'a block deleted on one side and edited on the other',
    mine: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    conflicts: [{ block_id: 'b', base: p('b', 'Du lundi au vendredi'), mine: null, theirs: p('b', 'Du lundi au samedi') }],
  },
  {
    name: 'a block edited on one side and deleted on the other',
    mine: { blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    theirs: { blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] },
    conflicts: [{ block_id: 'b', base: p('b', 'Du lundi au vendredi'), mine: p('b', 'Du lundi au samedi'), theirs: null }],
  },
  {
    name: 'only the conflicting field is reported, the rest merges',
    mine: { title: 'Nos horaires', blocks: [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')] },
    theirs: { slug: 'heures', blocks: [h('a', 'Ouverture', 3), p('b', 'Tous les jours'), p('c', 'Fermé le dimanche')] },
    conflicts: [{ block_id: 'b', field: 'text', base: 'Du lundi au vendredi', mine: 'Du lundi au samedi', theirs: 'Tous les jours' }],
  },
];

describe('mergeContent (three-way merge of a page)', () => {
  for (const { name, mine, theirs, merged, conflicts } of cases) {
    it(name, () => {
      const result = mergeContent(BASE, { ...BASE, ...mine }, { ...BASE, ...theirs });
      expect(result.conflicts).to.deep.equal(conflicts ?? []);
      if (merged) expect(result.content).to.deep.equal({ ...BASE, ...merged });
    });
  }

  it('where a conflict is, the merged content holds the saver’s version, the rest merged', () => {
    const { content } = mergeContent(BASE, { ...BASE, title: 'A', slug: 'a' }, { ...BASE, title: 'B', template: 'section' });
    expect(content).to.include({ title: 'A', slug: 'a', template: 'section' });
  });

  it('keeps a block edited on one side and removed on the other in the merged content, at its place', () => {
    const edited = [h('a', 'Ouverture'), p('b', 'Du lundi au samedi'), p('c', 'Fermé le dimanche')];
    const { content } = mergeContent(BASE, { ...BASE, blocks: [h('a', 'Ouverture'), p('c', 'Fermé le dimanche')] }, { ...BASE, blocks: edited });
    expect(content.blocks).to.deep.equal(edited);
  });
});
