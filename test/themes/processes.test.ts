// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// A theme switch across real processes: two servers (app.ts, as `node dist/app.js`
// runs) on the test database and one temporary THEMES_DIR. The theme is activated
// through the API of the first; both use it at their next render (the setting's
// NOTIFY drops their cached pages and settings), then both go back to the default.
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import { contextOf, createTestApp, resetData } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { spawnListeningServers, stopServers, type ServerProcess } from '../support/server-process.js';
import { makePage, userWith } from '../pages/helpers.js';
import { makeThemesDir, TEST_THEME } from './fixture.js';

const SECRET = 'test-session-secret-that-is-long-enough-0123456789';

async function text(server: ServerProcess, path: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${server.port}${path}`)).text();
}

/** Reads `path` from `server` until `seen` holds (2 s at most). */
async function until(server: ServerProcess, path: string, seen: (html: string) => boolean): Promise<string> {
  const start = performance.now();
  for (;;) {
    const html = await text(server, path);
    if (seen(html)) return html;
    if (performance.now() - start > 2000) throw new Error(`${path} on port ${server.port} still without the change after 2 s: ${html.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a theme switch seen by two server processes', function () {
  this.timeout(120_000);
  let servers: ServerProcess[] = [];
  let ctx: AppContext;
  let themesDir: string;

  before(async () => {
    themesDir = makeThemesDir();
    ctx = contextOf(createTestApp({ THEMES_DIR: themesDir }));
    const env = {
      DATABASE_URL: testDatabase().url,
      DATA_DIR: testDatabase().scratchDir,
      SESSION_SECRET: SECRET,
      PASSWORD_HASH_COST: '4',
      PASSWORD_HASH_THREADS: '1',
      THEMES_DIR: themesDir,
    };
    servers = await spawnListeningServers(env);
  });
  after(async () => {
    await stopServers(servers);
    rmSync(themesDir, { recursive: true, force: true });
  });
  beforeEach(() => resetData(ctx));

  it('uses the theme activated through one process’s API in both at once, its block rendered, then the default again', async () => {
    await makePage(ctx, { title: 'Démarrer', blocks: [{ type: 'callout', tone: 'warning', text: 'Attention au **départ**.' }] });
    const admin = await userWith(ctx, ['admin.access', 'settings.manage']);
    // Both cache the page in the default theme (the callout, unknown to it, rendered as nothing).
    for (const server of servers) {
      const html = await text(server, '/demarrer');
      expect(html).to.include('data-theme="default"').and.not.include('callout');
    }

    const put = (theme: string) =>
      fetch(`http://127.0.0.1:${servers[0].port}/app/api/admin/settings`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json', Cookie: admin.cookie },
        body: JSON.stringify({ theme }),
      });
    const activated = await put(TEST_THEME);
    expect(activated.status, await activated.clone().text()).to.equal(200);
    expect(((await activated.json()) as { theme: string }).theme).to.equal(TEST_THEME);
    for (const server of servers) {
      const html = await until(server, '/demarrer', (page) => page.includes(`data-theme="${TEST_THEME}"`));
      expect(html).to.include('class="layout-essai"');
      expect(html).to.include('<aside class="callout callout-warning"><p>Attention au <strong>départ</strong>.</p></aside>');
      expect(html).to.match(/href="\/theme\/essai\/theme\.[0-9a-f]{8}\.css"/);
    }

    expect((await put('default')).status).to.equal(200);
    for (const server of servers) {
      const html = await until(server, '/demarrer', (page) => page.includes('data-theme="default"'));
      expect(html).to.not.include('layout-essai').and.not.include('callout');
    }
  });
});
