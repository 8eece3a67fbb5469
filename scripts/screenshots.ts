// npm run screenshots: the walk of a new site owner (test/support/walk.ts) on a scratch
// database, photographed by Chromium at 1280 and 375 px into docs/screens/<screen>-<width>.png.
// The database is a new one on the server of BENCH_DATABASE_URL or TEST_DATABASE_URL (or
// DATABASE_URL), dropped at the end; without any, an embedded PostgreSQL in a temporary folder.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { closeApp, createApp } from '../app.js';
import { scratchDatabase } from '../bench/support.js';
import { loadConfig } from '../lib/config.js';
import { projectRoot } from '../lib/paths.js';
import { CHROMIUM, launchChromium, listenOnFreePort } from '../test/support/browser.js';
import { logIn } from '../test/support/fixtures.js';
import { BROWSER_LOCALE, HUMAN_PAUSE_MS, OWNER, seedWalk, WALK_PASSWORD, walkScreens, WIDTHS, type Who } from '../test/support/walk.js';

const OUT = path.join(projectRoot, 'docs', 'screens');
const APP_NAME = 'Atelier';

async function shoot(page: Page, name: string, width: number): Promise<void> {
  // Fonts and images settle before the picture.
  await page.evaluate(() => document.fonts.ready);
  await page.screenshot({ path: path.join(OUT, `${name}-${width}.png`), fullPage: true });
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('screens', { orDatabaseUrl: true });
  let browser: Browser | undefined;
  const app = createApp(
    loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: scratch.url,
      DATA_DIR: scratch.dataDir,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      APP_NAME,
      LOG_LEVEL: 'silent',
      PASSWORD_HASH_COST: '4',
    }),
  );
  const { server, baseUrl } = await listenOnFreePort(app);
  try {
    browser = await launchChromium(CHROMIUM);
    mkdirSync(OUT, { recursive: true });
    // The themes' screens are npm run screenshots:themes's.
    for (const file of readdirSync(OUT)) if (file.endsWith('.png') && !file.startsWith('theme-')) rmSync(path.join(OUT, file));
    const ctx = app.locals.ctx;

    // A fresh site, then its first run.
    const first = await browser.newPage({ viewport: { width: WIDTHS[0], height: 900 }, locale: BROWSER_LOCALE });
    for (const width of WIDTHS) {
      await first.setViewportSize({ width, height: 900 });
      await first.goto(`${baseUrl}/`);
      await shoot(first, 'fresh-home', width);
      await first.goto(`${baseUrl}/auth`);
      await shoot(first, 'first-run', width);
    }
    await first.getByLabel('Nom', { exact: true }).fill(OWNER.name);
    await first.getByLabel('Courriel', { exact: true }).fill(OWNER.email);
    await first.getByLabel('Mot de passe', { exact: true }).fill(WALK_PASSWORD);
    await first.waitForTimeout(HUMAN_PAUSE_MS);
    await Promise.all([first.waitForURL(`${baseUrl}/admin`), first.getByLabel('Mot de passe', { exact: true }).press('Enter')]);
    const owner = await ctx.db('app_auth_users').where({ email: OWNER.email }).first();
    if (!owner) throw new Error('the first run did not create the owner');
    const data = await seedWalk(ctx, owner.id);
    const ownerState = await first.context().storageState();
    const member = await logIn(ctx, { id: data.memberId });
    const [cookieName, cookieValue] = member.cookie.split('=');

    for (const width of WIDTHS) {
      const viewport = { width, height: 900 };
      const locale = BROWSER_LOCALE;
      const memberContext = await browser.newContext({ viewport, locale });
      await memberContext.addCookies([{ name: cookieName, value: cookieValue, url: baseUrl }]);
      const pages: Record<Who, Page> = {
        owner: await (await browser.newContext({ viewport, locale, storageState: ownerState })).newPage(),
        member: await memberContext.newPage(),
        visitor: await (await browser.newContext({ viewport, locale })).newPage(),
      };
      for (const screen of walkScreens(data, owner.id)) {
        await pages[screen.who].goto(baseUrl + screen.path);
        await shoot(pages[screen.who], screen.name, width);
      }
    }
    console.log(`${readdirSync(OUT).filter((file) => file.endsWith('.png')).length} screenshots in ${path.relative(projectRoot, OUT)}/`);
  } finally {
    await browser?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeApp(app);
    await scratch.cleanup();
  }
}

main().catch((error: unknown) => {
  if (error instanceof Error && /Executable doesn't exist|ENOENT/.test(error.message))
    console.error(`Chromium is needed at ${CHROMIUM} (apt-get install -y chromium).`);
  console.error(error);
  process.exit(1);
});
