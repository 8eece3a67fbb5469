import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { EmailNotVerifiedError, InvalidCredentialsError } from '../../lib/errors.js';
import { login } from '../../models/auth/login.js';
import { register, createUserByAdmin } from '../../models/auth/registration.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('login()', () => {
  let ctx: AppContext;
  before(() => (ctx = contextOf(createTestApp())));
  beforeEach(() => resetData(ctx));

  it('returns the user for a verified account and the right password', async () => {
    await createUserByAdmin(ctx, { email: 'ok@example.com', name: 'Ok', password: 'correct horse' });
    const user = await login(ctx, 'OK@example.com ', 'correct horse');
    expect(user).to.include({ email: 'ok@example.com', email_verified: true });
  });

  it('raises EmailNotVerifiedError for an unverified account with the right password', async () => {
    await createUserByAdmin(ctx, { email: 'first@example.com', name: 'First', password: 'correct horse' });
    await register(ctx, { email: 'unverified@example.com', name: 'U', password: 'correct horse' });
    const error = await failure(login(ctx, 'unverified@example.com', 'correct horse'));
    expect(error).to.be.instanceOf(EmailNotVerifiedError);
    expect(error.message).to.equal("Le courriel de ce compte n'a pas été vérifié.");
  });

  it('answers an unverified account with a wrong password exactly like an unknown account', async () => {
    await createUserByAdmin(ctx, { email: 'first@example.com', name: 'First', password: 'correct horse' });
    await register(ctx, { email: 'unverified@example.com', name: 'U', password: 'correct horse' });
    const wrong = await failure(login(ctx, 'unverified@example.com', 'wrong password'));
    const unknown = await failure(login(ctx, 'nobody@example.com', 'wrong password'));
    expect(wrong).to.be.instanceOf(InvalidCredentialsError);
    expect(unknown).to.be.instanceOf(InvalidCredentialsError);
    expect(wrong.message).to.equal(unknown.message);
    expect((wrong as InvalidCredentialsError).code).to.equal((unknown as InvalidCredentialsError).code);
  });

  it('refuses an invited account that has no password yet', async () => {
    await createUserByAdmin(ctx, { email: 'invited@example.com', name: 'Invited' });
    expect(await failure(login(ctx, 'invited@example.com', 'anything at all'))).to.be.instanceOf(InvalidCredentialsError);
  });

  it('refuses passwords under 8 characters and over 72 bytes instead of truncating them', async () => {
    const short = await failure(createUserByAdmin(ctx, { email: 'a@example.com', name: 'A', password: 'short' }));
    expect(short.message).to.equal('Le mot de passe doit contenir au moins 8 caractères.');
    const long = await failure(createUserByAdmin(ctx, { email: 'b@example.com', name: 'B', password: 'é'.repeat(37) }));
    expect(long.message).to.match(/72 octets/);
  });
});
