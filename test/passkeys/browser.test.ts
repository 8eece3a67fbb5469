// @heavy: drives Chromium (started first among the parallel files: npm test, test/support/run.ts)
// Passkeys in a real browser (Debian chromium driven by playwright-core) with a virtual
// authenticator (DevTools Protocol `WebAuthn` domain: a platform authenticator holding
// resident keys, the user verified). WebAuthn needs a secure context and an rpID the
// page's origin belongs to: the app's BASE_URL is http://localhost:<port>, which is one.
// Add a passkey from /account, sign out, sign in with it without a password; then use it
// as the second step of a password login, and remove it. Rename one, take it as the only
// second step a role requiring two steps asks of an account without a code, and see it
// refused at another origin than BASE_URL's.
import { createServer, type Server } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { chromiumAvailable, launchChromium } from '../support/browser.js';
import { makeRole, makeUser, PASSWORD } from '../support/fixtures.js';
import { enrolTwoFactor } from '../support/two-factor.js';

// The anti-bot check refuses /auth forms submitted under 1.5 s after rendering.
const HUMAN_PAUSE_MS = 1600;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe: Server = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('passkeys in a browser', function () {
  this.timeout(90_000);
  let browser: Browser;
  let server: HttpServer;
  let baseUrl: string;
  let ctx: AppContext;
  const cspViolations: string[] = [];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    const port = await freePort();
    baseUrl = `http://localhost:${port}`;
    const app = createTestApp({ BASE_URL: baseUrl });
    ctx = contextOf(app);
    await resetData(ctx);
    server = await new Promise<HttpServer>((resolve) => {
      const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
    });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** Turns the virtual authenticator's automatic answers (user presence) on or off. */
  let presence: (enabled: boolean) => Promise<void> = () => Promise.resolve();
  async function pageWithAuthenticator(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1024, height: 900 } });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    presence = (enabled) => cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled }).then(() => undefined);
    return page;
  }

  it('adds a passkey on /account, signs in with it without a password, uses it as the second step, removes it', async () => {
    const user = await makeUser(ctx, { email: 'ada@example.com', name: 'Ada' });
    const page = await pageWithAuthenticator();

    await page.goto(`${baseUrl}/auth/login`);
    await page.getByLabel('Courriel').fill('ada@example.com');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.waitForURL(`${baseUrl}/account`);

    // The script revealed the addition form (WebAuthn is there).
    await page.locator('#passkey-name').fill('Chromium');
    await page.locator('#passkey-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Ajouter une clé d’accès' }).click();
    await page.locator('[data-passkeys] td', { hasText: 'Chromium' }).waitFor();
    const [stored] = await ctx.db('app_auth_passkeys').where({ user_id: user.id });
    expect(stored).to.include({ name: 'Chromium', counter: 1 });
    expect(await ctx.db('app_audit_events').where({ action: 'account.passkey_added' })).to.have.length(1);

    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(/\/auth\/(login|logout)/);
    await page.goto(`${baseUrl}/auth/login`);
    expect((await page.goto(`${baseUrl}/account`))?.url()).to.match(/\/auth\/login/);

    // The virtual authenticator answers the page's autofill request (conditional mediation)
    // by itself, as a person picking the passkey from the email field's suggestions would:
    // the page may sign in before the button is clicked. Either way, no password is typed.
    const button = page.getByRole('button', { name: 'Se connecter avec une clé d’accès' });
    const signedIn = page.waitForURL(`${baseUrl}/account`);
    await Promise.race([signedIn, button.click({ timeout: 30_000 }).catch(() => undefined)]);
    await signedIn;
    await page.getByRole('heading', { name: 'Mon profil' }).waitFor();
    const logins = await ctx.db('app_audit_events').where({ action: 'auth.login' }).orderBy('id');
    // The password sign-in that added it, then the passkey's; the virtual authenticator also
    // answers the login page's autofill request (conditional mediation) by itself, so there may be more than one.
    const details = logins.map((event) => event.details as { method?: string });
    expect(details[0]).to.deep.equal({ method: 'password' });
    expect(details.length).to.be.greaterThan(1);
    expect(details.slice(1)).to.deep.equal(details.slice(1).map(() => ({ method: 'passkey' })));
    const [used] = await ctx.db('app_auth_passkeys').where({ user_id: user.id });
    expect(used.last_used_at).to.be.an.instanceOf(Date);

    // The second step of a password login, instead of a code.
    await enrolTwoFactor(ctx, user);
    // A person who types a password ignores the autofill's suggestion: the authenticator
    // answers nothing until the second step asks for the passkey.
    await presence(false);
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(/\/auth\/(login|logout)/);
    await page.goto(`${baseUrl}/auth/login`);
    await page.getByLabel('Courriel').fill('ada@example.com');
    await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
    await page.waitForTimeout(HUMAN_PAUSE_MS);
    await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    await page.waitForURL(`${baseUrl}/auth/2fa`);
    await presence(true);
    await page.getByRole('button', { name: 'Utiliser une clé d’accès' }).click();
    await page.waitForURL(`${baseUrl}/account`);
    const secondStep = await ctx.db('app_audit_events').where({ action: 'auth.login' }).orderBy('id', 'desc').first();
    expect(secondStep?.details).to.deep.equal({ method: 'password', second_factor: 'passkey' });

    // Removed from the profile with the current password.
    await page.locator('form.passkey-remove input[name="current_password"]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Retirer la clé d’accès Chromium' }).click();
    await page.getByText('La clé d’accès est retirée.').waitFor();
    expect(await ctx.db('app_auth_passkeys').where({ user_id: user.id })).to.have.length(0);
    expect(cspViolations).to.deep.equal([]);
    await page.close();
  });

  it('renames a passkey, is asked for it alone after the password when a role requires two steps, and is refused it at another origin', async () => {
    const user = await makeUser(ctx, { email: 'bea@example.com', name: 'Béa' });
    const page = await pageWithAuthenticator();
    // The password typed while the authenticator stays silent (no autofill answer).
    const passwordLogin = async () => {
      await presence(false);
      await page.goto(`${baseUrl}/auth/login`);
      await page.getByLabel('Courriel').fill('bea@example.com');
      await page.getByLabel('Mot de passe', { exact: true }).fill(PASSWORD);
      await page.waitForTimeout(HUMAN_PAUSE_MS);
      await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
    };
    await passwordLogin();
    await page.waitForURL(`${baseUrl}/account`);
    await presence(true);
    await page.locator('#passkey-name').fill('Portable');
    await page.locator('#passkey-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Ajouter une clé d’accès' }).click();
    await page.locator('[data-passkeys] td', { hasText: 'Portable' }).waitFor();

    // Renamed from its row, without a script of its own.
    await page.locator('details.passkey-rename summary').click();
    await page.getByLabel('Nouveau nom').fill('Ordinateur du bureau');
    await page.getByRole('button', { name: 'Renommer', exact: true }).click();
    await page.locator('[data-passkeys] td', { hasText: 'Ordinateur du bureau' }).waitFor();
    expect(await ctx.db('app_auth_passkeys').where({ user_id: user.id }).select('name')).to.deep.equal([{ name: 'Ordinateur du bureau' }]);

    // A role requiring two steps, no code set up: the password leads to the passkey alone.
    const roleId = await makeRole(ctx, [], 'guarded');
    await ctx.db('app_auth_roles').where({ id: roleId }).update({ require_2fa: true });
    await ctx.db('app_auth_users').where({ id: user.id }).update({ role_id: roleId });
    await page.getByRole('button', { name: 'Se déconnecter' }).click();
    await page.waitForURL(/\/auth\/(login|logout)/);
    await passwordLogin();
    await page.waitForURL(`${baseUrl}/auth/2fa`);
    expect(await page.locator('input[name="code"]').count()).to.equal(0);
    await page.getByText('Confirmez la connexion avec votre clé d’accès.').waitFor();
    await presence(true);
    await page.getByRole('button', { name: 'Utiliser une clé d’accès' }).click();
    await page.waitForURL(`${baseUrl}/account`);
    const secondStep = await ctx
      .db('app_audit_events')
      .where({ action: 'auth.login', target_id: String(user.id) })
      .orderBy('id', 'desc')
      .first();
    expect(secondStep?.details).to.deep.equal({ method: 'password', second_factor: 'passkey' });

    // The same site reached by another origin than BASE_URL's: the browser will not use a
    // passkey of localhost there, the page says so, and no session is opened.
    const elsewhere = await browser.newPage({ viewport: { width: 1024, height: 900 } });
    const cdp = await elsewhere.context().newCDPSession(elsewhere);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const sessionsBefore = await ctx.db('app_auth_sessions').where({ user_id: user.id }).count({ n: '*' }).first();
    await elsewhere.goto(baseUrl.replace('localhost', '127.0.0.1') + '/auth/login');
    await elsewhere.getByRole('button', { name: 'Se connecter avec une clé d’accès' }).click();
    await elsewhere
      .locator('[data-passkey-error]')
      .filter({ hasText: /clé d’accès|annulée/ })
      .waitFor();
    expect(new URL(elsewhere.url()).pathname).to.equal('/auth/login');
    expect(await ctx.db('app_auth_sessions').where({ user_id: user.id }).count({ n: '*' }).first()).to.deep.equal(sessionsBefore);
    await elsewhere.close();
    expect(cspViolations).to.deep.equal([]);
    await page.close();
  });
});
