import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig, loadDatabaseConfig } from '../../lib/config.js';

describe('operations configuration', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'site-ops-config-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const base = () => ({ NODE_ENV: 'test', DATA_DIR: dataDir, SESSION_SECRET: 's'.repeat(40) });

  it('takes METRICS_TOKEN of 32 characters or more, and leaves it unset by default', () => {
    expect(loadConfig(base()).metricsToken).to.equal(undefined);
    expect(loadConfig({ ...base(), METRICS_TOKEN: 'a'.repeat(32) }).metricsToken).to.equal('a'.repeat(32));
  });

  it('refuses a short METRICS_TOKEN, or one a bearer header cannot carry, naming the variable', () => {
    for (const token of ['a'.repeat(31), `${'a'.repeat(32)} b`, `${'a'.repeat(32)}"`]) {
      expect(() => loadConfig({ ...base(), METRICS_TOKEN: token }), token)
        .to.throw(ConfigError)
        .with.property('message')
        .that.includes('METRICS_TOKEN');
    }
  });

  it('reads the database settings alone: no SESSION_SECRET asked in production, no secret file written', () => {
    const url = 'postgres://site@db.internal:5432/site';
    expect(loadDatabaseConfig({ NODE_ENV: 'production', DATABASE_URL: url, DATA_DIR: dataDir })).to.deep.equal({ databaseUrl: url, databasePoolMax: 10 });
    expect(loadDatabaseConfig({ DATA_DIR: dataDir })).to.deep.equal({ databaseUrl: undefined, databasePoolMax: 10 });
    expect(existsSync(path.join(dataDir, 'session-secret'))).to.equal(false);
    expect(() => loadDatabaseConfig({ DATABASE_URL: 'mysql://db/site' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.includes('DATABASE_URL');
  });
});
