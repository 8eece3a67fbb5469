// Benchmark: the real application (createApp with the site's modules), production settings, on a free port.
// SITEMAP_BATCH, SITEMAP_CONCURRENCY and SITEMAP_DUTY override the pages module's
// sitemap options (to compare settings; unset, the defaults the site runs with).
import { createApp } from '../../app.js';
import { loadConfig } from '../../lib/config.js';
import { coreModule } from '../../routes/core-module.js';
import { createPagesModule } from '../../routes/pages/index.js';
import { settingsModule } from '../../routes/settings/index.js';

const config = loadConfig({
  NODE_ENV: 'production',
  DATABASE_URL: process.env.DATABASE_URL,
  SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
  LOG_LEVEL: 'warn',
  BASE_URL: 'http://bench.local',
  MAIL_OUTBOX: 'true',
  APP_NAME: 'Bench',
  DATA_DIR: process.env.BENCH_DATA_DIR,
  PASSWORD_HASH_COST: '11',
  // The public read cache: default size unless the run sets it (0 measures without it).
  PAGE_CACHE_MB: process.env.PAGE_CACHE_MB,
  // On by default; 0 measures the cached answers through Express's pipeline.
  PUBLIC_HIT_PATH: process.env.PUBLIC_HIT_PATH,
});
const number = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
const sitemap = { batchSize: number('SITEMAP_BATCH'), concurrency: number('SITEMAP_CONCURRENCY'), duty: number('SITEMAP_DUTY') };
const pages = createPagesModule({ sitemap: Object.fromEntries(Object.entries(sitemap).filter(([, value]) => value !== undefined)) });
// The site's modules (routes/site-modules.ts), the pages module with the run's sitemap options.
const app = createApp(config, [coreModule, pages, settingsModule]);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`READY ${address.port}\n`);
});
