// @apart: spawns app processes that encode images for tens of seconds (asserts no duration; one at a time, beside the parallel workers: npm test, test/support/run.ts)
// The media renditions across real processes (app.ts), the files in PostgreSQL
// (UPLOAD_STORAGE=database, as several hosts share them): a 4000 × 3000 JPEG added while
// two servers run gets its renditions exactly once (one claim, one «media renditions
// made» line in both servers' logs, each file written once), and both serve them; servers
// killed in the middle of the work (a crash: no chance to give the claim back) leave it
// to a server started afterwards, which takes it once the lease has run out (its end moved
// to the past rather than waited for) and makes only what is missing.
import { expect } from 'chai';
import type { AppContext } from '../../lib/context.js';
import type { Media } from '../../models/pages/media.js';
import { addMedia } from '../../services/pages-media.js';
import { closeTestApp, contextOf, createTestApp, resetData, type App } from '../support/app.js';
import { testDatabase } from '../support/database.js';
import { spawnServer, stopServers, waitForListening, type ServerProcess } from '../support/server-process.js';
import { photoJpeg } from './images.js';

const SERVER_ENV = () => ({
  DATABASE_URL: testDatabase().url,
  DATA_DIR: testDatabase().scratchDir,
  SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
  PASSWORD_HASH_COST: '4',
  PASSWORD_HASH_THREADS: '1',
  UPLOAD_STORAGE: 'database',
});

describe('media renditions across server processes', function () {
  this.timeout(600_000);
  let app: App;
  let ctx: AppContext;
  let photo: Buffer;
  let servers: ServerProcess[] = [];

  before(async () => {
    app = createTestApp({ UPLOAD_STORAGE: 'database' });
    ctx = contextOf(app);
    await resetData(ctx);
    photo = await photoJpeg(4000, 3000);
  });
  after(async () => {
    await stopServers(servers.filter((server) => server.child.exitCode === null && server.child.signalCode === null));
    await closeTestApp(app);
  });

  /** `count` servers, once each listens (5 minutes allowed: a start is slow on a loaded machine); stopped by `after` even if one never listens. */
  async function startServers(count: number): Promise<void> {
    servers = await Promise.all(Array.from({ length: count }, () => spawnServer(SERVER_ENV())));
    await Promise.all(servers.map((server) => waitForListening(server, 300_000)));
  }

  const add = (name: string): Promise<Media> =>
    addMedia(
      ctx,
      null,
      { buffer: photo, type: 'jpeg', contentType: 'image/jpeg', size: photo.length, originalName: name, width: 4000, height: 3000 },
      { alt: name },
    );

  /** The stored names made from a media (the original excluded). */
  async function madeFrom(media: Media): Promise<string[]> {
    const base = media.filename.slice(0, media.filename.lastIndexOf('.'));
    return ctx.db('app_upload_blobs').where('name', 'like', `${base}-%`).orderBy('name').pluck('name');
  }

  async function until<T>(what: string, read: () => Promise<T | undefined | false>, timeoutMs = 240_000, everyMs = 200): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value) return value;
      if (Date.now() > deadline)
        throw new Error(`${what}: not after ${timeoutMs / 1000} s\n${servers.map((server) => server.output().slice(-3000)).join('\n---\n')}`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }

  const job = (media: Media) => ctx.db('app_pages_media_jobs').where({ media_id: media.id }).first();
  const done = async (media: Media) => {
    const row = await job(media);
    return row?.done_at ? row : undefined;
  };
  const madeLines = (media: Media) =>
    servers
      .flatMap((server) => server.output().split('\n'))
      .filter((line) => line.includes('media renditions made') && line.includes(`"mediaId":${media.id},`));

  it('makes the renditions of a 4000 × 3000 JPEG exactly once with two servers running, and both serve them', async () => {
    await startServers(2);
    const media = await add('paysage.jpg');
    const finished = await until('renditions made', () => done(media));
    expect(finished.attempts).to.equal(1);
    expect(finished.last_error).to.equal(null);
    // The line is written after the commit that the row shows, and read from the server's pipe.
    const lines = await until('its log line', () => Promise.resolve(madeLines(media).length > 0 && madeLines(media)));
    expect(lines).to.have.length(1);
    const made = await madeFrom(media);
    // 5 widths × AVIF, WebP, JPEG, and the two crops: each name written once (a second write would have failed on the key).
    expect(made).to.have.length(17);
    const row = await ctx.db('app_pages_media').where({ id: media.id }).first();
    expect(row!.renditions).to.have.length(15);
    const avif = row!.renditions.find((rendition) => rendition.format === 'avif' && rendition.width === 960)!;
    for (const server of servers) {
      const served = await fetch(`http://127.0.0.1:${server.port}/uploads/${avif.name}`);
      expect(served.status).to.equal(200);
      expect(served.headers.get('content-type')).to.equal('image/avif');
      expect(served.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    }
  });

  it('completes renditions after the servers died in the middle of them (a restart), making only what was missing', async () => {
    const media = await add('falaise.jpg');
    const partial = await until(
      'a few renditions stored',
      async () => {
        const made = await madeFrom(media);
        return made.length >= 2 && made;
      },
      240_000,
      20,
    );
    for (const server of servers) server.child.kill('SIGKILL');
    await Promise.all(servers.map((server) => server.exited));
    const stranded = await job(media);
    expect(stranded!.done_at, 'killed before the end').to.equal(null);
    expect(stranded!.lease_token).to.be.a('string');
    // The claim is still held by the dead servers' lease; its 30 s are made to pass by
    // moving its end to the past, instead of being waited for.
    expect(
      await ctx.db('app_pages_media_jobs').where({ media_id: media.id }).where('leased_until', '>', ctx.db.fn.now()).count('* as held').first(),
    ).to.deep.equal({ held: 1 });
    await ctx
      .db('app_pages_media_jobs')
      .where({ media_id: media.id })
      .update({ leased_until: ctx.db.raw("CURRENT_TIMESTAMP - interval '1 second'") });
    const first = await ctx.db('app_upload_blobs').whereIn('name', partial).select(['name', 'created_at']);

    await startServers(1);
    const finished = await until('renditions completed by the new server', () => done(media));
    expect(finished.attempts).to.equal(2);
    expect(await madeFrom(media)).to.have.length(17);
    // What the dead servers wrote was kept, not written again.
    const again = await ctx.db('app_upload_blobs').whereIn('name', partial).select(['name', 'created_at']);
    expect(again).to.deep.equal(first);
    const row = await ctx.db('app_pages_media').where({ id: media.id }).first();
    expect(row!.renditions).to.have.length(15);
    expect(madeLines(media)).to.have.length(1);
  });
});
