// Check-then-write pairs of the user and role models under concurrency: each check
// must run in the transaction that writes, on rows it has locked. The deterministic
// cases hold a row lock in a transaction of the test, start the request, wait until
// PostgreSQL shows it waiting for that lock, then commit the competing change.
import { expect } from 'chai';
import type { Knex } from 'knex';
import request from 'supertest';
import type { AppContext } from '../../../lib/context.js';
import { issueToken } from '../../../models/auth/verifications.js';
import { contextOf, createTestApp, resetData, type App } from '../../support/app.js';
import { PASSWORD, caller, makeRole, makeUser } from '../../support/fixtures.js';

const MANAGER = ['admin.access', 'users.view', 'users.manage', 'roles.view', 'roles.manage'];

/** Resolves once a statement of this database waits for a lock (the request reached it). */
async function lockWaiter(ctx: AppContext, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await ctx.db.raw<{ rows: Array<{ waiting: number }> }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].waiting > 0) return;
    if (Date.now() > deadline) throw new Error('no statement is waiting for a lock');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a supertest request now (it runs on its first then()). */
function started(test: request.Test): Promise<request.Response> {
  return new Promise((resolve, reject) => test.then(resolve, reject));
}

describe('/app/api users and roles under concurrency', () => {
  let app: App;
  let ctx: AppContext;
  before(() => {
    app = createTestApp({ RATE_LIMIT_API: '10000/1m' });
    ctx = contextOf(app);
  });
  beforeEach(() => resetData(ctx));

  async function roleOf(email: string): Promise<number | undefined> {
    return (await ctx.db('app_auth_users').where({ email }).first('role_id'))?.role_id;
  }

  describe('POST /users while roles are renamed', () => {
    it('never gives the role the caller lacks when the two role names are swapped while the creation waits', async () => {
      const manager = await caller(ctx, { permissions: MANAGER });
      const plainId = await makeRole(ctx, ['users.view'], 'plain');
      const powerId = await makeRole(ctx, ['pages.manage'], 'power');
      const trx: Knex.Transaction = await ctx.db.transaction();
      let creating: Promise<request.Response> | undefined;
      try {
        await trx('app_auth_roles').where({ id: plainId }).update({ name: 'swap-tmp' });
        creating = started(request(app).post('/app/api/users').set('Cookie', manager.cookie).send({ email: 'new@example.com', name: 'New', role: 'plain' }));
        await lockWaiter(ctx);
        await trx('app_auth_roles').where({ id: powerId }).update({ name: 'plain' });
        await trx('app_auth_roles').where({ id: plainId }).update({ name: 'power' });
        await trx.commit();
      } finally {
        if (!trx.isCompleted()) await trx.rollback();
      }
      const response = await creating;
      // The name `plain` left the role that was checked: refused as unknown, never swapped.
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.code).to.equal('unknown_role');
      expect(await roleOf('new@example.com')).to.equal(undefined);
    });

    it('hashes the password before taking any lock: the role can be changed while the hash runs', async () => {
      const manager = await caller(ctx, { permissions: MANAGER });
      const plainId = await makeRole(ctx, ['users.view'], 'plain');
      const hash = ctx.hasher.hash.bind(ctx.hasher);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let hashing!: () => void;
      const hashStarted = new Promise<void>((resolve) => (hashing = resolve));
      ctx.hasher.hash = async (password: string) => {
        hashing();
        await gate;
        return hash(password);
      };
      let creating: Promise<request.Response> | undefined;
      try {
        creating = started(
          request(app).post('/app/api/users').set('Cookie', manager.cookie).send({ email: 'new@example.com', name: 'New', role: 'plain', password: PASSWORD }),
        );
        await hashStarted;
        // A role change locks the row FOR UPDATE: it would wait behind a lock held during the hash.
        await ctx.db.transaction(async (trx) => {
          await trx.raw(`SET LOCAL lock_timeout = '1s'`);
          await trx('app_auth_roles').where({ id: plainId }).forUpdate().first('id');
        });
      } finally {
        release();
        ctx.hasher.hash = hash;
      }
      expect((await creating).status).to.equal(201);
      expect(await roleOf('new@example.com')).to.equal(plainId);
    });

    it('stays within the caller’s permissions over 20 concurrent swaps of two role names and creations naming one of them', async () => {
      const manager = await caller(ctx, { permissions: MANAGER });
      const admin = await caller(ctx, { role: 'admin' });
      const rename = (id: number, name: string) => request(app).put(`/app/api/roles/${id}`).set('Cookie', admin.cookie).send({ name });
      const lacked: number[] = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        const [alpha, beta] = [`alpha-${attempt}`, `beta-${attempt}`];
        const alphaId = await makeRole(ctx, ['users.view'], alpha);
        const betaId = await makeRole(ctx, ['pages.manage'], beta);
        lacked.push(betaId);
        const swap = async () => {
          expect((await rename(alphaId, `tmp-${attempt}`)).status).to.equal(200);
          expect((await rename(betaId, alpha)).status).to.equal(200);
          expect((await rename(alphaId, beta)).status).to.equal(200);
        };
        const create = async () => {
          const response = await request(app)
            .post('/app/api/users')
            .set('Cookie', manager.cookie)
            .send({ email: `new-${attempt}@example.com`, name: 'New', role: alpha, password: PASSWORD });
          // Created with the role it was checked for, refused as an escalation, or the name was in between.
          expect([201, 400, 403], JSON.stringify(response.body)).to.include(response.status);
        };
        await Promise.all([swap(), create()]);
        const given = await roleOf(`new-${attempt}@example.com`);
        if (given !== undefined) expect(given, `attempt ${attempt}`).to.equal(alphaId);
      }
      expect(await ctx.db('app_auth_users').whereIn('role_id', lacked)).to.have.length(0);
    });
  });

  describe('a role deleted while it is being granted', () => {
    async function deletingRole(roleId: number, run: () => request.Test): Promise<request.Response> {
      const trx = await ctx.db.transaction();
      let response: Promise<request.Response> | undefined;
      try {
        // What deleteRole does: lock the row, then delete it.
        await trx('app_auth_roles').where({ id: roleId }).forUpdate().first('id');
        await trx('app_auth_roles').where({ id: roleId }).delete();
        response = started(run());
        await lockWaiter(ctx);
        await trx.commit();
      } finally {
        if (!trx.isCompleted()) await trx.rollback();
      }
      return response;
    }

    it('as a primary role (PUT /users/:id): 400 unknown_role, not a 500', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      const roleId = await makeRole(ctx, [], 'doomed');
      const response = await deletingRole(roleId, () => request(app).put(`/app/api/users/${target.id}`).set('Cookie', admin.cookie).send({ role: 'doomed' }));
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.code).to.equal('unknown_role');
    });

    it('as an extra role (POST /users/:id/roles): 400 unknown_role, not a 500', async () => {
      const admin = await caller(ctx, { role: 'admin' });
      const target = await makeUser(ctx);
      const roleId = await makeRole(ctx, [], 'doomed');
      const response = await deletingRole(roleId, () =>
        request(app).post(`/app/api/users/${target.id}/roles`).set('Cookie', admin.cookie).send({ role_id: roleId }),
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(400);
      expect(response.body.code).to.equal('unknown_role');
      expect(await ctx.db('app_auth_user_roles').where({ user_id: target.id })).to.have.length(0);
    });
  });

  describe('POST /users/email/confirm while another account takes the address', () => {
    it('answers 409 email_taken (the unique index decides), not a 500, and leaves the address', async () => {
      const user = await makeUser(ctx, { email: 'old@example.com' });
      const { token } = await issueToken(ctx, 'email_change', user, { newEmail: 'new@example.com' });
      const trx = await ctx.db.transaction();
      let response: Promise<request.Response> | undefined;
      try {
        // Not yet committed: the confirmation's own check cannot see it, the index waits for it.
        await trx('app_auth_users').insert({
          email: 'new@example.com',
          name: 'Quick',
          role_id: (await trx('app_auth_roles').where({ name: 'user' }).first('id'))!.id,
        });
        response = started(request(app).post('/app/api/users/email/confirm').send({ token }));
        await lockWaiter(ctx);
        await trx.commit();
      } finally {
        if (!trx.isCompleted()) await trx.rollback();
      }
      const answered = await response;
      expect(answered.status, JSON.stringify(answered.body)).to.equal(409);
      expect(answered.body.code).to.equal('email_taken');
      expect((await ctx.db('app_auth_users').where({ id: user.id }).first())!.email).to.equal('old@example.com');
    });
  });
});
