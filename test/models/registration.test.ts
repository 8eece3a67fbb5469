import { expect } from 'chai';
import { db } from '../../lib/db.js';
import { ForbiddenError } from '../../lib/errors.js';
import { createUserByAdmin, isRegistrationOpen, register } from '../../models/auth/registration.js';
import { createTestApp, resetData } from '../support/app.js';

const account = (name: string) => ({ email: `${name}@example.com`, password: 'correct horse', name });

describe('registration openness (APP_AUTH_REGISTRATION)', () => {
  beforeEach(resetData);
  after(() => createTestApp());

  // Only the exact value 'false' closes registration, and only once an account exists.
  const cases: Array<{ flag: string | undefined; withUsers: boolean; open: boolean }> = [];
  for (const flag of [undefined, 'false', 'FALSE', '0', 'true']) {
    for (const withUsers of [false, true]) cases.push({ flag, withUsers, open: !(flag === 'false' && withUsers) });
  }

  for (const { flag, withUsers, open } of cases) {
    it(`is ${open ? 'open' : 'closed'} with the flag ${flag === undefined ? 'unset' : `"${flag}"`} and ${withUsers ? 'an existing account' : 'no account'}`, async () => {
      createTestApp({ APP_AUTH_REGISTRATION: flag });
      if (withUsers) await createUserByAdmin({ ...account('existing'), role: 'user' });
      expect(await isRegistrationOpen()).to.equal(open);
      const attempt = register(account('newcomer'));
      if (open) {
        const { user, verificationToken } = await attempt;
        expect(user.role).to.equal(withUsers ? 'user' : 'admin');
        expect(user.email_verified).to.equal(false);
        expect(verificationToken).to.be.a('string').with.length.greaterThan(40);
        expect(await db()('app_auth_users').where({ email: 'newcomer@example.com' }).first()).to.not.equal(undefined);
      } else {
        const error = await attempt.then(() => undefined, (caught) => caught);
        expect(error).to.be.instanceOf(ForbiddenError);
        expect(error.message).to.equal('Les inscriptions sont actuellement fermées.');
        expect(await db()('app_auth_users').where({ email: 'newcomer@example.com' }).first()).to.equal(undefined);
      }
    });
  }

  it('lets the very first account through with the flag "false" and makes it administrator', async () => {
    createTestApp({ APP_AUTH_REGISTRATION: 'false' });
    const { user } = await register(account('founder'));
    expect(user.role).to.equal('admin');
    const second = await register(account('second')).then(() => undefined, (caught) => caught);
    expect(second).to.be.instanceOf(ForbiddenError);
  });

  it('does not apply the flag to accounts created by an administrator', async () => {
    createTestApp({ APP_AUTH_REGISTRATION: 'false' });
    await createUserByAdmin({ ...account('admin'), role: 'admin' });
    const { user, setupToken } = await createUserByAdmin({ email: 'invited@example.com', name: 'Invited' });
    expect(user.email_verified).to.equal(false);
    expect(setupToken).to.be.a('string');
    const verification = await db()('app_auth_verifications').where({ user_id: user.id }).first();
    expect(verification.kind).to.equal('account_setup');
    const lifetimeHours = (verification.expires_at.getTime() - verification.created_at.getTime()) / 3_600_000;
    expect(lifetimeHours).to.be.closeTo(48, 0.01);
    expect(await db()('app_auth_accounts').where({ user_id: user.id }).first()).to.equal(undefined);
  });

  it('refuses a second account for the same address, whatever its case', async () => {
    createTestApp();
    await register(account('dup'));
    const error = await register({ ...account('dup'), email: 'DUP@Example.com' }).then(() => undefined, (caught) => caught);
    expect(error?.status).to.equal(409);
    expect(await db()('app_auth_users').count({ count: '*' }).first()).to.deep.equal({ count: 1 });
  });
});
