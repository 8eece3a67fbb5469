// The walk through the site a new owner takes, shared by the browser test
// (test/browser/walk.test.ts) and `npm run screenshots`: the data it needs, the screens
// it visits, and what it checks on each (axe-core, French typography, keyboard focus).
// Screens are reached by URL and forms filled by their labels, so a screen that is
// redesigned keeps being walked.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { projectRoot } from '../../lib/paths.js';
import { createUser } from '../../models/auth/admin-users.js';
import { createPage } from '../../models/pages/pages.js';
import { addMedia } from '../../services/pages-media.js';
import { ADMIN_PERMISSIONS } from './admin-client.js';
import { makeRole, makeUser } from './fixtures.js';
import { typographyProblems } from './typography.js';

const AXE_SOURCE = readFileSync(path.join(projectRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** The anti-bot check of public forms refuses a submission under 1.5 s after rendering. */
export const HUMAN_PAUSE_MS = 1600;
export const WIDTHS = [1280, 375] as const;
export const WALK_PASSWORD = 'correct horse battery staple';
export const OWNER = { name: 'Camille Martin', email: 'camille@example.com' };

export type Who = 'owner' | 'member' | 'visitor';

/** Browser contexts of the walk read dates and numbers in French, as the site's visitors would. */
export const BROWSER_LOCALE = 'fr-FR';

/** A real picture for the media library (a clay-coloured gradient, 640 × 360 PNG), so thumbnails and pages show something. */
function samplePng(width = 640, height = 360): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      const t = x / width;
      const u = y / height;
      row.set([Math.round(196 - 60 * u + 20 * t), Math.round(120 - 40 * u + 30 * t), Math.round(84 - 20 * u + 60 * t)], 1 + x * 3);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface WalkScreen {
  /** A short name: the screenshot's file name and the failure's label. */
  name: string;
  path: string;
  who: Who;
  status?: number;
}

/** What the walk created besides the owner, for the screens' addresses. */
export interface WalkData {
  memberId: number;
  invitedId: number;
  roleId: number;
  mediaId: number;
  homeId: number;
  pageId: number;
  pagePath: string;
  member: { email: string; password: string };
}

/**
 * Content a site owner has after a first hour: a page tree with text and an image, a
 * member, an invitation waiting, a custom role. Made through the models, as the
 * screens would (the audit log fills the same way).
 */
export async function seedWalk(ctx: AppContext, ownerId: number): Promise<WalkData> {
  const actor = { id: ownerId, name: OWNER.name, ip: '127.0.0.1' };
  const roleId = await makeRole(ctx, ['admin.access', 'pages.view', 'pages.manage', 'pages.publish'], 'redaction');
  await ctx.db('app_auth_roles').where({ id: roleId }).update({ label: 'Rédaction', description: 'Écrit et publie les pages.' });
  const member = { email: 'lea@example.com', password: WALK_PASSWORD };
  const memberUser = await makeUser(ctx, { name: 'Léa Dubois', email: member.email, password: member.password });
  // An invitation waiting (no password yet, a setup link valid 48 hours).
  const { user: invited } = await createUser(ctx, { ...actor, permissions: ADMIN_PERMISSIONS }, { name: 'Hugo Bernard', email: 'hugo@example.com' });
  const picture = samplePng();
  const media = await addMedia(
    ctx,
    actor,
    { buffer: picture, type: 'png', contentType: 'image/png', size: picture.length, originalName: 'atelier.png' },
    { alt: 'L’atelier au matin', caption: 'L’atelier, rue des Tanneurs' },
  );
  const home = await createPage(
    ctx,
    {
      title: 'Accueil',
      slug: 'accueil',
      blocks: [{ type: 'paragraph', text: 'Bienvenue à l’atelier de céramique.' }],
    },
    actor,
  );
  const page = await createPage(
    ctx,
    {
      title: 'Nos ateliers',
      slug: 'nos-ateliers',
      blocks: [
        { type: 'heading', text: 'Tournage et modelage', level: 2 },
        { type: 'paragraph', text: 'Des cours pour tous les âges, le mercredi et le samedi.' },
        { type: 'image', media_id: media.id },
        { type: 'list', items: ['Tournage', 'Modelage', 'Émaillage'], ordered: false },
        { type: 'quote', text: 'La terre apprend la patience.', cite: 'Une élève' },
        { type: 'children', title: 'Les ateliers de l’année' },
      ],
    },
    actor,
  );
  await createPage(ctx, { title: 'Poterie d’été', parent_id: page.id }, actor);
  return {
    memberId: memberUser.id,
    invitedId: invited.id,
    roleId,
    mediaId: media.id,
    homeId: home.id,
    pageId: page.id,
    pagePath: '/nos-ateliers',
    member,
  };
}

/** Every screen of the walk once the content exists (the first run and auth forms are walked apart). */
export function walkScreens(data: WalkData, ownerId: number): WalkScreen[] {
  return [
    { name: 'dashboard', path: '/admin', who: 'owner' },
    { name: 'users-list', path: '/admin/users', who: 'owner' },
    { name: 'user-detail', path: `/admin/users/${data.memberId}`, who: 'owner' },
    { name: 'user-invited', path: `/admin/users/${data.invitedId}`, who: 'owner' },
    { name: 'user-own', path: `/admin/users/${ownerId}`, who: 'owner' },
    { name: 'users-new', path: '/admin/users/new', who: 'owner' },
    { name: 'roles-list', path: '/admin/roles', who: 'owner' },
    { name: 'role-new', path: '/admin/roles/new', who: 'owner' },
    { name: 'role-edit', path: `/admin/roles/${data.roleId}`, who: 'owner' },
    { name: 'profile', path: '/account', who: 'owner' },
    { name: 'two-factor', path: '/account/2fa', who: 'owner' },
    { name: 'audit', path: '/admin/audit', who: 'owner' },
    { name: 'pages-tree', path: '/admin/pages', who: 'owner' },
    { name: 'page-new', path: '/admin/pages/new', who: 'owner' },
    { name: 'page-editor', path: `/admin/pages/${data.pageId}`, who: 'owner' },
    { name: 'media-list', path: '/admin/media', who: 'owner' },
    { name: 'media-item', path: `/admin/media/${data.mediaId}`, who: 'owner' },
    { name: 'forbidden', path: '/admin/users', who: 'member', status: 403 },
    { name: 'member-profile', path: '/account', who: 'member' },
    { name: 'public-home', path: '/', who: 'visitor' },
    { name: 'public-page', path: data.pagePath, who: 'visitor' },
    { name: 'not-found', path: '/pas-de-page-ici', who: 'visitor', status: 404 },
    { name: 'login', path: '/auth/login', who: 'visitor' },
    { name: 'register', path: '/auth/register', who: 'visitor' },
    { name: 'forgot', path: '/auth/forgot', who: 'visitor' },
  ];
}

/**
 * What a person reads on the page: the tab title, the rendered text (hidden elements
 * excluded, code too), and the texts read aloud or shown on hover (aria-label, title, alt,
 * placeholder, button values).
 */
export async function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    // Code, addresses and raw data shown as code are not prose: hidden while the text is read.
    const code = [...document.querySelectorAll('code, pre, kbd, samp')] as HTMLElement[];
    const displays = code.map((element) => element.style.display);
    for (const element of code) element.style.display = 'none';
    const parts = [document.title, document.body.innerText];
    code.forEach((element, index) => (element.style.display = displays[index]));
    for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], img[alt], input[type="submit"], input[type="button"]')) {
      for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = element.getAttribute(name);
        if (value) parts.push(value);
      }
      if (element instanceof HTMLInputElement && (element.type === 'submit' || element.type === 'button')) parts.push(element.value);
    }
    return parts.join('\n');
  });
}

/** French typography problems of a text, one line each, labelled. */
export function typographyFindings(text: string, where: string): string[] {
  return typographyProblems(text).map((problem) => `${where}: ${problem.kind} «${problem.excerpt}»`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

async function runAxe(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .slice(0, 4)
        .map((node) => node.target.join(' '))
        .join(', ')}`,
  );
}

/**
 * axe-core's violations on the page as it stands. A page shown with JavaScript off has
 * no script to run axe in: its HTML (scripts removed, styles kept through a <base>) is
 * checked in `inspector`, a page of a JavaScript-enabled context of the same width.
 */
export async function axeViolations(page: Page, inspector?: Page): Promise<string[]> {
  if (!inspector) return runAxe(page);
  const url = new URL(page.url());
  const html = (await page.content()).replace(/<script\b[\s\S]*?<\/script>/gi, '').replace(/<head([^>]*)>/i, `<head$1><base href="${url.origin}/">`);
  await inspector.setContent(html, { waitUntil: 'load' });
  return runAxe(inspector);
}

/** Checks one screen: axe and typography; returns every finding (empty when all is well). */
export async function checkScreen(page: Page, where: string, inspector?: Page): Promise<string[]> {
  const findings = (await axeViolations(page, inspector)).map((violation) => `${where}: axe ${violation}`);
  findings.push(...typographyFindings(await readableText(page), where));
  return findings;
}

export interface FocusStop {
  /** Tag, accessible name or text, for the failure message. */
  label: string;
  /** Its label, aria-label or text. */
  name: string;
  top: number;
  bottom: number;
  left: number;
  /** The landmark holding it (header, nav, main, footer…): reading order is checked inside each. */
  region: string;
  /** Whether its outline, box-shadow, border or background differs from when it is not focused. */
  visibleFocus: boolean;
}

const FOCUS_STYLE_KEYS = ['outline-style', 'outline-width', 'outline-color', 'box-shadow', 'border-color', 'background-color', 'text-decoration-line'];

export type FocusStyle = Record<string, string>;

export interface TabStop {
  stop: Omit<FocusStop, 'visibleFocus'>;
  /** The element's style now that it has the focus. */
  focused: FocusStyle;
  /** The style of the element focused before, now that the focus left it (undefined at the first stop of a page). */
  previousUnfocused?: FocusStyle;
}

/**
 * Presses Tab once and describes the element that took the focus. The element it left
 * is read again at the same moment: its "not focused" look, compared by `showsFocus`
 * with the one it had focused (a script cannot focus an element the way the keyboard does).
 */
export async function tab(page: Page): Promise<TabStop | undefined> {
  await page.keyboard.press('Tab');
  // No function is declared inside the callbacks: the TypeScript loader would wrap it in a helper the page lacks.
  return page.evaluate((keys) => {
    const element = document.activeElement as HTMLElement | null;
    const left = document.querySelector('[data-walk-focus]');
    let previousUnfocused: Record<string, string> | undefined;
    if (left && left !== element) {
      const style = getComputedStyle(left);
      previousUnfocused = Object.fromEntries(keys.map((key) => [key, style.getPropertyValue(key)]));
      left.removeAttribute('data-walk-focus');
    }
    if (!element || element === document.body) return undefined;
    element.setAttribute('data-walk-focus', '1');
    const box = element.getBoundingClientRect();
    const region = element.closest('header, nav, main, footer, aside, [role="banner"], [role="navigation"], [role="main"], [role="contentinfo"]');
    const labelled = element.id ? document.querySelector(`label[for="${element.id}"]`)?.textContent : undefined;
    const name = (labelled || element.getAttribute('aria-label') || element.textContent || (element as HTMLInputElement).name || element.id || '').trim();
    return {
      stop: {
        label: `${element.tagName.toLowerCase()} «${name.replace(/\s+/g, ' ').slice(0, 50)}»`,
        name,
        top: box.top + window.scrollY,
        bottom: box.bottom + window.scrollY,
        left: box.left + window.scrollX,
        region: region ? `${region.tagName.toLowerCase()}${region.id ? '#' + region.id : ''}` : 'body',
      },
      focused: Object.fromEntries(keys.map((key) => [key, getComputedStyle(element).getPropertyValue(key)])),
      previousUnfocused,
    };
  }, FOCUS_STYLE_KEYS);
}

/** The focused element's style without the focus (blurred, read, focused again), for the last stop before leaving a page. */
export async function blurredStyle(page: Page): Promise<FocusStyle | undefined> {
  return page.evaluate((keys) => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return undefined;
    element.blur();
    const style = getComputedStyle(element);
    const read = Object.fromEntries(keys.map((key) => [key, style.getPropertyValue(key)]));
    element.focus();
    element.removeAttribute('data-walk-focus');
    return read;
  }, FOCUS_STYLE_KEYS);
}

/** Whether a focused style shows focus: a drawn outline, or any focus-related property that changed. */
export function showsFocus(focused: FocusStyle, unfocused: FocusStyle): boolean {
  const outline = focused['outline-style'] !== 'none' && parseFloat(focused['outline-width']) > 0;
  const changed = FOCUS_STYLE_KEYS.some((key) => focused[key] !== unfocused[key]);
  return outline || changed;
}

/**
 * Tab order follows the visual order: within one landmark, each stop is below the
 * previous one, or on the same line and to its right. Returns the stops out of order.
 */
export function outOfOrder(stops: FocusStop[]): string[] {
  const problems: string[] = [];
  for (let index = 1; index < stops.length; index++) {
    const previous = stops[index - 1];
    const stop = stops[index];
    if (stop.region !== previous.region) continue;
    const sameLine = stop.top < previous.bottom - 2 && stop.bottom > previous.top + 2;
    const below = stop.top >= previous.bottom - 2;
    if (below || (sameLine && stop.left >= previous.left - 2)) continue;
    problems.push(
      `${previous.label} → ${stop.label} (${Math.round(previous.left)},${Math.round(previous.top)} → ${Math.round(stop.left)},${Math.round(stop.top)})`,
    );
  }
  return problems;
}
