// Moving the stored TOTP secrets to a new SESSION_SECRET (npm run two-factor:rekey):
// before, the app with the new secret cannot read them; after, it can, and the old one
// cannot; a second run finds nothing to move; a secret under neither key is counted.
import { expect } from 'chai';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { decryptSecret, reencryptSecrets } from '../../models/auth/two-factor-crypto.js';
import { startSetup } from '../../models/auth/two-factor.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { makeUser } from '../support/fixtures.js';
import { enrolTwoFactor } from '../support/two-factor.js';

const NEW_SECRET = 'the-new-session-secret-after-rotation-0123456789';

describe('two-factor secrets after a SESSION_SECRET rotation', () => {
  let ctx: AppContext;
  let rotated: AppContext;
  before(() => {
    ctx = contextOf(createTestApp());
    rotated = contextOf(createTestApp({ SESSION_SECRET: NEW_SECRET }));
  });
  beforeEach(() => resetData(ctx));

  async function stored(userId: number) {
    return (await ctx.db('app_auth_two_factor').where({ user_id: userId }).first())!;
  }

  it('re-encrypts active and pending secrets under the new key, once', async () => {
    const enrolled = await makeUser(ctx);
    const { secret } = await enrolTwoFactor(ctx, enrolled);
    const pendingUser = await makeUser(ctx);
    const pending = await inTransaction(ctx, (tx) => startSetup(tx, pendingUser));
    expect(decryptSecret(rotated, enrolled.id, (await stored(enrolled.id)).secret!)).to.equal(undefined);

    const report = await reencryptSecrets(ctx.db, ctx.config.sessionSecret, NEW_SECRET);
    expect(report).to.deep.equal({ reencrypted: 2, current: 0, unreadable: 0 });
    expect(decryptSecret(rotated, enrolled.id, (await stored(enrolled.id)).secret!)).to.equal(secret);
    expect(decryptSecret(rotated, pendingUser.id, (await stored(pendingUser.id)).pending_secret!)).to.equal(pending.secret);
    expect(decryptSecret(ctx, enrolled.id, (await stored(enrolled.id)).secret!)).to.equal(undefined);

    expect(await reencryptSecrets(ctx.db, ctx.config.sessionSecret, NEW_SECRET)).to.deep.equal({ reencrypted: 0, current: 2, unreadable: 0 });
  });

  it('counts a secret under neither key and leaves it as it was', async () => {
    const user = await makeUser(ctx);
    await enrolTwoFactor(ctx, user);
    const before = (await stored(user.id)).secret;
    const report = await reencryptSecrets(ctx.db, 'some-other-old-secret-that-never-was-0123456789', NEW_SECRET);
    expect(report).to.deep.equal({ reencrypted: 0, current: 0, unreadable: 1 });
    expect((await stored(user.id)).secret).to.equal(before);
  });
});
