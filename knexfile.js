// What the knex CLI loads when typed from the project root (it looks for knexfile.js
// before knexfile.ts, and loads it with import(), without a TypeScript loader): the
// typed configuration is knexfile.ts, loaded through tsx, so the CLI always sees the
// migrations of the sources as they are (a dist/ built before a new migration was
// written would hide it). Only where tsx is not installed (an install without its
// development packages) does it take the compiled copy in dist/ of `npm run build`.
import { existsSync } from 'node:fs';

const source = new URL('./knexfile.ts', import.meta.url);
const compiled = new URL('./dist/knexfile.js', import.meta.url);
let loader;
try {
  loader = await import('tsx/esm/api');
} catch {
  loader = undefined;
}
if (!loader && !existsSync(compiled)) {
  throw new Error('The knex CLI needs tsx (npm ci) or a build (npm run build) to read knexfile.ts.');
}
loader?.register();
const { default: config } = await import(loader ? source.href : compiled.href);

export default config;
