import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { UserFacingError } from '../../lib/errors.js';
import { createFirstAdmin, needsFirstRun } from '../../models/auth/registration.js';
import { validateSession } from '../../models/auth/sessions.js';
import { findSessionUser } from '../../models/auth/users.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';

describe('createFirstAdmin', () => {
  let ctx: AppContext;
  before(() => (ctx = contextOf(createTestApp())));
  beforeEach(() => resetData(ctx));

  it('creates a verified administrator holding every permission, then needsFirstRun() is false', async () => {
    expect(await needsFirstRun(ctx)).to.equal(true);
    const user = await createFirstAdmin(ctx, { email: ' Admin@Example.COM ', password: 'correct horse', name: 'Ada' });
    expect(user).to.include({ email: 'admin@example.com', name: 'Ada', role: 'admin', email_verified: true });
    expect(await needsFirstRun(ctx)).to.equal(false);
    const loaded = await findSessionUser(ctx, user.id);
    const allPermissions = (await ctx.db('app_auth_permissions').pluck('key')).sort();
    expect(loaded!.permissions).to.deep.equal(allPermissions);
    expect(loaded!.permissions).to.include.members(['admin.access', 'users.manage', 'roles.manage']);
    const account = (await ctx.db('app_auth_accounts').where({ user_id: user.id }).first())!;
    expect(account.provider).to.equal('credential');
    expect(account.password_hash).to.match(/^\$2[aby]\$/);
  });

  it('also opens its session when given session options (SPEC A5), in the same transaction', async () => {
    const { user, sessionToken } = await createFirstAdmin(
      ctx,
      { email: 'admin@example.com', password: 'correct horse', name: 'Ada' },
      { ip: '198.51.100.4', userAgent: 'Firefox' },
    );
    expect(await validateSession(ctx, sessionToken)).to.include({ userId: user.id });
    const row = await ctx.db('app_auth_sessions').where({ sid: sessionToken }).first('user_id', 'ip', 'user_agent');
    expect(row).to.deep.equal({ user_id: user.id, ip: '198.51.100.4', user_agent: 'Firefox' });
  });

  it('yields exactly one administrator out of 20 simultaneous submissions', async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        createFirstAdmin(ctx, { email: `admin${index}@example.com`, password: 'correct horse', name: `Admin ${index}` }),
      ),
    );
    const fulfilled = attempts.filter((attempt) => attempt.status === 'fulfilled');
    const rejected = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(fulfilled).to.have.length(1);
    expect(rejected).to.have.length(19);
    for (const failure of rejected) {
      expect(failure.reason).to.be.instanceOf(UserFacingError);
      expect(failure.reason.message).to.equal('Le compte administrateur existe déjà');
    }
    const users = await ctx.db('app_auth_users').select('id');
    expect(users).to.have.length(1);
  });

  it('refuses once any account exists and writes nothing', async () => {
    await createFirstAdmin(ctx, { email: 'first@example.com', password: 'correct horse', name: 'First' });
    let caught: unknown;
    try {
      await createFirstAdmin(ctx, { email: 'second@example.com', password: 'correct horse', name: 'Second' });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(UserFacingError);
    expect(await ctx.db('app_auth_users').where({ email: 'second@example.com' }).first()).to.equal(undefined);
  });
});
