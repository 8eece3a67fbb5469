// The sample site of the first run («Commencer avec un site d'exemple», issue 25 item 5):
// a home page, a section «Guides» with three pages that use every built-in block type
// and a picture, and a header menu, all published, each recorded in
// app_pages_sample_content; and «Supprimer le contenu d'exemple», which removes exactly
// that (a page a person added under the section goes too, being part of its subtree; a
// menu edited since is left as edited).
import { inTransaction, type AppContext } from '../lib/context.js';
import { ConflictError, NotFoundError } from '../lib/errors.js';
import type { Actor } from '../models/audit.js';
import type { Block } from '../models/pages/blocks.js';
import { saveMenu } from '../models/pages/menus.js';
import { createPage } from '../models/pages/pages.js';
import { deletePage } from '../models/pages/page-delete.js';
import {
  forgetAddressesDeletedNow,
  forgetSampleContent,
  pageExists,
  recordSampleContent,
  removeMenuIfUnchanged,
  sampleContent,
} from '../models/pages/sample-content.js';
import { addMedia, removeMedia } from './pages-media.js';
import { samplePhoto } from './pages-sample-photo.js';

const TEXT = {
  welcome:
    'L’atelier Terre & Feu accueille petits et grands pour apprendre la céramique : tournage, modelage, émaillage et cuisson. Ce site est un exemple : modifiez ses pages, ou supprimez-les toutes en une fois depuis le tableau de bord.',
  approach:
    'Chaque cours commence par la terre : la choisir, la préparer, la sentir. Vient ensuite le geste, répété jusqu’à ce que la main le connaisse. Les pièces sèchent une semaine, puis passent au four.',
  kneading:
    'Le pétrissage chasse l’air de la terre et lui donne une humidité égale. Une bulle oubliée éclate à la cuisson ; une terre inégale se fend au séchage. Comptez dix minutes pour un pain de deux kilos.',
  firing:
    'La première cuisson, le **biscuit**, durcit la pièce vers 980 °C. La seconde fond l’émail sur sa surface, vers 1 250 °C pour le grès. Entre les deux, la pièce est émaillée au trempé ou au pinceau.',
  wheel: 'Centrer la terre est le premier geste du tournage, et le plus long à apprendre : la motte doit tourner sans battre sous les mains mouillées.',
};

/** Makes the sample site as `actor`; its picture first (a file), then the pages and the menu in one transaction. */
export async function createSampleSite(ctx: AppContext, actor: Actor): Promise<void> {
  const photo = await samplePhoto();
  const media = await addMedia(
    ctx,
    actor,
    { buffer: photo, type: 'jpeg', contentType: 'image/jpeg', size: photo.length, originalName: 'atelier.jpg' },
    { alt: 'Le four de l’atelier au coucher du soleil, devant les collines', caption: 'Le four à bois, allumé deux fois par mois.' },
  );
  try {
    await inTransaction(ctx, async (tx) => {
      const page = (input: Parameters<typeof createPage>[1]) => createPage(tx, input, actor);
      const home = await page({
        title: 'Bienvenue à l’atelier',
        slug: 'accueil',
        seo: { description: 'Cours de céramique pour enfants et adultes : tournage, modelage, émaillage.' },
        blocks: [
          { type: 'paragraph', text: TEXT.welcome },
          { type: 'image', media_id: media.id },
          { type: 'heading', text: 'Notre façon d’enseigner', level: 2 },
          { type: 'paragraph', text: TEXT.approach },
          { type: 'list', items: ['Tournage, le mercredi soir', 'Modelage, le samedi matin', 'Stages d’émaillage pendant les vacances'], ordered: false },
          { type: 'link', href: '/guides', label: 'Lire les guides de l’atelier' },
        ],
      });
      const guides = await page({
        title: 'Guides',
        slug: 'guides',
        seo: { description: 'Les guides de l’atelier : de la terre crue à la pièce cuite.' },
        blocks: [
          { type: 'paragraph', text: 'Tout ce qu’il faut savoir pour travailler la terre, à l’atelier comme chez soi.' },
          { type: 'children', title: 'Les trois guides' },
        ],
      });
      const guide = (title: string, slug: string, description: string, blocks: Block[]) =>
        page({ title, slug, parent_id: guides.id, seo: { description }, blocks });
      const kneading = await guide('Préparer la terre', 'preparer-la-terre', 'Pétrir la terre en spirale pour en chasser l’air.', [
        { type: 'paragraph', text: TEXT.kneading },
        { type: 'heading', text: 'La méthode en spirale', level: 2 },
        { type: 'list', items: ['Coupez le pain au fil', 'Pétrissez cinquante fois', 'Recoupez : la tranche doit être lisse'], ordered: true },
        { type: 'quote', text: 'La terre se souvient de tout ce que la main a oublié.', cite: 'Un potier' },
      ]);
      const wheel = await guide('Le tournage', 'le-tournage', 'Centrer, ouvrir, monter.', [
        { type: 'paragraph', text: TEXT.wheel },
        { type: 'image', media_id: media.id },
        { type: 'link', href: '/guides/preparer-la-terre', label: 'Avant de tourner : préparer la terre' },
      ]);
      const firing = await guide('La cuisson', 'la-cuisson', 'Biscuit, émail et cuisson au bois.', [
        { type: 'heading', text: 'Deux cuissons', level: 2 },
        { type: 'paragraph', text: TEXT.firing },
        { type: 'link', href: '/guides', label: 'Tous les guides' },
      ]);
      const pages = [home, guides, kneading, wheel, firing];
      const menu = await saveMenu(
        tx,
        'header',
        [
          { label: 'Accueil', page_id: home.id, url: null, children: [] },
          {
            label: null,
            page_id: guides.id,
            url: null,
            children: [kneading, wheel, firing].map((each) => ({ label: null, page_id: each.id, url: null, children: [] })),
          },
        ],
        actor,
      );
      await recordSampleContent(tx, [
        ...pages.map((each) => ({ kind: 'page' as const, ref: String(each.id) })),
        { kind: 'media', ref: String(media.id) },
        { kind: 'menu', ref: 'header', state: menu.items },
      ]);
    });
  } catch (error) {
    await removeMedia(ctx, media.id, actor).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the sample content: its pages (each with its subtree), the header menu while
 * it is still the one the sample wrote, then its picture once no page shows it; the
 * record of it last. Safe to run twice.
 */
export async function removeSampleContent(ctx: AppContext, actor: Actor | null): Promise<void> {
  const { pages, media, menus } = await sampleContent(ctx);
  await inTransaction(ctx, async (tx) => {
    // A subtree goes with its root: a page already gone (under another, or deleted by hand) is skipped.
    for (const id of pages) {
      if (await pageExists(tx, id)) await deletePage(tx, id, { cascade: true, actor });
    }
    // Their addresses were never the site's own: not kept as «gone» (410) either.
    await forgetAddressesDeletedNow(tx);
    for (const { ref, state } of menus) await removeMenuIfUnchanged(tx, ref, state);
  });
  for (const id of media) {
    // Still shown by a page someone made (409): it stays, as any media in use would.
    await removeMedia(ctx, id, actor).catch((error: unknown) => {
      if (error instanceof NotFoundError || error instanceof ConflictError) return undefined;
      throw error;
    });
  }
  await forgetSampleContent(ctx);
}
