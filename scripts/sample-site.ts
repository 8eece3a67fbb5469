// A small realistic site for `npm run lighthouse` and the themes' screenshots: a home
// page with paragraphs, a heading, a captioned picture and a list; a gallery of three
// photographs of 2400 × 1600 (grainy, so that they weigh what photographs weigh: about
// 1 MB each as JPEG) under «Ateliers», for the responsive images; a guide four levels
// deep whose last level has siblings (the documentation theme's previous/next links); a
// few root pages for the menu; a tagline, an accent colour and a footer. Made through the
// models, as the admin screens would. Once the documentation theme is active, the depth-4
// page becomes one of its guides with a callout, through the admin API (the theme's
// template and block type are known to the pages module only while it is active).
import sharp from 'sharp';
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
  /** A page showing three photographs. */
  galleryPath: string;
  /**
   * Makes `theme` the active one, as the settings screen would (then, for `docs`, makes the
   * depth-4 page a guide with a callout); a refusal's message when it cannot be (not installed).
   */
  useTheme(theme: string): Promise<string | undefined>;
}

/** A photograph-like picture: a landscape in `colours` (sky, hills, foreground) with grain. */
async function grainyPhoto(colours: [string, string, string], width = 2400, height = 1600): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 1200 800">
  <defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${colours[0]}"/><stop offset="1" stop-color="#f4e6d2"/></linearGradient></defs>
  <rect width="1200" height="800" fill="url(#s)"/>
  <circle cx="860" cy="200" r="80" fill="#fff4da"/>
  <path d="M0 520 C200 430 420 500 640 450 S1000 400 1200 470 V800 H0 Z" fill="${colours[1]}"/>
  <path d="M0 650 C260 590 560 660 820 610 S1100 600 1200 630 V800 H0 Z" fill="${colours[2]}"/>
</svg>`;
  const grain = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 24 } } })
    .png()
    .toBuffer();
  return sharp(Buffer.from(svg))
    .composite([{ input: grain, blend: 'soft-light' }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/** The gallery's page: three photographs between paragraphs. */
async function makeGallery(ctx: AppContext, parentId: number): Promise<string> {
  const pictures: Array<{ name: string; colours: [string, string, string]; alt: string }> = [
    { name: 'canal.jpg', colours: ['#6f9bd1', '#7d9c5a', '#4e6b35'], alt: 'Le canal au printemps, vu de l’atelier' },
    { name: 'four.jpg', colours: ['#e39a5b', '#a0543a', '#5f2e22'], alt: 'Le four à bois un soir de cuisson' },
    { name: 'collines.jpg', colours: ['#9fb7d9', '#8a8f6a', '#555b3d'], alt: 'Les collines où la terre est extraite' },
  ];
  const blocks: Block[] = [{ type: 'paragraph', text: 'Quelques images de l’atelier et de ses environs, au fil des saisons.' }];
  for (const picture of pictures) {
    const photo = await grainyPhoto(picture.colours);
    const media = await addMedia(
      ctx,
      null,
      { buffer: photo, type: 'jpeg', contentType: 'image/jpeg', size: photo.length, originalName: picture.name, width: 2400, height: 1600 },
      { alt: picture.alt, caption: picture.alt },
    );
    blocks.push({ type: 'image', media_id: media.id }, { type: 'paragraph', text: LOREM.practical });
  }
  const page = await createPage(ctx, { title: 'Galerie', slug: 'galerie', parent_id: parentId, seo: { description: 'L’atelier en images.' }, blocks });
  return `/ateliers/${page.slug}`;
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
  const workshops = await createPage(ctx, { title: 'Ateliers', slug: 'ateliers', seo: seo('Les cours de la semaine et les stages.') });
  const galleryPath = await makeGallery(ctx, workshops.id);
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
    galleryPath,
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
