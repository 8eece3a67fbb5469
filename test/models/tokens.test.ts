import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { createUserByAdmin } from '../../models/auth/registration.js';
import { completeAccountSetup, requestPasswordReset, resetPassword } from '../../models/auth/recovery.js';
import { consumeToken, issueToken, TOKEN_LIFETIMES_MS } from '../../models/auth/verifications.js';
import { login } from '../../models/auth/login.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';

describe('verification tokens', () => {
  let ctx: AppContext;
  before(() => (ctx = contextOf(createTestApp())));
  beforeEach(() => resetData(ctx));

  async function someUser() {
    const { user } = await createUserByAdmin(ctx, { email: 'token@example.com', name: 'Token', password: 'correct horse' });
    return user;
  }

  it('stores only a hash: the token appears nowhere in the table', async () => {
    const user = await someUser();
    const { token } = await issueToken(ctx, 'password_reset', user);
    const rows = await ctx.db('app_auth_verifications').select('*');
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).to.not.include(token);
    expect(rows[0].token_hash).to.match(/^[0-9a-f]{64}$/);
    expect(Buffer.from(token, 'base64url').length * 8).to.be.at.least(128);
  });

  it('expires after its lifetime (moved clock, no sleeping)', async () => {
    const user = await someUser();
    const start = Date.now();
    ctx.clock.set(() => start);
    const { token } = await issueToken(ctx, 'account_setup', user);
    ctx.clock.set(() => start + TOKEN_LIFETIMES_MS.account_setup + 1000);
    expect(await consumeToken(ctx, 'account_setup', user.email, token)).to.equal(undefined);
    ctx.clock.set(() => start + TOKEN_LIFETIMES_MS.account_setup - 60_000);
    expect(await consumeToken(ctx, 'account_setup', user.email, token)).to.deep.include({ userId: user.id });
  });

  it('is single use, even under 10 concurrent attempts: exactly one wins', async () => {
    const user = await someUser();
    const { token } = await issueToken(ctx, 'email_verification', user);
    const results = await Promise.all(Array.from({ length: 10 }, () => consumeToken(ctx, 'email_verification', user.email, token)));
    expect(results.filter(Boolean)).to.have.length(1);
    expect(await ctx.db('app_auth_verifications').count({ count: '*' }).first()).to.deep.equal({ count: 0 });
  });

  it('is voided by a newer token of the same kind for the same account', async () => {
    const user = await someUser();
    const older = await issueToken(ctx, 'password_reset', user);
    const newer = await issueToken(ctx, 'password_reset', user);
    expect(await consumeToken(ctx, 'password_reset', user.email, older.token)).to.equal(undefined);
    expect(await consumeToken(ctx, 'password_reset', user.email, newer.token)).to.not.equal(undefined);
  });

  it('does not serve another kind or another address', async () => {
    const user = await someUser();
    const { token } = await issueToken(ctx, 'password_reset', user);
    expect(await consumeToken(ctx, 'email_verification', user.email, token)).to.equal(undefined);
    expect(await consumeToken(ctx, 'password_reset', 'other@example.com', token)).to.equal(undefined);
    expect(await consumeToken(ctx, 'password_reset', user.email, token)).to.not.equal(undefined);
  });

  it('resets a password once, marks the address verified, closes sessions and calls the hook', async () => {
    const { user } = await createUserByAdmin(ctx, { email: 'unverified@example.com', name: 'U' });
    const request = await requestPasswordReset(ctx, 'Unverified@example.com');
    const notified: string[] = [];
    const changed = await resetPassword(
      ctx,
      { email: user.email, token: request!.token, newPassword: 'a new password' },
      { onPasswordChanged: (changedUser) => void notified.push(changedUser.email) },
    );
    expect(changed.email_verified).to.equal(true);
    expect(notified).to.deep.equal(['unverified@example.com']);
    expect((await login(ctx, user.email, 'a new password')).id).to.equal(user.id);
    const reuse = await resetPassword(ctx, { email: user.email, token: request!.token, newPassword: 'another one' }).then(
      () => undefined,
      (error) => error,
    );
    expect(reuse.message).to.equal('Ce lien est invalide ou a expiré. Une nouvelle demande est nécessaire.');
  });

  it('completes an invitation: credential created, address verified, token deleted', async () => {
    const { user, setupToken } = await createUserByAdmin(ctx, { email: 'invitee@example.com', name: 'Invitee' });
    const done = await completeAccountSetup(ctx, { email: user.email, token: setupToken!, password: 'chosen password' });
    expect(done.email_verified).to.equal(true);
    expect(await ctx.db('app_auth_verifications').where({ user_id: user.id }).first()).to.equal(undefined);
    expect((await login(ctx, 'invitee@example.com', 'chosen password')).id).to.equal(user.id);
  });
});
