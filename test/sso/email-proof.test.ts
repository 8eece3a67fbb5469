import { expect } from 'chai';
import { ssoMessages } from '../../models/auth/messages.js';
import { textOf } from '../support/admin-client.js';
import { makeUser } from '../support/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.js';
import { auditMark, eventsSince } from '../audit/helpers.js';
import { allSessions, makeProvider, sessionsOf, signInWith, useSsoSuite } from './helpers.js';

describe('Single sign-on: an existing account proved by a link emailed to it', () => {
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
  });
  after(() => smtp.close());
  const suite = useSsoSuite(() => ({ SMTP_URL: smtp.url }));
  beforeEach(() => smtp.clear());

  it('links the account only once the emailed link is followed and confirmed; then the provider signs it in', async () => {
    const { ctx } = suite;
    const provider = await makeProvider(suite);
    // An account without a password (invited, or made by another provider): the email is its only proof.
    const user = await makeUser(ctx, { email: 'ada@example.org', password: null });
    const mark = await auditMark(ctx);
    const { answer, client } = await signInWith(suite, provider.id);
    expect(answer.headers.location).to.equal('/auth/sso/link');

    const sent = await client.submit('/auth/sso/link/email', {}, { from: '/auth/sso/link' });
    expect(sent.status, sent.text).to.equal(200);
    expect(textOf(sent.text)).to.include(ssoMessages.linkEmailSent);
    const message = await smtp.waitForMessage('ada@example.org');
    expect(message.subject).to.include('Liaison d’un compte à un fournisseur de connexion');
    const link = smtp.linkIn(message, '/auth/sso/link/confirm');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).count({ n: '*' })).to.deep.equal([{ n: 0 }]);

    // Opening the link changes nothing (a mail scanner follows links): its page has one button.
    const page = await client.get(link.pathname + link.search);
    expect(page.status).to.equal(200);
    expect(textOf(page.text)).to.include('Annuaire');
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).count({ n: '*' })).to.deep.equal([{ n: 0 }]);
    const confirmed = await client.submit(
      '/auth/sso/link/confirm',
      { email: link.searchParams.get('email')!, token: link.searchParams.get('token')! },
      { from: link.pathname + link.search },
    );
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(textOf(confirmed.text)).to.include(ssoMessages.linkProved('Annuaire'));
    expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).pluck('provider')).to.deep.equal([`sso:${provider.id}`]);
    expect(await allSessions(ctx)).to.equal(0);

    const again = await signInWith(suite, provider.id);
    expect(again.answer.status).to.equal(303);
    expect(again.answer.headers.location).to.equal('/account');
    expect(await sessionsOf(ctx, user.id)).to.equal(1);
    expect((await eventsSince(ctx, mark)).map((event) => event.action)).to.deep.equal([
      'auth.sso_link_requested',
      'auth.sso_link_emailed',
      'auth.sso_linked',
      'auth.login',
    ]);
  });
});
