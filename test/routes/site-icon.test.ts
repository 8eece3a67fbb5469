// GET /favicon.ico: every browser asks for it on every site; without one each page
// left an error in the console. The core serves a default icon, replaceable by a file
// of the site's own (lib/site-icon.ts).
import { expect } from 'chai';
import request from 'supertest';
import { createTestApp, type App } from '../support/app.js';

/** Collects a binary answer's bytes (supertest leaves image bodies unparsed). */
function bytes(response: request.Response): Buffer {
  return response.body as Buffer;
}

describe('GET /favicon.ico', () => {
  let app: App;
  before(() => {
    app = createTestApp();
  });

  it('answers the default icon: an ICO file, cached a day, with no cookie', async () => {
    const response = await request(app)
      .get('/favicon.ico')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.match(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    // ICONDIR: reserved 0, type 1 (icon), then at least one image.
    const body = bytes(response);
    expect(body.readUInt16LE(0)).to.equal(0);
    expect(body.readUInt16LE(2)).to.equal(1);
    expect(body.readUInt16LE(4)).to.be.at.least(1);
    expect(response.headers['cache-control']).to.equal('public, max-age=86400');
    expect(response.headers['set-cookie']).to.equal(undefined);
  });

  it('answers a conditional request with 304 and HEAD without a body', async () => {
    const first = await request(app).get('/favicon.ico');
    const again = await request(app).get('/favicon.ico').set('If-None-Match', first.headers.etag);
    expect(again.status).to.equal(304);
    const head = await request(app).head('/favicon.ico');
    expect(head.status).to.equal(200);
    expect(head.headers['content-length']).to.equal(first.headers['content-length']);
  });

  it('is answered only for the site’s own host, like every other path', async () => {
    expect((await request(app).get('/favicon.ico').set('Host', 'elsewhere.example')).status).to.equal(421);
  });
});
