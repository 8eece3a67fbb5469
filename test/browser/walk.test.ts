// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// The walk of a new site owner in a real browser (Debian chromium, playwright-core), at
// 1280 and 375 px, with JavaScript on and off: a fresh site, the first run, then every
// screen of the administration, the profile, the public site, the 403 and 404 pages and
// the auth pages. On each screen axe-core (pinned, injected from node_modules) must find
// nothing and the French must read right (test/support/typography.ts); so must every
// email the test SMTP server received during the walk. A keyboard-only walk of the first
// run, the login and a new page checks that the focus follows the visual order and shows.
import type { Server } from 'node:http';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { SESSION_COOKIE } from '../../middleware/session.js';
import { mailSubjects } from '../../mail/messages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { chromiumAvailable, launchChromium, listenOnFreePort } from '../support/browser.js';
import { logIn } from '../support/fixtures.js';
import { startSmtpServer, type ReceivedMessage, type TestSmtpServer } from '../support/smtp.js';
import {
  BROWSER_LOCALE,
  checkScreen,
  HUMAN_PAUSE_MS,
  outOfOrder,
  OWNER,
  readableText,
  seedWalk,
  showsFocus,
  tab,
  typographyFindings,
  blurredStyle,
  WALK_PASSWORD,
  walkScreens,
  WIDTHS,
  type FocusStop,
  type FocusStyle,
  type Who,
} from '../support/walk.js';

const APP_NAME = 'Atelier';

describe('the walk of a new site owner, in a browser', function () {
  this.timeout(600_000);
  let browser: Browser;
  let server: Server;
  let smtp: TestSmtpServer;
  let baseUrl: string;
  let app: App | undefined;
  let ctx: AppContext;
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    smtp = await startSmtpServer();
    app = createTestApp({ APP_NAME, SMTP_URL: smtp.url });
    ctx = contextOf(app);
    ({ server, baseUrl } = await listenOnFreePort(app));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (app) await closeTestApp(app);
    await smtp?.close();
  });

  beforeEach(async () => {
    await resetData(ctx);
    smtp?.clear();
  });

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  async function open(javaScriptEnabled: boolean, width: number, cookie?: string): Promise<Page> {
    const context = await browser.newContext({ javaScriptEnabled, viewport: { width, height: 900 }, locale: BROWSER_LOCALE });
    contexts.push(context);
    if (cookie) {
      const [name, value] = cookie.split('=');
      await context.addCookies([{ name, value, url: baseUrl }]);
    }
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    return page;
  }

  /** Fills a form by its labels, waits like a person, and submits it with Enter in the last field. */
  async function fillAndSubmit(page: Page, fields: Array<[string, string]>): Promise<void> {
    for (const [label, value] of fields) await page.getByLabel(label, { exact: true }).fill(value);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await Promise.all([page.waitForNavigation(), page.getByLabel(fields[fields.length - 1][0], { exact: true }).press('Enter')]);
  }

  /** Typography of an email: subject, text part, and the HTML part as a browser shows it. */
  async function emailFindings(message: ReceivedMessage, inspector: Page): Promise<string[]> {
    const where = `email «${message.subject}» to ${message.to.join(', ')}`;
    const findings = typographyFindings(`${message.subject}\n${message.text}`, `${where} (text)`);
    await inspector.setContent(message.html);
    findings.push(...typographyFindings(await readableText(inspector), `${where} (HTML)`));
    return findings;
  }

  for (const javaScriptEnabled of [true, false]) {
    const mode = javaScriptEnabled ? 'on' : 'off';

    it(`walks every screen at 1280 and 375 px with JavaScript ${mode}: axe finds nothing and the French reads right, emails included`, async () => {
      const findings: string[] = [];
      // Pages shown with JavaScript off are checked by axe in a JavaScript-enabled page of the same width.
      const inspectors = new Map<number, Page | undefined>();
      for (const width of WIDTHS) inspectors.set(width, javaScriptEnabled ? undefined : await open(true, width));
      const check = async (page: Page, name: string, width: number) => {
        findings.push(...(await checkScreen(page, `${name} (${width} px, JavaScript ${mode})`, inspectors.get(width))));
      };

      // A fresh site: its home and the first-run form, at both widths.
      const first = await open(javaScriptEnabled, WIDTHS[0]);
      for (const width of WIDTHS) {
        await first.setViewportSize({ width, height: 900 });
        expect((await first.goto(`${baseUrl}/`))?.status()).to.equal(200);
        await check(first, 'home of a fresh site', width);
        expect((await first.goto(`${baseUrl}/auth`))?.status()).to.equal(200);
        await check(first, 'first run', width);
      }
      // A typo first: the form comes back with its message, which is walked too.
      await fillAndSubmit(first, [
        ['Nom', OWNER.name],
        ['Courriel', OWNER.email],
        ['Mot de passe', 'court'],
      ]);
      expect(Number((await ctx.db('app_auth_users').count({ n: '*' }).first())?.n)).to.equal(0);
      await check(first, 'first run refused', WIDTHS[0]);
      await fillAndSubmit(first, [
        ['Nom', OWNER.name],
        ['Courriel', OWNER.email],
        ['Mot de passe', WALK_PASSWORD],
      ]);
      expect(new URL(first.url()).pathname).to.equal('/admin');
      const owner = await ctx.db('app_auth_users').where({ email: OWNER.email }).first();
      expect(owner).to.include({ name: OWNER.name, email_verified: true });

      const data = await seedWalk(ctx, owner!.id);
      // An invitation through the screen: its email is walked too.
      await first.goto(`${baseUrl}/admin/users/new`);
      // A mistyped address first: the refused form (summary, message by the field) is walked too.
      await fillAndSubmit(first, [
        ['Nom', 'Inès Petit'],
        ['Courriel', 'ines@'],
      ]);
      expect(await ctx.db('app_auth_users').where({ name: 'Inès Petit' }).first()).to.equal(undefined);
      await check(first, 'invitation refused', WIDTHS[0]);
      await fillAndSubmit(first, [
        ['Nom', 'Inès Petit'],
        ['Courriel', 'ines@example.com'],
      ]);
      expect(await ctx.db('app_auth_users').where({ email: 'ines@example.com' }).first()).to.include({ name: 'Inès Petit', email_verified: false });
      await smtp.waitForMessage('ines@example.com');

      // A visitor signs up, and the owner asks for a reset link: two more emails, and the reset page.
      const visitor = await open(javaScriptEnabled, WIDTHS[0]);
      await visitor.goto(`${baseUrl}/auth/register`);
      await fillAndSubmit(visitor, [
        ['Nom', 'Nina Roux'],
        ['Courriel', 'nina@example.com'],
        ['Mot de passe', WALK_PASSWORD],
      ]);
      await smtp.waitForMessage('nina@example.com');
      await visitor.goto(`${baseUrl}/auth/login`);
      await fillAndSubmit(visitor, [
        ['Courriel', OWNER.email],
        ['Mot de passe', 'pas le bon mot de passe'],
      ]);
      await check(visitor, 'login refused', WIDTHS[0]);
      await visitor.goto(`${baseUrl}/auth/forgot`);
      await fillAndSubmit(visitor, [['Courriel', OWNER.email]]);
      const reset = smtp.linkIn(await smtp.waitForMessage(OWNER.email), '/auth/reset');
      const resetPath = `${reset.pathname}${reset.search}`;

      const ownerState = await first.context().storageState();
      const member = await logIn(ctx, { id: data.memberId });
      for (const width of WIDTHS) {
        const pages: Record<Who, Page> = {
          owner: await (async () => {
            const context = await browser.newContext({ javaScriptEnabled, viewport: { width, height: 900 }, storageState: ownerState, locale: BROWSER_LOCALE });
            contexts.push(context);
            return context.newPage();
          })(),
          member: await open(javaScriptEnabled, width, member.cookie),
          visitor: await open(javaScriptEnabled, width),
        };
        const screens = [...walkScreens(data, owner!.id), { name: 'reset', path: resetPath, who: 'visitor' as const }];
        for (const screen of screens) {
          const page = pages[screen.who];
          const response = await page.goto(baseUrl + screen.path);
          expect(response?.status(), `${screen.name}: ${screen.path}`).to.equal(screen.status ?? 200);
          await check(page, screen.name, width);
        }
      }
      expect(SESSION_COOKIE).to.be.a('string');

      const inspector = inspectors.get(WIDTHS[0]) ?? (await open(true, WIDTHS[0]));
      expect(smtp.messages.length).to.be.at.least(3);
      for (const message of smtp.messages) findings.push(...(await emailFindings(message, inspector)));
      expect(findings, findings.join('\n')).to.deep.equal([]);
    });
  }

  it('sends every email template in French that reads right (subject, text and HTML), dates in the site’s zone', async () => {
    const inspector = await open(true, WIDTHS[0]);
    const templates = Object.keys(mailSubjects);
    // 20 h 04 UTC is 21 h 04 in Paris in November.
    ctx.clock.set(() => Date.UTC(2026, 10, 22, 20, 4));
    for (const template of templates) {
      await ctx.mailer.send(template, `${template}@example.com`, {
        email: 'camille@example.com',
        oldEmail: 'camille@example.com',
        newEmail: 'camille.martin@example.com',
        name: OWNER.name,
        remaining: 9,
        link: `${ctx.config.baseUrl}/auth/reset?email=camille%40example.com&token=abc`,
      });
    }
    ctx.clock.set();
    const findings: string[] = [];
    for (const template of templates) findings.push(...(await emailFindings(await smtp.waitForMessage(`${template}@example.com`), inspector)));
    expect(smtp.messages.length).to.equal(templates.length);
    const changed = await smtp.waitForMessage('password-changed@example.com');
    expect(changed.text).to.include('a été modifié le 22\u00a0novembre 2026 à 21\u00a0h\u00a004.');
    expect(changed.html).to.include('a été modifié le 22\u00a0novembre 2026 à 21\u00a0h\u00a004.');
    expect(findings, findings.join('\n')).to.deep.equal([]);
  });

  describe('with the keyboard only', () => {
    type Stop = FocusStop & { focused: FocusStyle };

    /** Tabs until the focused element's name matches, recording every stop on the way. */
    async function tabTo(page: Page, name: RegExp, stops: Stop[], limit = 60): Promise<void> {
      for (let count = 0; count < limit; count++) {
        const next = await tab(page);
        const last = stops[stops.length - 1];
        if (next?.previousUnfocused && last) last.visibleFocus = showsFocus(last.focused, next.previousUnfocused);
        if (!next) continue;
        stops.push({ ...next.stop, visibleFocus: true, focused: next.focused });
        if (name.test(next.stop.name)) return;
      }
      throw new Error(`no element named ${name} within ${limit} Tab presses (stops: ${stops.map((stop) => stop.label).join(', ')})`);
    }

    let checkedStops = 0;

    /** Checks the stops of one screen (focus visible at each, visual order), then forgets them. */
    async function settle(page: Page, where: string, stops: Stop[], problems: string[]): Promise<void> {
      checkedStops += stops.length;
      const last = stops[stops.length - 1];
      const blurred = await blurredStyle(page);
      if (last && blurred) last.visibleFocus = showsFocus(last.focused, blurred);
      for (const stop of stops) if (!stop.visibleFocus) problems.push(`${where}: no visible focus on ${stop.label}`);
      problems.push(...outOfOrder(stops).map((problem) => `${where}: tab order ${problem}`));
      stops.length = 0;
    }

    it('runs the first run, logs in and creates a page in visual order, with a visible focus at every stop', async () => {
      const page = await open(true, WIDTHS[0]);
      const stops: Stop[] = [];
      const problems: string[] = [];

      await page.goto(`${baseUrl}/auth`);
      await tabTo(page, /^Nom$/, stops);
      await page.keyboard.type(OWNER.name);
      await tabTo(page, /^Courriel$/, stops);
      await page.keyboard.type(OWNER.email);
      await tabTo(page, /^Mot de passe$/, stops);
      await page.keyboard.type(WALK_PASSWORD);
      await tabTo(page, /Créer le compte/, stops);
      await settle(page, 'first run', stops, problems);
      await page.waitForTimeout(HUMAN_PAUSE_MS);
      await Promise.all([page.waitForURL(`${baseUrl}/admin`), page.keyboard.press('Enter')]);
      expect(await ctx.db('app_auth_users').where({ email: OWNER.email }).first()).to.include({ name: OWNER.name });

      await tabTo(page, /Se déconnecter/, stops);
      await settle(page, 'dashboard', stops, problems);
      await Promise.all([page.waitForURL(/\/auth\/login/), page.keyboard.press('Enter')]);

      await tabTo(page, /^Courriel$/, stops);
      await page.keyboard.type(OWNER.email);
      await tabTo(page, /^Mot de passe$/, stops);
      await page.keyboard.type(WALK_PASSWORD);
      await settle(page, 'login', stops, problems);
      await page.waitForTimeout(HUMAN_PAUSE_MS);
      await Promise.all([page.waitForURL(`${baseUrl}/admin`), page.keyboard.press('Enter')]);

      await tabTo(page, /^Pages$/, stops);
      await settle(page, 'dashboard after login', stops, problems);
      await Promise.all([page.waitForURL(`${baseUrl}/admin/pages`), page.keyboard.press('Enter')]);
      await tabTo(page, /Nouvelle page/, stops);
      await settle(page, 'pages tree', stops, problems);
      await Promise.all([page.waitForURL(/\/admin\/pages\/new/), page.keyboard.press('Enter')]);
      await tabTo(page, /^Titre/, stops);
      await page.keyboard.type('Horaires d’ouverture');
      await tabTo(page, /Créer la page/, stops);
      await settle(page, 'new page', stops, problems);
      await Promise.all([page.waitForURL(/\/admin\/pages\/\d+$/), page.keyboard.press('Enter')]);
      expect(await ctx.db('app_pages').where({ title: 'Horaires d’ouverture' }).first()).to.include({ slug: 'horaires-d-ouverture' });
      expect(problems, problems.join('\n')).to.deep.equal([]);
      // The fields, buttons and links on the way were all checked (skip link, navigation, form).
      expect(checkedStops).to.be.at.least(12);
    });

    it('tells a focus drawn by the stylesheet from none (the check itself)', () => {
      const plain = {
        'outline-style': 'none',
        'outline-width': '0px',
        'outline-color': 'rgb(0, 0, 0)',
        'box-shadow': 'none',
        'border-color': 'rgb(0, 0, 0)',
        'background-color': 'rgba(0, 0, 0, 0)',
        'text-decoration-line': 'none',
      };
      expect(showsFocus(plain, plain)).to.equal(false);
      expect(showsFocus({ ...plain, 'outline-style': 'solid', 'outline-width': '3px' }, plain)).to.equal(true);
      expect(showsFocus({ ...plain, 'box-shadow': 'rgb(36, 86, 211) 0px 0px 0px 3px' }, plain)).to.equal(true);
      const stop = (label: string, top: number, left: number, region = 'main'): FocusStop => ({
        label,
        name: label,
        top,
        bottom: top + 20,
        left,
        region,
        visibleFocus: true,
      });
      expect(outOfOrder([stop('a', 0, 0), stop('b', 0, 100), stop('c', 40, 0)])).to.deep.equal([]);
      expect(outOfOrder([stop('a', 40, 0), stop('b', 0, 0)])).to.have.length(1);
      expect(outOfOrder([stop('a', 0, 100), stop('b', 0, 0)])).to.have.length(1);
      expect(outOfOrder([stop('nav', 40, 0, 'nav'), stop('main', 0, 300, 'main')])).to.deep.equal([]);
    });
  });
});
