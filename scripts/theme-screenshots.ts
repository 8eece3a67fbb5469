// npm run screenshots:themes: each built-in theme on the sample site (scripts/sample-site.ts),
// its home page and its depth-4 page photographed by Chromium at 1280 and 375 px into
// docs/screens/theme-<theme>-<home|page>-<width>.png (`npm run screenshots` takes the
// walk's screens and leaves these). The database is a scratch one, as for the screenshots.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { closeApp, createApp } from '../app.js';
import { option, scratchDatabase } from '../bench/support.js';
import { loadConfig } from '../lib/config.js';
import { projectRoot } from '../lib/paths.js';
import { CHROMIUM, launchChromium, listenOnFreePort } from '../test/support/browser.js';
import { BROWSER_LOCALE, WIDTHS } from '../test/support/walk.js';
import { seedSampleSite, THEMES } from './sample-site.js';

const OUT = path.join(projectRoot, 'docs', 'screens');

async function main(): Promise<void> {
  // `--scheme dark --out <folder>`: the dark variant, elsewhere (to look at it).
  const scheme = option('scheme', 'SCREENS_SCHEME', 'light') === 'dark' ? 'dark' : 'light';
  const out = option('out', 'SCREENS_OUT', OUT);
  const scratch = await scratchDatabase('theme-screens', { orDatabaseUrl: true });
  const app = createApp(
    loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: scratch.url,
      DATA_DIR: scratch.dataDir,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      APP_NAME: 'Atelier Terre & Feu',
      LOG_LEVEL: 'silent',
    }),
  );
  const { server, baseUrl } = await listenOnFreePort(app);
  let browser: Browser | undefined;
  try {
    const site = await seedSampleSite(app.locals.ctx, baseUrl);
    browser = await launchChromium(CHROMIUM);
    mkdirSync(out, { recursive: true });
    for (const file of readdirSync(out)) if (file.startsWith('theme-') && file.endsWith('.png')) rmSync(path.join(out, file));
    for (const theme of THEMES) {
      const refusal = await site.useTheme(theme);
      if (refusal) {
        console.log(`${theme}: not photographed (${refusal})`);
        continue;
      }
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: BROWSER_LOCALE, colorScheme: scheme });
        const page = await context.newPage();
        for (const [name, pagePath] of [
          ['home', site.homePath],
          ['page', site.depthFourPath],
        ] as const) {
          await page.goto(baseUrl + pagePath);
          await page.evaluate(() => document.fonts.ready);
          // The pictures are lazy: loaded before the full-page picture is taken.
          await page.evaluate(() => Promise.all([...document.images].map((image) => ((image.loading = 'eager'), image.decode().catch(() => undefined)))));
          await page.screenshot({ path: path.join(out, `theme-${theme}-${name}-${width}.png`), fullPage: true });
        }
        await context.close();
      }
    }
    console.log(`${readdirSync(out).filter((file) => file.startsWith('theme-')).length} screenshots in ${path.relative(projectRoot, out) || out}/`);
  } finally {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeApp(app);
    await scratch.cleanup();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
