// Benchmark: the real application (createApp), production settings, on a free port.
import { createApp } from '../../app.js';
import { loadConfig } from '../../lib/config.js';

const config = loadConfig({
  NODE_ENV: 'production',
  DATABASE_URL: process.env.DATABASE_URL,
  SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
  LOG_LEVEL: 'warn',
  BASE_URL: 'http://bench.local',
  APP_NAME: 'Bench',
  DATA_DIR: process.env.BENCH_DATA_DIR,
  PASSWORD_HASH_COST: '11',
});
const app = createApp(config);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`READY ${address.port}\n`);
});
