// What the knex CLI loads when typed from the project root (it looks for knexfile.js
// before knexfile.ts, and loads it with import(), without a TypeScript loader): the
// typed configuration is knexfile.ts. After `npm run build` its compiled copy in dist/
// (with the compiled migrations `node dist/app.js` checks); in a checkout never built,
// the source through tsx.
import { existsSync } from 'node:fs';

const compiled = new URL('./dist/knexfile.js', import.meta.url);
if (!existsSync(compiled)) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { default: config } = await import(existsSync(compiled) ? compiled.href : new URL('./knexfile.ts', import.meta.url).href);

export default config;
