// @apart: spawns app processes, asserts no duration (one at a time, beside the parallel workers: npm test, test/support/run.ts)
// Uploads shared across hosts (UPLOAD_STORAGE=database): files in app_upload_blobs, served
// like files on disk; two applications on one database (two hosts, each its own
// UPLOAD_DIR) see each other's files; `npm run uploads:migrate` both ways, resumable,
// with the files served throughout.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import request from 'supertest';
import { ConfigError } from '../../lib/config.js';
import type { AppContext } from '../../lib/context.js';
import { migrateUploads } from '../../lib/upload-migrate.js';
import { closeTestApp, contextOf, createTestApp, resetData, testConfig, type App } from '../support/app.js';
import { JPEG_BYTES, PNG_1X1, caller } from '../support/fixtures.js';
import { bundledEntryArgs } from '../support/server-bundle.js';

const run = promisify(execFile);

/** A PNG (by its magic bytes) of `size` bytes whose content differs at every offset. */
function bigPng(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  PNG_1X1.copy(bytes, 0, 0, 8);
  return bytes;
}

function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}

async function blobNames(ctx: AppContext): Promise<string[]> {
  return (await ctx.db('app_upload_blobs').orderBy('name').select('name')).map((row) => row.name);
}

const SERVED_HEADERS = [
  'accept-ranges',
  'cache-control',
  'content-length',
  'content-security-policy',
  'content-type',
  'etag',
  'last-modified',
  'x-content-type-options',
];

describe('uploads stored in PostgreSQL (UPLOAD_STORAGE=database)', () => {
  let hostA: App;
  let hostB: App;
  let diskApp: App;
  let a: AppContext;
  let disk: AppContext;
  let dirA: string;
  let dirB: string;
  let dirDisk: string;
  before(() => {
    dirA = mkdtempSync(path.join(os.tmpdir(), 'uploads-a-'));
    dirB = mkdtempSync(path.join(os.tmpdir(), 'uploads-b-'));
    dirDisk = mkdtempSync(path.join(os.tmpdir(), 'uploads-disk-'));
    hostA = createTestApp({ UPLOAD_STORAGE: 'database', UPLOAD_DIR: dirA });
    hostB = createTestApp({ UPLOAD_STORAGE: 'database', UPLOAD_DIR: dirB });
    diskApp = createTestApp({ UPLOAD_STORAGE: 'disk', UPLOAD_DIR: dirDisk });
    [a, disk] = [hostA, diskApp].map(contextOf);
  });
  after(() => Promise.all([hostA, hostB, diskApp].map(closeTestApp)));
  beforeEach(() => resetData(a));

  const manager = () => caller(a, { permissions: ['admin.access', 'pages.manage'] });
  const upload = (app: App, cookie: string, bytes: Buffer, name = 'photo.png') =>
    request(app).post('/app/api/admin/media').set('Cookie', cookie).field('alt', 'Une photo').attach('file', bytes, name);

  it('stores a media in the database, nothing on disk, and serves the same bytes with the headers a file on disk gets', async () => {
    const me = await manager();
    const bytes = bigPng(600 * 1024);
    const created = await upload(hostA, me.cookie, bytes);
    expect(created.status).to.equal(201);
    expect(created.body.url).to.match(/^\/uploads\/media\/[a-f0-9]{32}\.png$/);
    const blob = await a.db('app_upload_blobs').where({ name: created.body.filename }).first();
    expect(blob).to.include({ content_type: 'image/png', size: bytes.length });
    expect(Buffer.compare(blob!.bytes, bytes)).to.equal(0);
    expect(filesUnder(dirA)).to.deep.equal([]);

    const served = await request(hostA).get(created.body.url);
    expect(served.status).to.equal(200);
    expect(Buffer.compare(served.body, bytes)).to.equal(0);
    expect(served.headers).to.include({
      'content-type': 'image/png',
      'content-length': String(bytes.length),
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
      // Strong: the bytes under a stored name never change (If-Range needs a strong validator).
      etag: `"${bytes.length.toString(16)}-${blob!.created_at.getTime().toString(16)}"`,
      'last-modified': blob!.created_at.toUTCString(),
    });

    // The same file uploaded where files go to disk: the same headers, the same bytes.
    const onDisk = await upload(diskApp, (await caller(disk, { permissions: ['admin.access', 'pages.manage'] })).cookie, bytes);
    expect(filesUnder(dirDisk)).to.deep.equal([onDisk.body.filename]);
    const fromDisk = await request(diskApp).get(onDisk.body.url);
    expect(Buffer.compare(fromDisk.body, bytes)).to.equal(0);
    for (const header of SERVED_HEADERS) expect(fromDisk.headers[header], header).to.be.a('string');
    for (const header of SERVED_HEADERS.filter((name) => !['etag', 'last-modified'].includes(name))) {
      expect(served.headers[header], header).to.equal(fromDisk.headers[header]);
    }
  });

  it('answers 304 to a matching conditional request, one byte range across the read slices (206), and 416 past the end', async () => {
    const me = await manager();
    const bytes = bigPng(700 * 1024);
    const { url } = (await upload(hostA, me.cookie, bytes)).body;
    const full = await request(hostA).get(url);
    expect((await request(hostA).get(url).set('If-None-Match', full.headers.etag)).status).to.equal(304);
    expect((await request(hostA).get(url).set('If-Modified-Since', full.headers['last-modified'])).status).to.equal(304);

    const partial = await request(hostA).get(url).set('Range', 'bytes=262000-530000');
    expect(partial.status).to.equal(206);
    expect(partial.headers['content-range']).to.equal(`bytes 262000-530000/${bytes.length}`);
    expect(partial.headers['content-length']).to.equal(String(530000 - 262000 + 1));
    expect(Buffer.compare(partial.body, bytes.subarray(262000, 530001))).to.equal(0);

    const tail = await request(hostA).get(url).set('Range', 'bytes=-10');
    expect(Buffer.compare(tail.body, bytes.subarray(bytes.length - 10))).to.equal(0);

    const past = await request(hostA)
      .get(url)
      .set('Range', `bytes=${bytes.length + 5}-`);
    expect(past.status).to.equal(416);
    expect(past.headers['content-range']).to.equal(`bytes */${bytes.length}`);

    // A stale If-Range gets the whole file.
    const stale = await request(hostA).get(url).set('Range', 'bytes=0-9').set('If-Range', 'W/"0-0"');
    expect(stale.status).to.equal(200);
    expect(stale.body.length).to.equal(bytes.length);

    const head = await request(hostA).head(url);
    expect(head.status).to.equal(200);
    expect(head.headers['content-length']).to.equal(String(bytes.length));
  });

  it('removes the blob with the media row, keeps it when the media is in use (409), and stores nothing for a missing file (400)', async () => {
    const me = await manager();
    const first = (await upload(hostA, me.cookie, PNG_1X1)).body;
    const second = (await upload(hostA, me.cookie, JPEG_BYTES, 'photo.jpg')).body;
    expect(await blobNames(a)).to.have.members([first.filename, second.filename]);

    await a.db('app_pages').insert({ title: 'Galerie', slug: 'galerie', blocks: JSON.stringify([{ type: 'image', media_id: second.id }]) });
    const inUse = await request(hostA).delete(`/app/api/admin/media/${second.id}`).set('Cookie', me.cookie);
    expect(inUse.status).to.equal(409);
    expect(await blobNames(a)).to.have.members([first.filename, second.filename]);

    const removed = await request(hostA).delete(`/app/api/admin/media/${first.id}`).set('Cookie', me.cookie);
    expect(removed.status).to.equal(204);
    expect(await blobNames(a)).to.deep.equal([second.filename]);
    expect((await request(hostA).get(first.url)).status).to.equal(404);

    const missing = await request(hostA).post('/app/api/admin/media').set('Cookie', me.cookie).field('alt', 'Sans fichier');
    expect(missing.status).to.equal(400);
    expect(missing.body.code).to.equal('missing_file');
    expect(await blobNames(a)).to.deep.equal([second.filename]);
  });

  it('keeps the profile picture in the database: upload, replace (old blob gone), remove', async () => {
    const me = await caller(a);
    const first = await request(hostA).post('/app/api/users/profile/picture').set('Cookie', me.cookie).attach('picture', PNG_1X1, 'me.png');
    expect(first.status).to.equal(200);
    const firstName = first.body.image.replace('/uploads/', '');
    expect(await blobNames(a)).to.deep.equal([firstName]);

    const second = await request(hostA).post('/app/api/users/profile/picture').set('Cookie', me.cookie).attach('picture', JPEG_BYTES, 'me.jpg');
    expect(second.status).to.equal(200);
    expect(await blobNames(a)).to.deep.equal([second.body.image.replace('/uploads/', '')]);
    expect((await a.db('app_auth_users').where({ id: me.id }).first())!.image).to.equal(second.body.image);
    const served = await request(hostB).get(second.body.image);
    expect(served.headers['content-type']).to.equal('image/jpeg');
    expect(Buffer.compare(served.body, JPEG_BYTES)).to.equal(0);
    expect((await request(hostA).get(first.body.image)).status).to.equal(404);

    expect((await request(hostA).delete('/app/api/users/profile/picture').set('Cookie', me.cookie)).status).to.equal(204);
    expect(await blobNames(a)).to.deep.equal([]);
    expect((await a.db('app_auth_users').where({ id: me.id }).first())!.image).to.equal(null);
    expect(filesUnder(dirA)).to.deep.equal([]);
  });

  it('lets two hosts on one database serve and remove each other’s uploads', async () => {
    const me = await manager();
    const created = (await upload(hostA, me.cookie, PNG_1X1)).body;
    const fromB = await request(hostB).get(created.url);
    expect(fromB.status).to.equal(200);
    expect(Buffer.compare(fromB.body, PNG_1X1)).to.equal(0);
    expect(filesUnder(dirB)).to.deep.equal([]);

    const removed = await request(hostB).delete(`/app/api/admin/media/${created.id}`).set('Cookie', me.cookie);
    expect(removed.status).to.equal(204);
    expect((await request(hostA).get(created.url)).status).to.equal(404);
    expect(await blobNames(a)).to.deep.equal([]);
  });

  it('refuses an unknown UPLOAD_STORAGE at start with a message naming the choices', () => {
    expect(() => testConfig({ UPLOAD_STORAGE: 's3' })).to.throw(ConfigError, /"UPLOAD_STORAGE" must be "disk" \(files under UPLOAD_DIR\) or "database"/);
    expect(testConfig({}).uploadStorage).to.equal('disk');
  });

  describe('npm run uploads:migrate', function () {
    // Each test spawns the script (`npm run uploads:migrate`, bundled: server-bundle.ts): a busy machine's start, not an assertion.
    this.timeout(60_000);
    // The same host after UPLOAD_STORAGE=database and a restart: it shares the disk app's UPLOAD_DIR.
    let switchedApp: App;
    before(() => {
      switchedApp = createTestApp({ UPLOAD_STORAGE: 'database', UPLOAD_DIR: dirDisk });
    });
    after(() => closeTestApp(switchedApp));
    beforeEach(() => rmSync(path.join(dirDisk, 'media'), { recursive: true, force: true }));

    interface Uploaded {
      filename: string;
      url: string;
      bytes: Buffer;
    }

    async function threeOnDisk(): Promise<Uploaded[]> {
      const me = await caller(disk, { permissions: ['admin.access', 'pages.manage'] });
      const created: Uploaded[] = [];
      for (const bytes of [bigPng(300 * 1024), PNG_1X1, JPEG_BYTES]) {
        const response = await upload(diskApp, me.cookie, bytes, bytes === JPEG_BYTES ? 'photo.jpg' : 'photo.png');
        expect(response.status).to.equal(201);
        created.push({ filename: response.body.filename as string, url: response.body.url as string, bytes });
      }
      return created;
    }

    async function servedByBoth(files: Uploaded[]): Promise<void> {
      for (const app of [diskApp, switchedApp]) {
        for (const file of files) {
          const served = await request(app).get(file.url);
          expect(served.status, file.url).to.equal(200);
          expect(Buffer.compare(served.body, file.bytes), file.url).to.equal(0);
          expect(served.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
        }
      }
    }

    it('moves disk → database resumably (interrupted, cut between copy and removal, run again: each file once), serving every file throughout', async () => {
      const files = await threeOnDisk();
      const names = files.map((file) => file.filename).sort();
      expect(filesUnder(dirDisk).sort()).to.deep.equal(names);

      // Stopped after the first file, as by a crash.
      let handled = 0;
      const interrupted = migrateUploads(disk.uploads, 'database', {
        afterEach: () => {
          if (++handled === 1) throw new Error('interrupted');
        },
      });
      expect(
        await interrupted.then(
          () => 'finished',
          (error: Error) => error.message,
        ),
      ).to.equal('interrupted');
      expect(await blobNames(disk)).to.have.length(1);
      expect(filesUnder(dirDisk)).to.have.length(2);
      await servedByBoth(files);

      // A second file was copied but its source not yet removed when the run stopped.
      const [copiedNotRemoved] = filesUnder(dirDisk);
      const copy = files.find((file) => file.filename === copiedNotRemoved)!;
      await disk.uploads.database.put(copy.filename, copy.bytes, 'image/png');

      const during: number[] = [];
      const report = await migrateUploads(disk.uploads, 'database', {
        afterEach: async () => {
          await servedByBoth(files);
          during.push(1);
        },
      });
      expect(report).to.deep.equal({ moved: 1, skipped: 1, failed: 0, failures: [] });
      expect(during).to.have.length(2);
      expect(await blobNames(disk)).to.deep.equal(names);
      expect(filesUnder(dirDisk)).to.deep.equal([]);
      for (const file of files) {
        const blob = await disk.db('app_upload_blobs').where({ name: file.filename }).first();
        expect(Buffer.compare(blob!.bytes, file.bytes), file.filename).to.equal(0);
      }
      await servedByBoth(files);

      expect(await migrateUploads(disk.uploads, 'database')).to.deep.equal({ moved: 0, skipped: 0, failed: 0, failures: [] });
      expect(await blobNames(disk)).to.deep.equal(names);
    });

    it('moves database → disk, with the original bytes and types, serving throughout', async () => {
      const files = await threeOnDisk();
      expect((await migrateUploads(disk.uploads, 'database')).moved).to.equal(3);
      const report = await migrateUploads(disk.uploads, 'disk', { afterEach: () => servedByBoth(files) });
      expect(report).to.deep.equal({ moved: 3, skipped: 0, failed: 0, failures: [] });
      expect(await blobNames(disk)).to.deep.equal([]);
      expect(filesUnder(dirDisk).sort()).to.deep.equal(files.map((file) => file.filename).sort());
      await servedByBoth(files);
      const jpeg = files.find((file) => file.bytes === JPEG_BYTES)!;
      expect((await request(switchedApp).get(jpeg.url)).headers['content-type']).to.equal('image/jpeg');
    });

    const scriptEnv = () => ({
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: disk.config.databaseUrl,
      DATA_DIR: disk.config.dataDir,
      UPLOAD_DIR: dirDisk,
      SESSION_SECRET: disk.config.sessionSecret,
    });

    it('runs as a command: prints what it moved, skipped and failed', async () => {
      const files = await threeOnDisk();
      const { stdout } = await run(process.execPath, [...(await bundledEntryArgs('uploads-migrate')), '--to', 'database'], { env: scriptEnv() });
      expect(stdout).to.include('uploads disk → database: moved 3, skipped 0 (already there), failed 0');
      expect(await blobNames(disk)).to.deep.equal(files.map((file) => file.filename).sort());
      const again = await run(process.execPath, [...(await bundledEntryArgs('uploads-migrate')), '--to=database'], { env: scriptEnv() });
      expect(again.stdout).to.include('moved 0, skipped 0 (already there), failed 0');
    });

    it('refuses a missing or unknown destination with the usage, and moves nothing', async () => {
      await threeOnDisk();
      for (const args of [[], ['--to'], ['--to', 's3'], ['--to', 'database', '--force']]) {
        const failure = (await run(process.execPath, [...(await bundledEntryArgs('uploads-migrate')), ...args], { env: scriptEnv() }).then(
          () => undefined,
          (error: unknown) => error,
        )) as { code: number; stderr: string } | undefined;
        expect(failure, args.join(' ')).to.not.equal(undefined);
        expect(failure!.code, args.join(' ')).to.equal(2);
        expect(failure!.stderr, args.join(' ')).to.include('usage: npm run uploads:migrate -- --to database|disk');
      }
      expect(await blobNames(disk)).to.deep.equal([]);
      expect(filesUnder(dirDisk)).to.have.length(3);
    });
  });
});
