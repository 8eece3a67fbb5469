// A small realistic site for `npm run lighthouse` and the themes' screenshots: a home
// page with paragraphs, a heading, a captioned picture and a list; a guide four levels
// deep whose last level has siblings (the documentation theme's previous/next links); a
// few root pages for the menu; a tagline, an accent colour and a footer. Made through the
// models, as the admin screens would. Once the documentation theme is active, the depth-4
// page becomes one of its guides with a callout, through the admin API (the theme's
// template and block type are known to the pages module only while it is active).
import { inTransaction, type AppContext } from '../lib/context.js';
import { ValidationError } from '../lib/errors.js';
import type { Block } from '../models/pages/blocks.js';
import { createPage } from '../models/pages/pages.js';
import { updateSettings } from '../models/settings/settings.js';
import { addMedia } from '../services/pages-media.js';
import { samplePhoto } from '../services/pages-sample-photo.js';
import { logIn, makeUser } from '../test/support/fixtures.js';

/** The built-in themes, the default first. */
export const THEMES = ['default', 'docs'] as const;

export interface SampleSite {
  homePath: '/';
  depthFourPath: string;
  /**
   * Makes `theme` the active one, as the settings screen would (then, for `docs`, makes the
   * depth-4 page a guide with a callout); a refusal's message when it cannot be (not installed).
   */
  useTheme(theme: string): Promise<string | undefined>;
}

/** The depth-4 page as a guide of the documentation theme, with a callout, saved as an editor would through the API. */
async function makeGuide(ctx: AppContext, baseUrl: string, pageId: number): Promise<void> {
  const editor = await logIn(ctx, await makeUser(ctx, { role: 'admin', name: 'Rédaction' }));
  const callout = { type: 'callout', tone: 'tip', text: 'Une terre trop molle colle aux mains : laissez-la **une heure** sur une planche de plâtre.' };
  const res = await fetch(`${baseUrl}/app/api/admin/pages/${pageId}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', Cookie: editor.cookie, Origin: baseUrl },
    body: JSON.stringify({ template: 'guide', blocks: kneadingBlocks(callout) }),
  });
  if (!res.ok) throw new Error(`the guide could not be saved (${res.status}): ${await res.text()}`);
}

const LOREM = {
  welcome:
    'L’atelier Terre & Feu accueille petits et grands pour apprendre la céramique : tournage, modelage, émaillage et cuisson. Nos cours ont lieu en petits groupes, dans un atelier lumineux au bord du canal.',
  approach:
    'Chaque cours commence par la terre : la choisir, la préparer, la sentir. Vient ensuite le geste, répété jusqu’à ce que la main le connaisse. Les pièces sèchent une semaine, puis passent au four ; vous les emportez après la seconde cuisson.',
  practical: 'Le matériel, la terre et les cuissons sont compris. Il suffit de venir avec des vêtements qui ne craignent rien.',
  kneading:
    'Le pétrissage chasse l’air de la terre et lui donne une humidité égale. Une bulle oubliée éclate à la cuisson ; une terre inégale se fend au séchage. Comptez dix minutes pour un pain de deux kilos.',
  spiral:
    'La méthode en spirale, dite « tête de bélier » pour la forme qu’elle donne au pain, est la plus sûre : la paume pousse la terre vers l’avant et vers le bas, l’autre main la fait tourner d’un quart de tour.',
};

/** The depth-4 page's blocks; the documentation theme adds a callout after the first paragraph. */
function kneadingBlocks(callout?: Block): Block[] {
  return [
    { type: 'paragraph', text: LOREM.kneading },
    ...(callout ? [callout] : []),
    { type: 'heading', text: 'La méthode en spirale', level: 2 },
    { type: 'paragraph', text: LOREM.spiral },
    { type: 'list', items: ['Coupez le pain au fil', 'Pétrissez cinquante fois', 'Recoupez : la tranche doit être lisse'], ordered: true },
    { type: 'quote', text: 'La terre se souvient de tout ce que la main a oublié.', cite: 'Un potier' },
  ];
}

/** Seeds the site on the app's database (the app listening at `baseUrl`); returns its addresses. */
export async function seedSampleSite(ctx: AppContext, baseUrl: string): Promise<SampleSite> {
  const photo = await samplePhoto();
  const media = await addMedia(
    ctx,
    null,
    { buffer: photo, type: 'jpeg', contentType: 'image/jpeg', size: photo.length, originalName: 'atelier.jpg' },
    { alt: 'Le four de l’atelier au coucher du soleil, devant les collines', caption: 'Le four à bois, allumé deux fois par mois.' },
  );
  const seo = (description: string) => ({ description });
  await createPage(ctx, {
    title: 'Bienvenue à l’atelier',
    slug: 'accueil',
    seo: seo('Cours de céramique pour enfants et adultes : tournage, modelage, émaillage.'),
    blocks: [
      { type: 'paragraph', text: LOREM.welcome },
      { type: 'image', media_id: media.id },
      { type: 'heading', text: 'Notre façon d’enseigner', level: 2 },
      { type: 'paragraph', text: LOREM.approach },
      { type: 'list', items: ['Tournage, le mercredi soir', 'Modelage, le samedi matin', 'Stages d’émaillage pendant les vacances'], ordered: false },
      { type: 'paragraph', text: `${LOREM.practical} Les [guides](/guides) expliquent chaque étape.` },
    ],
  });
  const guides = await createPage(ctx, {
    title: 'Guides',
    slug: 'guides',
    template: 'section',
    seo: seo('Les guides de l’atelier : de la terre crue à la pièce cuite.'),
    blocks: [{ type: 'paragraph', text: 'Tout ce qu’il faut savoir pour travailler la terre à l’atelier comme chez soi.' }],
  });
  const start = await createPage(ctx, {
    title: 'Bien démarrer',
    slug: 'bien-demarrer',
    parent_id: guides.id,
    seo: seo('Les premiers pas : préparer la terre, s’installer au tour.'),
    blocks: [{ type: 'paragraph', text: 'Les premiers pas à l’atelier, dans l’ordre où ils viennent.' }],
  });
  await createPage(ctx, { title: 'Cuisson', slug: 'cuisson', parent_id: guides.id, seo: seo('Biscuit, émail et cuisson au bois.') });
  const clay = await createPage(ctx, {
    title: 'Préparer la terre',
    slug: 'preparer-la-terre',
    parent_id: start.id,
    seo: seo('Choisir, pétrir et conserver la terre.'),
    blocks: [{ type: 'paragraph', text: 'Une terre bien préparée est la moitié du travail.' }],
  });
  await createPage(ctx, { title: 'Le tournage', slug: 'le-tournage', parent_id: start.id, seo: seo('Centrer, ouvrir, monter.') });
  await createPage(ctx, { title: 'Choisir sa terre', slug: 'choisir-sa-terre', parent_id: clay.id, seo: seo('Faïence, grès ou porcelaine.') });
  const kneading = await createPage(ctx, {
    title: 'Le pétrissage',
    slug: 'le-petrissage',
    parent_id: clay.id,
    seo: seo('Pétrir la terre en spirale pour en chasser l’air.'),
    blocks: kneadingBlocks(),
  });
  await createPage(ctx, { title: 'Conserver la terre', slug: 'conserver-la-terre', parent_id: clay.id, seo: seo('Humidité, sacs et seaux.') });
  await createPage(ctx, { title: 'Ateliers', slug: 'ateliers', seo: seo('Les cours de la semaine et les stages.') });
  await createPage(ctx, { title: 'Contact', slug: 'contact', seo: seo('Nous écrire, nous trouver.') });
  await inTransaction(ctx, (tx) =>
    updateSettings(
      tx,
      { tagline: 'Cours de céramique au bord du canal', accent_colour: '#b4441f', footer: '© Atelier Terre & Feu — 12 quai de la Loire, Paris' },
      null,
    ),
  );
  const depthFourPath = `/guides/bien-demarrer/preparer-la-terre/${kneading.slug}`;

  return {
    homePath: '/',
    depthFourPath,
    async useTheme(theme) {
      try {
        await inTransaction(ctx, (tx) => updateSettings(tx, { theme }, null));
      } catch (error) {
        if (error instanceof ValidationError) return error.message;
        throw error;
      }
      // Every process hears the change through NOTIFY within a second; this one too.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      if (theme === 'docs') await makeGuide(ctx, baseUrl, kneading.id);
      return undefined;
    },
  };
}
