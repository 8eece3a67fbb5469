// The per-account budgets of failed sign-ins (services/sign-in-guard.ts): wrong passwords
// for an address and wrong codes for an account, counted from every client address
// together (behind a trusted proxy, each attempt from a fresh address), failures only.
import { expect } from 'chai';
import type request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { useAppWithSmtp, type App } from '../../support/app.js';
import { makeUser, PASSWORD } from '../../support/fixtures.js';
import { FormClient, useFakeClock } from '../../support/form-client.js';
import type { TestSmtpServer } from '../../support/smtp.js';
import { enrolTwoFactor, totpNow } from '../../support/two-factor.js';

const NOTICE_SUBJECT = 'Tentatives de connexion inhabituelles — Site de test';

describe('per-account budgets of failed sign-ins', () => {
  let app: App;
  let ctx: AppContext;
  let smtp: TestSmtpServer;
  const clock = useFakeClock();
  let addressCounter = 0;

  useAppWithSmtp({ APP_TRUST_PROXY: 'loopback' }, (createdApp, startedSmtp, context) => {
    app = createdApp;
    smtp = startedSmtp;
    ctx = context;
  });

  /** A client address never used before in this run. */
  function freshAddress(): Record<string, string> {
    addressCounter++;
    return { 'X-Forwarded-For': `198.51.${Math.floor(addressCounter / 250)}.${(addressCounter % 250) + 1}` };
  }

  function login(client: FormClient, email: string, password: string, headers = freshAddress()) {
    return client.submit('/auth/login', { email, password }, { json: true, headers });
  }

  function code(client: FormClient, value: string, headers = freshAddress()) {
    return client.submit('/auth/2fa', { code: value }, { json: true, from: '/auth/login', headers });
  }

  const sessionsOf = async (userId: number) => (await ctx.db('app_auth_sessions').where({ user_id: userId })).length;
  const events = (action: string) => ctx.db('app_audit_events').where({ action }).orderBy('id');
  const noticesTo = (email: string) => smtp.messages.filter((message) => message.to.includes(email) && message.subject === NOTICE_SUBJECT);

  function expectAccountRefusal(response: request.Response, maxSeconds: number) {
    expect(response.status).to.equal(429);
    expect(response.body.error).to.match(/^Trop de tentatives pour ce compte\. Un nouvel essai sera possible dans /);
    const retryAfter = Number(response.headers['retry-after']);
    expect(retryAfter).to.be.above(0).and.at.most(maxSeconds);
    return retryAfter;
  }

  describe('wrong passwords', () => {
    beforeEach(() => clock.install(app));

    it('slows the account down after 10 wrong passwords from 10 addresses: the right one from an 11th gets 429 «pour ce compte»; audited; the owner is emailed once', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com', name: 'Ada' });
      for (let attempt = 1; attempt <= 10; attempt++) {
        const wrong = await login(new FormClient(app, clock), 'ada@example.com', `wrong guess ${attempt}`);
        expect(wrong.status, `attempt ${attempt}`).to.equal(401);
      }
      const right = await login(new FormClient(app, clock), 'ada@example.com', PASSWORD);
      expectAccountRefusal(right, 15 * 60);
      expect(await sessionsOf(user.id)).to.equal(0);

      const [trip, ...more] = await events('auth.login_throttled');
      expect(more).to.have.length(0);
      expect(trip).to.include({ actor_id: null, target_type: 'user', target_id: String(user.id) });
      expect(trip.details).to.deep.equal({ failures: 10 });
      const message = await smtp.waitForMessage('ada@example.com');
      expect(message.subject).to.equal(NOTICE_SUBJECT);
      expect(message.text).to.include('10 tentatives de connexion avec un mot de passe erroné ont visé le compte ada@example.com');
      expect(message.text).to.include('http://site.test/auth/forgot?email=ada%40example.com');

      // Guesses go on, in this window and the next: still one notice for the day.
      for (let attempt = 1; attempt <= 3; attempt++) expect((await login(new FormClient(app, clock), 'ada@example.com', 'again')).status).to.equal(429);
      clock.advance(15 * 60_000);
      for (let attempt = 1; attempt <= 10; attempt++) await login(new FormClient(app, clock), 'ada@example.com', `wrong guess ${attempt}`);
      await ctx.background.settle();
      expect(noticesTo('ada@example.com')).to.have.length(1);
      expect(await events('auth.login_throttled')).to.have.length(2);
    });

    it('opens again when the window turns (Retry-After says when)', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      for (let attempt = 1; attempt <= 10; attempt++) await login(new FormClient(app, clock), 'ada@example.com', 'wrong guess');
      const refused = await login(new FormClient(app, clock), 'ada@example.com', PASSWORD);
      const retryAfter = expectAccountRefusal(refused, 15 * 60);
      clock.advance(retryAfter * 1000);
      const right = await login(new FormClient(app, clock), 'ada@example.com', PASSWORD);
      expect(right.status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
    });

    it('lets the owner in from a browser where the account signed in before, while strangers are refused', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      const owner = new FormClient(app, clock);
      expect((await login(owner, 'ada@example.com', PASSWORD)).status).to.equal(200);
      expect((await owner.submit('/auth/logout', {})).status).to.equal(303);
      for (let attempt = 1; attempt <= 10; attempt++) await login(new FormClient(app, clock), 'ada@example.com', 'wrong guess');
      expectAccountRefusal(await login(new FormClient(app, clock), 'ada@example.com', PASSWORD), 15 * 60);

      const again = await login(owner, 'ada@example.com', PASSWORD);
      expect(again.status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
      // Its cookie is of that account only: for another one it spares nothing.
      await makeUser(ctx, { email: 'bob@example.com' });
      for (let attempt = 1; attempt <= 10; attempt++) await login(new FormClient(app, clock), 'bob@example.com', 'wrong guess');
      expectAccountRefusal(await login(owner, 'bob@example.com', PASSWORD), 15 * 60);
    });

    it('answers an unknown address exactly as an account: 401, then the same 429 after 10 wrong passwords', async () => {
      await makeUser(ctx, { email: 'ada@example.com' });
      const answers = async (email: string) => {
        const statuses: number[] = [];
        for (let attempt = 1; attempt <= 11; attempt++) statuses.push((await login(new FormClient(app, clock), email, 'wrong guess')).status);
        return statuses;
      };
      const known = await answers('ada@example.com');
      const unknown = await answers('nobody@example.com');
      expect(known).to.deep.equal([...Array(10).fill(401), 429]);
      expect(unknown).to.deep.equal(known);
      const [, forUnknown] = await events('auth.login_throttled');
      expect(forUnknown).to.include({ target_type: null, target_id: null });
      await ctx.background.settle();
      expect(smtp.messages.filter((message) => message.subject === NOTICE_SUBJECT)).to.have.length(1);
    });

    it('gives the budget back when the password is reset from its emailed link', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      for (let attempt = 1; attempt <= 10; attempt++) await login(new FormClient(app, clock), 'ada@example.com', 'wrong guess');
      const browser = new FormClient(app, clock);
      expect((await browser.submit('/auth/forgot', { email: 'ada@example.com' }, { headers: freshAddress() })).status).to.equal(200);
      await ctx.background.settle();
      const resetMail = smtp.messages.find((message) => message.subject.startsWith('Réinitialisation du mot de passe'));
      expect(noticesTo('ada@example.com')).to.have.length(1);
      const link = smtp.linkIn(resetMail!, '/auth/reset');
      const reset = await browser.submit(
        '/auth/reset',
        { email: 'ada@example.com', token: link.searchParams.get('token')!, newPassword: 'a brand new passphrase' },
        { from: `${link.pathname}${link.search}`, headers: freshAddress() },
      );
      expect(reset.status).to.equal(303);
      const right = await login(new FormClient(app, clock), 'ada@example.com', 'a brand new passphrase');
      expect(right.status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
    });

    it('never refuses a person who signs in ten times in 15 minutes from one address', async () => {
      const user = await makeUser(ctx, { email: 'ada@example.com' });
      const headers = freshAddress();
      for (let time = 1; time <= 10; time++) {
        const client = new FormClient(app, clock);
        const response = await login(client, 'ada@example.com', PASSWORD, headers);
        expect(response.status, `sign-in ${time}`).to.equal(200);
        clock.advance(60_000);
      }
      expect(await sessionsOf(user.id)).to.equal(10);
      expect(await events('auth.login_throttled')).to.have.length(0);
    });
  });

  describe('wrong second-step codes', () => {
    async function enrolled() {
      const user = await makeUser(ctx, { email: 'ada@example.com', name: 'Ada' });
      clock.install(app);
      return { user, ...(await enrolTwoFactor(ctx, user)) };
    }

    /** A browser that typed the right password: its pending login waits for a code. */
    async function pendingBrowser(): Promise<FormClient> {
      const client = new FormClient(app, clock);
      const response = await login(client, 'ada@example.com', PASSWORD);
      expect(response.body).to.include({ code: 'second_factor_required' });
      return client;
    }

    /** `count` wrong codes, through as many pending logins as it takes (5 attempts each). */
    async function wrongCodes(count: number): Promise<number[]> {
      const statuses: number[] = [];
      let client = await pendingBrowser();
      for (let attempt = 1; attempt <= count; attempt++) {
        if (attempt > 1 && (attempt - 1) % 5 === 0) client = await pendingBrowser();
        statuses.push((await code(client, '000000')).status);
      }
      return statuses;
    }

    it('audits each wrong code, and at the 10th of the account (two pending logins, ten addresses) answers 429 «pour ce compte», audits the trip, emails the owner once', async () => {
      const { user, secret } = await enrolled();
      expect(await wrongCodes(10)).to.deep.equal(Array(10).fill(401));
      const failed = await events('auth.second_factor_failed');
      expect(failed).to.have.length(10);
      expect(failed[0]).to.include({ actor_id: null, target_type: 'user', target_id: String(user.id) });
      expect(failed.map((event) => event.details.attempts_left)).to.deep.equal([4, 3, 2, 1, 0, 4, 3, 2, 1, 0]);
      const [trip, ...more] = await events('auth.second_factor_throttled');
      expect(more).to.have.length(0);
      expect(trip.details).to.deep.equal({ failures: 10 });
      const message = await smtp.waitForMessage('ada@example.com');
      expect(message.subject).to.equal(NOTICE_SUBJECT);
      expect(message.text).to.include('a été saisi correctement, puis 10 codes de vérification erronés ont été envoyés');

      const refused = await code(await pendingBrowser(), totpNow(ctx, secret));
      expectAccountRefusal(refused, 15 * 60);
      expect(await sessionsOf(user.id)).to.equal(0);
      await ctx.background.settle();
      expect(noticesTo('ada@example.com')).to.have.length(1);
    });

    it('caps wrong codes at 30 a day: once 30 are spent, the next windows stay shut until the day turns', async () => {
      const { user, secret } = await enrolled();
      for (let window = 0; window < 3; window++) {
        expect(await wrongCodes(10)).to.deep.equal(Array(10).fill(401));
        clock.advance(15 * 60_000 + 1000);
      }
      const refused = await code(await pendingBrowser(), totpNow(ctx, secret));
      const retryAfter = expectAccountRefusal(refused, 86_400);
      expect(retryAfter).to.be.above(23 * 3600);
      expect(await events('auth.second_factor_throttled')).to.have.length(3);
      clock.advance(retryAfter * 1000);
      const client = await pendingBrowser();
      expect((await code(client, totpNow(ctx, secret))).status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
    });

    it('lets the owner finish from a browser where the account signed in before, while the budget is spent', async () => {
      const { user, secret } = await enrolled();
      const owner = await pendingBrowser();
      expect((await code(owner, totpNow(ctx, secret))).status).to.equal(200);
      expect((await owner.submit('/auth/logout', {})).status).to.equal(303);
      clock.advance(30_000);
      await wrongCodes(10);
      expectAccountRefusal(await code(await pendingBrowser(), totpNow(ctx, secret)), 15 * 60);

      expect((await login(owner, 'ada@example.com', PASSWORD)).body).to.include({ code: 'second_factor_required' });
      const finished = await code(owner, totpNow(ctx, secret));
      expect(finished.status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
    });

    it('gives the wrong-code budget back when the password is reset from its emailed link', async () => {
      const { user, secret } = await enrolled();
      await wrongCodes(10);
      const browser = new FormClient(app, clock);
      expect((await browser.submit('/auth/forgot', { email: 'ada@example.com' }, { headers: freshAddress() })).status).to.equal(200);
      await ctx.background.settle();
      const link = smtp.linkIn(
        smtp.messages.find((message) => message.subject.startsWith('Réinitialisation du mot de passe'))!,
        '/auth/reset',
      );
      const reset = await browser.submit(
        '/auth/reset',
        { email: 'ada@example.com', token: link.searchParams.get('token')!, newPassword: 'a brand new passphrase' },
        { from: `${link.pathname}${link.search}`, headers: freshAddress() },
      );
      expect(reset.status).to.equal(303);
      const client = new FormClient(app, clock);
      expect((await login(client, 'ada@example.com', 'a brand new passphrase')).body).to.include({ code: 'second_factor_required' });
      clock.advance(30_000);
      expect((await code(client, totpNow(ctx, secret))).status).to.equal(200);
      expect(await sessionsOf(user.id)).to.equal(1);
    });

    it('never refuses a person who signs in ten times in 15 minutes, code included, from one address', async () => {
      const { user, secret } = await enrolled();
      const headers = freshAddress();
      for (let time = 1; time <= 10; time++) {
        // A code serves once: each sign-in is in a step of its own.
        clock.advance(30_000);
        const client = new FormClient(app, clock);
        expect((await login(client, 'ada@example.com', PASSWORD, headers)).body, `sign-in ${time}`).to.include({ code: 'second_factor_required' });
        const done = await code(client, totpNow(ctx, secret), headers);
        expect(done.status, `sign-in ${time}`).to.equal(200);
      }
      expect(await sessionsOf(user.id)).to.equal(10);
      expect(await events('auth.second_factor_failed')).to.have.length(0);
    });
  });
});
