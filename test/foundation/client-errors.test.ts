// Errors raised inside Express and its parsers are the client's fault: they keep their
// 4xx status, answer in the usual HTML/JSON shape, and never count as internal errors.
import { expect } from 'chai';
import request from 'supertest';
import { contextOf, createTestApp, type App } from '../support/app.js';
import { caller } from '../support/fixtures.js';

describe('client errors raised by Express and its parsers', () => {
  let app: App;
  before(() => {
    app = createTestApp();
  });

  for (const path of ['/auth/%ff', '/app/api/users/%ff', '/uploads/%ff/x']) {
    it(`answers 400, not 500, to a malformed percent-encoding: GET ${path}`, async () => {
      const response = await request(app).get(path);
      expect(response.status).to.equal(400);
    });
  }

  for (const path of ['/assets/missing.css', '/assets/', '/assets/missing/deeper.js']) {
    it(`answers 404 to a missing asset: GET ${path}`, async () => {
      const response = await request(app).get(path);
      expect(response.status).to.equal(404);
      expect(response.text).to.include('Page introuvable');
    });
  }

  it('answers 400 JSON to a corrupt gzip body on the API', async () => {
    const user = await caller(contextOf(app));
    const response = await request(app)
      .put('/app/api/users/profile')
      .set('Cookie', user.cookie)
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .send(Buffer.from('this is not gzip'));
    expect(response.status).to.equal(400);
    expect(response.body.code).to.be.a('string');
  });

  for (const [label, body] of [
    ['no boundary in the body', 'not a multipart body at all'],
    ['a truncated form', '--XYZ\r\nContent-Disposition: form-data; name="picture"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nabc'],
  ]) {
    it(`answers 400 to malformed multipart (${label})`, async () => {
      const user = await caller(contextOf(app));
      const response = await request(app)
        .post('/app/api/users/profile/picture')
        .set('Cookie', user.cookie)
        .set('Content-Type', 'multipart/form-data; boundary=XYZ')
        .send(body);
      expect(response.status).to.equal(400);
    });
  }
});
