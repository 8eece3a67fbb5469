import { Writable } from 'node:stream';
import { expect } from 'chai';
import pino from 'pino';
import request from 'supertest';
import { providerSecret } from '../../models/auth/sso-providers.js';
import { reencryptSecrets } from '../../models/auth/two-factor-crypto.js';
import { caller } from '../support/fixtures.js';
import { testConfig } from '../support/app.js';
import { CLIENT_SECRET } from './idp.js';
import { providerInput, signInWith, useSsoSuite } from './helpers.js';

describe('Single sign-on: the client secret stays secret', () => {
  const suite = useSsoSuite(() => ({ LOG_LEVEL: 'debug' }));
  const streamKey = pino.symbols.streamSym as unknown as 'stream';

  it('appears in no log line of a provider’s creation, a sign-in, a refusal and a provider that is down', async () => {
    const { ctx, app } = suite;
    const chunks: string[] = [];
    const logger = ctx.logger as unknown as Record<'stream', unknown>;
    const original = logger[streamKey];
    logger[streamKey] = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    try {
      const admin = await caller(ctx, { role: 'admin' });
      const created = await request(app)
        .post('/app/api/admin/sign-in/providers')
        .set('Cookie', admin.cookie)
        .send({ ...providerInput(suite.idp), allow_signup: true });
      expect(created.status).to.equal(201);
      expect((await signInWith(suite, created.body.id as number)).answer.status).to.equal(303);
      suite.idp.tamper = (claims) => void (claims.aud = 'another-client');
      expect((await signInWith(suite, created.body.id as number)).answer.status).to.equal(400);
      await request(app).put(`/app/api/admin/sign-in/providers/${created.body.id}`).set('Cookie', admin.cookie).send({ issuer: 'http://127.0.0.1:9' });
      expect((await request(app).get(`/auth/sso/${created.body.id}`)).status).to.equal(503);
    } finally {
      logger[streamKey] = original;
    }
    const log = chunks.join('');
    expect(log).to.include('single sign-on refused').and.include('single sign-on provider unreachable');
    expect(log).not.to.include(CLIENT_SECRET);
  });

  it('is re-encrypted by the two-step rekey when SESSION_SECRET changes', async () => {
    const { ctx } = suite;
    const created = await request(suite.app)
      .post('/app/api/admin/sign-in/providers')
      .set('Cookie', (await caller(ctx, { role: 'admin' })).cookie)
      .send(providerInput(suite.idp));
    const id = created.body.id as number;
    const current = testConfig().sessionSecret;
    const previous = 'a-previous-session-secret-long-enough-0123456789';
    // Pretend the stored secret was written under the previous key, then rekey.
    await reencryptSecrets(ctx.db, current, previous);
    expect(await providerSecret(ctx, id)).to.equal(undefined);
    const report = await reencryptSecrets(ctx.db, previous, current);
    expect(report).to.deep.equal({ reencrypted: 1, current: 0, unreadable: 0 });
    expect(await providerSecret(ctx, id)).to.equal(CLIENT_SECRET);
  });
});
