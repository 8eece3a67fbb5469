import { expect } from 'chai';
import { ConfigError, DEFAULT_RATE_LIMITS, loadConfig } from '../../lib/config.js';
import { testDatabase } from '../support/database.js';

function failure(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ DATA_DIR: testDatabase().scratchDir, ...env });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration (lib/config.ts)', () => {
  it('starts with no variable at all, with the documented defaults', () => {
    const config = loadConfig({ DATA_DIR: testDatabase().scratchDir });
    expect(config).to.include({ port: 3000, host: '127.0.0.1', baseUrl: 'http://localhost:3000', appName: 'Site', passwordHashCost: 11 });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.trustProxy).to.equal(false);
    expect(config.sessionSecret).to.have.length.greaterThan(40);
    expect(config.rateLimits.login).to.deep.equal({ max: 10, windowMs: 15 * 60_000 });
    expect(Object.keys(config.rateLimits)).to.have.members(Object.keys(DEFAULT_RATE_LIMITS));
    // The generated secret is kept: a restart keeps everyone's session.
    expect(loadConfig({ DATA_DIR: testDatabase().scratchDir }).sessionSecret).to.equal(config.sessionSecret);
  });

  const refusals: Array<[string, Record<string, string>, RegExp]> = [
    ['a port that is not a number', { PORT: 'eighty' }, /PORT/],
    ['a port out of range', { PORT: '70000' }, /PORT/],
    ['a database URL that is not PostgreSQL', { DATABASE_URL: 'mysql://localhost/site' }, /DATABASE_URL/],
    ['a base URL that is not http(s)', { BASE_URL: 'ftp://example.org' }, /BASE_URL/],
    ['production without SESSION_SECRET', { NODE_ENV: 'production' }, /SESSION_SECRET/],
    ['a too short SESSION_SECRET', { SESSION_SECRET: 'short' }, /SESSION_SECRET/],
    [
      'production without BASE_URL (every real domain would be answered 421)',
      { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40) },
      /BASE_URL is required/,
    ],
    [
      'production without SMTP_URL (mail would go to a folder while the screens say it is sent)',
      { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), BASE_URL: 'https://example.org' },
      /SMTP_URL is required.*MAIL_OUTBOX=true/,
    ],
    ['MAIL_OUTBOX=true beside SMTP_URL', { SMTP_URL: 'smtp://127.0.0.1:25', MAIL_OUTBOX: 'true' }, /MAIL_OUTBOX/],
    ['a MAIL_OUTBOX that is not true or false', { MAIL_OUTBOX: 'yes' }, /MAIL_OUTBOX/],
    [
      'a hash cost under 11 in production',
      { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), BASE_URL: 'https://example.org', MAIL_OUTBOX: 'true', PASSWORD_HASH_COST: '8' },
      /PASSWORD_HASH_COST/,
    ],
    ['a malformed rate limit', { RATE_LIMIT_LOGIN: 'ten per minute' }, /RATE_LIMIT_LOGIN/],
    ['APP_TRUST_PROXY=true (any client could pick its address)', { APP_TRUST_PROXY: 'true' }, /APP_TRUST_PROXY/],
    ['a trusted proxy hop count out of 1–10', { APP_TRUST_PROXY: '11' }, /APP_TRUST_PROXY/],
    [
      'a trusted proxy subnet with an impossible prefix (proxy-addr would refuse it)',
      { APP_TRUST_PROXY: '10.0.0.0/99' },
      /APP_TRUST_PROXY.*invalid range on address: 10\.0\.0\.0\/99/,
    ],
    ['a trusted proxy that is not an IP address', { APP_TRUST_PROXY: 'loopback, 10.0.0.300' }, /APP_TRUST_PROXY.*invalid IP address: 10\.0\.0\.300/],
    ['an unknown log level', { LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
  ];
  for (const [what, env, variable] of refusals) {
    it(`refuses ${what}, naming the variable`, () => {
      expect(failure(env).message).to.match(variable);
    });
  }

  it('starts in production with BASE_URL and SMTP_URL, or with the outbox chosen on purpose (MAIL_OUTBOX=true)', () => {
    const production = { DATA_DIR: testDatabase().scratchDir, NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), BASE_URL: 'https://example.org/' };
    const smtp = loadConfig({ ...production, SMTP_URL: 'smtp://mail.example.org:587' });
    expect(smtp).to.include({ baseUrl: 'https://example.org', smtpUrl: 'smtp://mail.example.org:587', mailOutbox: false });
    expect(loadConfig({ ...production, MAIL_OUTBOX: 'true' })).to.include({ smtpUrl: undefined, mailOutbox: true });
    // Development keeps its zero-setup defaults: the outbox without being asked.
    expect(loadConfig({ DATA_DIR: testDatabase().scratchDir })).to.include({ smtpUrl: undefined, mailOutbox: true });
  });

  it('reads the trusted proxy as a hop count, named ranges or subnets', () => {
    const dir = { DATA_DIR: testDatabase().scratchDir };
    expect(loadConfig({ ...dir, APP_TRUST_PROXY: '1' }).trustProxy).to.equal(1);
    expect(loadConfig({ ...dir, APP_TRUST_PROXY: 'loopback' }).trustProxy).to.deep.equal(['loopback']);
    expect(loadConfig({ ...dir, APP_TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).to.deep.equal(['10.0.0.1', '192.168.0.0/16']);
    expect(loadConfig({ ...dir, APP_TRUST_PROXY: 'uniquelocal, fe80::/10, 10.0.0.0/255.0.0.0' }).trustProxy).to.deep.equal([
      'uniquelocal',
      'fe80::/10',
      '10.0.0.0/255.0.0.0',
    ]);
  });

  it('keeps APP_AUTH_REGISTRATION as written: only the exact "false" closes registration', () => {
    const dir = { DATA_DIR: testDatabase().scratchDir };
    expect(loadConfig({ ...dir, APP_AUTH_REGISTRATION: 'FALSE' }).registrationFlag).to.equal('FALSE');
    expect(loadConfig({ ...dir, APP_AUTH_REGISTRATION: 'false' }).registrationFlag).to.equal('false');
  });
});
