// Imported first by app.ts, before anything else loads: from Node 22.1 on, V8's compiled
// code of the CommonJS packages loaded after this (express, knex, joi, pg… most of a
// start's module loading) is kept on disk and reused by the next start, so a restart
// spends less time compiling the same code. Node keeps the cache in its default place
// (NODE_COMPILE_CACHE, else the system's temporary folder) and checks it against each
// file's content; Node 20 has no such cache and starts as before.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
