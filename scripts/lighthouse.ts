// npm run lighthouse: the four Lighthouse scores (performance, accessibility, best
// practices, SEO; mobile, simulated throttling) of the public site's home page, of a
// depth-4 page and of a page with three photographs (their renditions made first, as the
// background work would), for each built-in theme, on a small realistic site (paragraphs, a heading,
// an image with its caption, a list, child pages) seeded into a scratch database (see
// bench/support.ts: BENCH_DATABASE_URL, TEST_DATABASE_URL or DATABASE_URL's server, else
// an embedded PostgreSQL), served by the application with its production settings.
// Chromium is Debian's (/usr/bin/chromium), headless; Lighthouse drives it over its
// DevTools port. Target: 100 for accessibility, best practices and SEO, ≥ 95 for performance,
// and none of the findings the responsive images answer (listed under the table when seen).
//
//   npm run lighthouse [-- --theme docs] [-- --json <folder>]   (the full reports, one file per page)
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { closeApp, createApp } from '../app.js';
import { option, scratchDatabase } from '../bench/support.js';
import { loadConfig } from '../lib/config.js';
import { freePort } from '../lib/embedded-postgres.js';
import { CHROMIUM } from '../test/support/browser.js';
import { makeDueRenditions } from '../services/pages-media-renditions.js';
import { seedSampleSite, THEMES } from './sample-site.js';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const TARGETS: Record<(typeof CATEGORIES)[number], number> = { performance: 95, accessibility: 100, 'best-practices': 100, seo: 100 };
/** Findings the responsive images must leave out: «Properly size images», «Serve images in next-gen formats», layout shifts. */
const IMAGE_AUDITS = ['uses-responsive-images', 'modern-image-formats', 'cumulative-layout-shift', 'layout-shifts', 'unsized-images'];

/** Debian's Chromium, headless, its DevTools on `port` (no sandbox when run as root, which it refuses otherwise). */
async function startChromium(port: number, profile: string): Promise<ChildProcess> {
  const args = [
    '--headless=new',
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${profile}`,
    '--disable-gpu',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    'about:blank',
  ];
  if (process.getuid?.() === 0) args.unshift('--no-sandbox');
  const child = spawn(CHROMIUM, args, { stdio: 'ignore' });
  for (let tries = 0; tries < 100; tries++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`Chromium did not open its DevTools port (${CHROMIUM}; apt-get install -y chromium)`);
}

type Scores = Record<(typeof CATEGORIES)[number], number>;
type Audited = { scores: Scores; imageFindings: string[] };

async function audit(url: string, port: number, jsonFolder: string | undefined, name: string): Promise<Audited> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
  if (jsonFolder) writeFileSync(path.join(jsonFolder, `${name}.json`), JSON.stringify(lhr, null, 1));
  const scores = Object.fromEntries(CATEGORIES.map((category) => [category, Math.round(100 * (lhr.categories[category].score ?? 0))])) as Scores;
  // An image finding: an audit that fails, or one that lists items (wasted bytes, shifted elements).
  const imageFindings = IMAGE_AUDITS.filter((id) => lhr.audits[id])
    .filter((id) => {
      const item = lhr.audits[id];
      const details = item.details as { items?: unknown[] } | undefined;
      return (item.score !== null && item.score < 0.9) || (id !== 'cumulative-layout-shift' && (details?.items?.length ?? 0) > 0);
    })
    .map((id) => `${id} (${lhr.audits[id].score}) ${lhr.audits[id].displayValue ?? ''}`.trim());
  // What kept a category under its target, so that the table says what to fix.
  for (const category of CATEGORIES) {
    if (scores[category] >= TARGETS[category]) continue;
    for (const ref of lhr.categories[category].auditRefs) {
      const item = lhr.audits[ref.id];
      if (ref.weight > 0 && item.score !== null && item.score < 1)
        console.log(`    ${name} ${category}: ${item.id} (${item.score}) ${item.displayValue ?? ''}`);
    }
  }
  return { scores, imageFindings };
}

async function main(): Promise<void> {
  const onlyTheme = option('theme', 'LIGHTHOUSE_THEME', '');
  const jsonFolder = option('json', 'LIGHTHOUSE_JSON', '') || undefined;
  if (jsonFolder) mkdirSync(jsonFolder, { recursive: true });
  const scratch = await scratchDatabase('lighthouse', { orDatabaseUrl: true });
  const profile = mkdtempSync(path.join(os.tmpdir(), 'lighthouse-chromium-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // Production settings: compiled views kept, public pages cached, static files with their caching.
  const app = createApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: scratch.url,
      DATA_DIR: scratch.dataDir,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      BASE_URL: baseUrl,
      MAIL_OUTBOX: 'true',
      APP_NAME: 'Atelier Terre & Feu',
      LOG_LEVEL: 'warn',
    }),
  );
  let server: Server | undefined;
  let chromium: ChildProcess | undefined;
  try {
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    const ctx = app.locals.ctx;
    const site = await seedSampleSite(ctx, baseUrl);
    const claims = await makeDueRenditions(ctx);
    console.log(`renditions made for ${claims} media`);
    const debuggingPort = await freePort();
    chromium = await startChromium(debuggingPort, profile);

    const rows: Array<{ theme: string; page: string } & Audited> = [];
    const unavailable: string[] = [];
    for (const theme of THEMES) {
      if (onlyTheme && theme !== onlyTheme) continue;
      const refusal = await site.useTheme(theme);
      if (refusal) {
        unavailable.push(`${theme}: ${refusal}`);
        continue;
      }
      for (const [page, pagePath] of [
        ['home', '/'],
        ['depth 4', site.depthFourPath],
        ['three images', site.galleryPath],
      ] as const) {
        // One visit first: the page's answer is then in the read cache, as for any visitor but the first.
        await fetch(baseUrl + pagePath);
        const audited = await audit(baseUrl + pagePath, debuggingPort, jsonFolder, `${theme}-${page.replaceAll(' ', '-')}`);
        rows.push({ theme, page: `${page} (${pagePath})`, ...audited });
      }
    }

    const header = ['theme'.padEnd(8), 'page'.padEnd(44), 'perf.', 'a11y', 'b.p.', 'SEO'];
    console.log(`\n${header.join('  ')}`);
    for (const { theme, page, scores } of rows) {
      const cells = CATEGORIES.map((category) => `${String(scores[category]).padStart(3)}${scores[category] < TARGETS[category] ? '!' : ' '}`);
      console.log(`${theme.padEnd(8)}  ${page.padEnd(44)}  ${cells.join('  ')}`);
    }
    console.log('(mobile, simulated throttling; targets: performance ≥ 95, the others 100; ! marks a miss)');
    for (const { theme, page, imageFindings } of rows) for (const finding of imageFindings) console.log(`image finding: ${theme} ${page}: ${finding}`);
    for (const line of unavailable) console.log(`not measured: ${line}`);
    if (rows.some(({ scores, imageFindings }) => imageFindings.length > 0 || CATEGORIES.some((category) => scores[category] < TARGETS[category])))
      process.exitCode = 1;
  } finally {
    chromium?.kill();
    const listening = server;
    if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
    await closeApp(app);
    await scratch.cleanup();
    rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
