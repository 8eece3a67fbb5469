import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { ForbiddenError } from '../../lib/errors.js';
import { createUserByAdmin, isRegistrationOpen, register, type Registration } from '../../models/auth/registration.js';
import { closeTestApp, contextOf, createTestApp, resetData } from '../support/app.js';

const account = (name: string) => ({ email: `${name}@example.com`, password: 'correct horse', name });

/** Runs `test` on an application configured with these variables, then closes it. */
async function withApp(env: Record<string, string | undefined>, test: (ctx: AppContext) => Promise<void>): Promise<void> {
  const app = createTestApp(env);
  try {
    await test(contextOf(app));
  } finally {
    await closeTestApp(app);
  }
}

describe('registration openness (APP_AUTH_REGISTRATION)', () => {
  let ctx: AppContext;
  before(() => (ctx = contextOf(createTestApp())));
  beforeEach(() => resetData(ctx));

  // Only the exact value 'false' closes registration, and only once an account exists.
  const cases: Array<{ flag: string | undefined; withUsers: boolean; open: boolean }> = [];
  for (const flag of [undefined, 'false', 'FALSE', '0', 'true']) {
    for (const withUsers of [false, true]) cases.push({ flag, withUsers, open: !(flag === 'false' && withUsers) });
  }

  for (const { flag, withUsers, open } of cases) {
    it(`is ${open ? 'open' : 'closed'} with the flag ${flag === undefined ? 'unset' : `"${flag}"`} and ${withUsers ? 'an existing account' : 'no account'}`, () =>
      withApp({ APP_AUTH_REGISTRATION: flag }, async (flagged) => {
        if (withUsers) await createUserByAdmin(flagged, { ...account('existing'), role: 'user' });
        expect(await isRegistrationOpen(flagged)).to.equal(open);
        const attempt = register(flagged, account('newcomer'));
        if (open) {
          const registration = await attempt;
          expect(registration.kind).to.equal('created');
          const { user, verificationToken } = registration as Extract<Registration, { kind: 'created' }>;
          expect(user.role).to.equal(withUsers ? 'user' : 'admin');
          expect(user.email_verified).to.equal(false);
          expect(verificationToken).to.be.a('string').with.length.greaterThan(40);
          expect(await ctx.db('app_auth_users').where({ email: 'newcomer@example.com' }).first()).to.not.equal(undefined);
        } else {
          const error = await attempt.then(
            () => undefined,
            (caught) => caught,
          );
          expect(error).to.be.instanceOf(ForbiddenError);
          expect(error.message).to.equal('Les inscriptions sont actuellement fermées.');
          expect(await ctx.db('app_auth_users').where({ email: 'newcomer@example.com' }).first()).to.equal(undefined);
        }
      }));
  }

  it('lets the very first account through with the flag "false" and makes it administrator', () =>
    withApp({ APP_AUTH_REGISTRATION: 'false' }, async (flagged) => {
      const { user } = await register(flagged, account('founder'));
      expect(user.role).to.equal('admin');
      const second = await register(flagged, account('second')).then(
        () => undefined,
        (caught) => caught,
      );
      expect(second).to.be.instanceOf(ForbiddenError);
    }));

  it('does not apply the flag to accounts created by an administrator', () =>
    withApp({ APP_AUTH_REGISTRATION: 'false' }, async (flagged) => {
      await createUserByAdmin(flagged, { ...account('admin'), role: 'admin' });
      const { user, setupToken } = await createUserByAdmin(flagged, { email: 'invited@example.com', name: 'Invited' });
      expect(user.email_verified).to.equal(false);
      expect(setupToken).to.be.a('string');
      const verification = (await ctx.db('app_auth_verifications').where({ user_id: user.id }).first())!;
      expect(verification.kind).to.equal('account_setup');
      const lifetimeHours = (verification.expires_at.getTime() - verification.created_at.getTime()) / 3_600_000;
      expect(lifetimeHours).to.be.closeTo(48, 0.01);
      expect(await ctx.db('app_auth_accounts').where({ user_id: user.id }).first()).to.equal(undefined);
    }));

  it('creates no second account for the same address, whatever its case: a reset token for its owner instead', async () => {
    const { user } = await register(ctx, account('dup'));
    const again = await register(ctx, { ...account('dup'), email: 'DUP@Example.com' });
    expect(again.kind).to.equal('existing');
    expect(again.user.id).to.equal(user.id);
    const { resetToken } = again as Extract<Registration, { kind: 'existing' }>;
    expect(resetToken).to.be.a('string');
    expect(await ctx.db('app_auth_users').count({ count: '*' }).first()).to.deep.equal({ count: 1 });
    expect(await ctx.db('app_auth_verifications').where({ user_id: user.id }).pluck('kind')).to.have.members(['email_verification', 'password_reset']);
  });
});
