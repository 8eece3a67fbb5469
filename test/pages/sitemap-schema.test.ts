// The sitemap index and files against the sitemaps.org schemas (protocol 0.9, kept in
// test/fixtures/sitemaps/), through `xmllint --schema`, with the stylesheet a browser
// applies to show them as a table (public/sitemap.xsl) linked from each and served.
// Skipped, saying so, where xmllint is not installed (`apt-get install -y libxml2-utils`;
// .ci/run does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createApp, closeApp, type App } from '../../app.js';
import type { AppContext } from '../../lib/context.js';
import { projectRoot } from '../../lib/paths.js';
import { coreModule } from '../../routes/core-module.js';
import { createPagesModule } from '../../routes/pages/index.js';
import { contextOf, resetData, testConfig } from '../support/app.js';
import { makeChain, makePage } from './helpers.js';

const SCHEMAS = path.join(projectRoot, 'test', 'fixtures', 'sitemaps');
const BASE = 'https://site.example';

describe('sitemap files valid against the sitemaps.org schemas, styled for a browser', () => {
  let app: App;
  let ctx: AppContext;
  let scratch: string;
  before(function () {
    if (spawnSync('xmllint', ['--version']).error) {
      console.log('      xmllint is not installed (apt-get install -y libxml2-utils): the sitemap files are not checked against the schemas');
      return this.skip();
    }
    scratch = mkdtempSync(path.join(os.tmpdir(), 'site-sitemap-'));
    app = createApp(testConfig({ BASE_URL: BASE }), [coreModule, createPagesModule({ sitemap: { perFile: 3, batchSize: 2 } })]);
    ctx = contextOf(app);
  });
  after(async () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (app) await closeApp(app);
  });

  /** xmllint's verdict on `xml` against `schema`: its output, and whether it validates. */
  function validate(xml: string, schema: 'sitemap.xsd' | 'siteindex.xsd', name: string): { ok: boolean; output: string } {
    const file = path.join(scratch, name);
    writeFileSync(file, xml);
    const result = spawnSync('xmllint', ['--noout', '--schema', path.join(SCHEMAS, schema), file], { encoding: 'utf8' });
    return { ok: result.status === 0, output: result.stderr };
  }

  it('validates the index and every file, each linking the stylesheet that is served', async () => {
    await resetData(ctx);
    await makeChain(ctx, 3, 'a');
    await makePage(ctx, { title: 'Été & automne', slug: 'ete-automne' });
    const index = await request(app).get('/sitemap.xml');
    expect(index.status).to.equal(200);
    expect(index.text).to.include('<?xml-stylesheet type="text/xsl" href="/assets/sitemap.xsl"?>');
    const checked = validate(index.text, 'siteindex.xsd', 'index.xml');
    expect(checked.ok, checked.output).to.equal(true);
    const files = [...index.text.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => new URL(match[1]).pathname);
    expect(files).to.deep.equal(['/sitemap-1.xml', '/sitemap-2.xml']);
    for (const file of files) {
      const answer = await request(app).get(file);
      expect(answer.status, file).to.equal(200);
      expect(answer.text, file).to.include('<?xml-stylesheet type="text/xsl" href="/assets/sitemap.xsl"?>');
      const result = validate(answer.text, 'sitemap.xsd', file.slice(1));
      expect(result.ok, `${file}: ${result.output}`).to.equal(true);
    }
    const stylesheet = await request(app).get('/assets/sitemap.xsl');
    expect(stylesheet.status).to.equal(200);
    expect(stylesheet.headers['content-type']).to.match(/xml/);
    const wellFormed = spawnSync('xmllint', ['--noout', '-'], { input: stylesheet.text, encoding: 'utf8' });
    expect(wellFormed.status, wellFormed.stderr).to.equal(0);
    expect((await request(app).get('/assets/css/sitemap.css')).status).to.equal(200);
  });

  it('would refuse a file the protocol does not allow (the schemas do check)', () => {
    const bad =
      '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><lastmod>hier</lastmod></url></urlset>\n';
    expect(validate(bad, 'sitemap.xsd', 'bad.xml').ok).to.equal(false);
    const wrongRoot =
      '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://site.example/</loc></url></urlset>\n';
    expect(validate(wrongRoot, 'siteindex.xsd', 'wrong.xml').ok).to.equal(false);
  });
});
