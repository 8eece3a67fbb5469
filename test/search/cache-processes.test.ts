// @apart: spawns two app processes (asserts no duration beyond a 5 s bound on a change)
// The search's cached answers across real processes: two servers (app.ts) on the test
// database, the pages written by this process. A renamed page is found by its new title
// in each server as soon as its notification arrives, and the old title never again.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { updatePage } from '../../models/pages/pages.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { spawnListeningServers, stopServers, type ServerProcess } from '../support/server-process.js';
import { makePage } from '../pages/helpers.js';

const SECRET = 'test-session-secret-that-is-long-enough-0123456789';

async function titles(server: ServerProcess, q: string): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${server.port}/app/api/pages/search?q=${encodeURIComponent(q)}`);
  expect(response.status).to.equal(200);
  const body = (await response.json()) as { items: Array<{ title: string }> };
  return body.items.map((item) => item.title);
}

/** Asks until `q` finds `expected` (5 s at most), then 10 times more: it must keep finding it. */
async function untilFound(server: ServerProcess, q: string, expected: string[]): Promise<void> {
  const start = Date.now();
  while (JSON.stringify(await titles(server, q)) !== JSON.stringify(expected)) {
    if (Date.now() - start > 5000) throw new Error(`«${q}» on port ${server.port} does not find ${expected.join(', ')} after 5 s`);
  }
  for (let read = 0; read < 10; read++) expect(await titles(server, q), `«${q}» read ${read} after`).to.deep.equal(expected);
}

describe('the search’s cached answers across two server processes', function () {
  this.timeout(120_000);
  let servers: ServerProcess[] = [];
  let app: App;
  let ctx: AppContext;

  before(async () => {
    app = createTestApp();
    ctx = contextOf(app);
    await resetData(ctx);
    servers = await spawnListeningServers({
      DATABASE_URL: testDatabase().url,
      DATA_DIR: testDatabase().scratchDir,
      SESSION_SECRET: SECRET,
      PASSWORD_HASH_COST: '4',
      PASSWORD_HASH_THREADS: '1',
    });
  });
  after(async () => {
    await stopServers(servers);
    await closeTestApp(app);
  });

  it('finds a renamed page by its new title in every process, and no longer by its old one', async () => {
    const page = await makePage(ctx, { title: 'Atelier de poterie', slug: 'atelier' });
    for (const server of servers) {
      await untilFound(server, 'poterie', ['Atelier de poterie']);
      // Cached now: the next change must drop it.
      expect(await titles(server, 'ceramique')).to.deep.equal([]);
    }
    await updatePage(ctx, page.id, { title: 'Atelier de céramique' });
    for (const server of servers) {
      await untilFound(server, 'ceramique', ['Atelier de céramique']);
      await untilFound(server, 'poterie', []);
    }
    expect(await ctx.db('app_pages').where({ id: page.id }).first()).to.have.property('title', 'Atelier de céramique');
  });
});
