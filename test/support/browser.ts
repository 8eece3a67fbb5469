// Chromium (Debian's packages) driven by playwright-core, and an app listening on a free
// port for it to visit (`useBrowserSite`: both, for a describe block). The flags keep
// Chromium off the network it cannot reach.
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from './app.js';

/** The desktop browser (Lighthouse and the screenshots run in it). */
export const CHROMIUM = '/usr/bin/chromium';
/**
 * Debian's chromium-headless-shell: the same Blink, V8 and DevTools protocol as CHROMIUM
 * without the desktop browser around them, which is what Playwright itself runs headless
 * tests in. The tests run in it when it is installed: the walk of every screen costs 37 s
 * of CPU in it against 67 s in the desktop browser, the same pages, the same findings.
 */
const CHROMIUM_HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';

/** The browser the tests drive: the headless shell when installed, else the desktop browser. */
function testBrowserPath(): string {
  return existsSync(CHROMIUM_HEADLESS_SHELL) ? CHROMIUM_HEADLESS_SHELL : CHROMIUM;
}

/**
 * Whether the browser tests can run. In CI a missing Chromium is a failure, never a
 * silent skip; on a developer's machine the suite says so and skips them.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(testBrowserPath())) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium-headless-shell chromium): the browser tests cannot run in CI`);
  console.warn(`    ${CHROMIUM} is missing (apt-get install -y chromium-headless-shell chromium): browser test skipped`);
  return false;
}

/** Chromium started for a test (the headless shell when installed) or, given its path, another build. */
export function launchChromium(executablePath = testBrowserPath()): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Starts the app on 127.0.0.1 and a free port; returns the server and its base URL. */
/**
 * Clicks a form's submit button and waits for the form's answer (its POST, then the page
 * it leads to). Waiting for the URL instead would return at once when the form posts to
 * the page it is on (the editor), before anything is saved.
 */
export async function submitWith(page: Page, button: Locator): Promise<void> {
  await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST' && response.request().resourceType() === 'document'),
    button.click(),
  ]);
  await page.waitForLoadState();
}

export async function listenOnFreePort(app: Express): Promise<{ server: Server; baseUrl: string }> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** What `useBrowserSite` gives a describe block once its `before` hook has run. */
export interface BrowserSite {
  ctx: AppContext;
  baseUrl: string;
  browser: Browser;
  /**
   * A tab in a new browser context (1280 × 900 unless said), signed in with `cookie`
   * (`name=value`) when given; the context is closed after the test.
   */
  open(options: { javaScriptEnabled: boolean; cookie?: string; width?: number; timeoutMs?: number }): Promise<Page>;
}

/**
 * A test app on a free port and Chromium for the describe block that calls it: started
 * in its `before` (the block is skipped without Chromium, outside CI), every test on
 * emptied tables, the tabs it opened closed after it, and everything stopped after the
 * block.
 */
export function useBrowserSite(env: Record<string, string | undefined> = {}): BrowserSite {
  let server: Server | undefined;
  const contexts: BrowserContext[] = [];
  const site = {
    async open({ javaScriptEnabled, cookie, width = 1280, timeoutMs = 15_000 }) {
      const context = await site.browser.newContext({ javaScriptEnabled, viewport: { width, height: 900 } });
      contexts.push(context);
      if (cookie) {
        const [name, ...value] = cookie.split('=');
        await context.addCookies([{ name, value: value.join('='), url: site.baseUrl }]);
      }
      const page = await context.newPage();
      page.setDefaultTimeout(timeoutMs);
      return page;
    },
  } as BrowserSite;
  before(async function () {
    if (!chromiumAvailable()) return this.skip();
    const app = createTestApp(env);
    site.ctx = contextOf(app);
    ({ server, baseUrl: site.baseUrl } = await listenOnFreePort(app));
    site.browser = await launchChromium();
  });
  after(async () => {
    await site.browser?.close();
    if (server) await new Promise((resolve) => server!.close(resolve));
  });
  beforeEach(() => resetData(site.ctx));
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  return site;
}
