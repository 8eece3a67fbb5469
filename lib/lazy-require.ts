// Packages that only some runs use (metrics, readable logs, mail, uploads, QR codes,
// user agents) are loaded on first use instead of at every start: each costs 10–40 ms of
// module loading, which `node dist/app.js` would otherwise spend before its first answer.
// They are CommonJS, so `require` loads them synchronously where they are first needed;
// Node's module cache keeps them, nothing is held here.
import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/** A function returning the package `name` (typed `T`), loaded the first time it is called. */
export function lazyRequire<T>(name: string): () => T {
  return () => requireFromHere(name) as T;
}
