// `npm run build` and the build step of `npm start`: compiles the sources to dist/ with
// tsc (incremental: its state lives in dist/.tsbuildinfo), then writes a stamp of the
// sources it compiled (each file's path, size and modification time).
//   --if-changed  skips the build when the sources match the stamp, so a restart with
//                 nothing changed starts at once instead of waiting for a full tsc run.
// A source removed since the last build (or a dist/ without a stamp) means a clean build:
// tsc never deletes the output of a removed file, and a removed migration left in
// dist/migrations would still run. Plain JavaScript: it runs before anything is compiled.
// Then the server is bundled (esbuild): app.ts and everything it imports, packages
// included, into dist/lib/app.bundle.js, and dist/app.js becomes a small entry that turns
// Node's compile cache on before loading it. Resolving and reading some 850 files (our
// modules and the CommonJS packages') was most of a start; one file, whose compiled code
// Node 22.1+ keeps between starts, is not. The other files of dist/ (the CLIs, knexfile,
// migrations, the hashing thread) stay tsc's output.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// What the bundle leaves to Node, and why: scripts/bundle-external.json (the tests' bundles read it too).
const BUNDLE_EXTERNAL = JSON.parse(readFileSync(path.join(root, 'scripts', 'bundle-external.json'), 'utf8')).packages;
const dist = path.join(root, 'dist');
const stampFile = path.join(dist, '.build-stamp.json');
const tsconfigFile = path.join(root, 'tsconfig.json');

/** Every file tsc may read: tsconfig.json and what its `include` names, recursively. */
function sources() {
  const files = ['tsconfig.json'];
  const walk = (relative) => {
    const absolute = path.join(root, relative);
    if (!existsSync(absolute)) return;
    if (!statSync(absolute).isDirectory()) {
      files.push(relative);
      return;
    }
    for (const entry of readdirSync(absolute)) walk(path.join(relative, entry));
  };
  for (const entry of JSON.parse(readFileSync(tsconfigFile, 'utf8')).include) walk(entry);
  return files.sort();
}

/** Each file's size and modification time, as the stamp keeps them. */
function signatures(files) {
  return Object.fromEntries(
    files.map((file) => {
      const { size, mtimeMs } = statSync(path.join(root, file));
      return [file, `${size}:${mtimeMs}`];
    }),
  );
}

function fingerprint(signed) {
  const hash = createHash('sha256');
  for (const [file, signature] of Object.entries(signed)) hash.update(`${file}\0${signature}\n`);
  return hash.digest('hex');
}

/** Why --if-changed builds: the first few files added, removed or changed since the stamp, or what of dist/ is missing. */
function reasonToBuild(stamp, signed, compiled) {
  if (!stamp) return 'no earlier build';
  if (!compiled) return 'dist/ is incomplete';
  if (!stamp.signatures) return 'the earlier build kept no list of its sources';
  const names = new Set([...Object.keys(signed), ...Object.keys(stamp.signatures)]);
  const changed = [...names].filter((file) => signed[file] !== stamp.signatures[file]);
  return `${changed.length} source file(s) changed: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''}`;
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

const files = sources();
const signed = signatures(files);
const current = fingerprint(signed);
const stamp = readStamp();
const bundleFile = path.join(dist, 'lib', 'app.bundle.js');
const compiled = existsSync(path.join(dist, 'app.js')) && existsSync(bundleFile);

if (process.argv.includes('--if-changed') && compiled && stamp?.fingerprint === current) {
  console.error('build: no source changed since the last build (dist/ is up to date)');
  process.exit(0);
}
if (process.argv.includes('--if-changed')) console.error(`build: compiling (${reasonToBuild(stamp, signed, compiled)})`);

const kept = new Set(files);
const removed = stamp ? stamp.files.filter((file) => !kept.has(file)) : [];
if (!stamp || removed.length > 0) {
  // Outputs of removed sources (or of a build without a stamp) cannot be told apart.
  rmSync(dist, { recursive: true, force: true });
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', tsconfigFile, '--incremental', '--tsBuildInfoFile', path.join(dist, '.tsbuildinfo')], {
  cwd: root,
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
await bundle();
// The fingerprint taken before compiling: a file saved during the build makes the next start build again.
writeFileSync(stampFile, JSON.stringify({ fingerprint: current, files, signatures: signed }) + '\n');

// Node's built-in modules reach the bundle through require(), as the CommonJS packages'
// do, never through `import`: an import builds the module's ES facade, which reads every
// export, and node:http's include the fetch and WebSocket classes, whose first read
// loads undici (25 ms of a start on Node 24, for an HTTP client the server never uses).
function builtinsThroughRequire() {
  return {
    name: 'builtins-through-require',
    setup: (build) => {
      const builtins = new Set(builtinModules);
      build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        const name = args.path.replace(/^node:/, '');
        if (args.kind !== 'import-statement' || !builtins.has(name)) return undefined;
        return { path: name, namespace: 'builtin-require' };
      });
      build.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({ contents: `module.exports = require('node:${args.path}');`, loader: 'js' }));
    },
  };
}

/**
 * Bundles app.ts into dist/lib/app.bundle.js and writes dist/app.js in front of it. The
 * bundle sits in dist/lib/ because the modules that find files from their own place
 * (lib/paths.ts, lib/migrations.ts, the hashing thread beside lib/password-hasher.ts, the
 * lazy requires) are all in lib/: bundled there, each still finds what it found compiled.
 * A bundled module outside lib/ reading import.meta.url stops the build (app.ts's own use
 * only asks whether it is the entry point).
 */
async function bundle() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    console.error(`build: esbuild could not be loaded (${error.message}); install the dev dependencies (npm ci) and build again.`);
    process.exit(1);
  }
  const result = await esbuild.build({
    entryPoints: [path.join(root, 'app.ts')],
    outfile: bundleFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: tsconfigFile,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    absWorkingDir: root,
    external: BUNDLE_EXTERNAL,
    plugins: [builtinsThroughRequire()],
    // The CommonJS packages inside call require(): give the ES module one.
    banner: { js: "import { createRequire as __siteRequire } from 'node:module';\nconst require = __siteRequire(import.meta.url);" },
  });
  const misplaced = Object.keys(result.metafile.inputs).filter(
    (input) =>
      !input.includes('node_modules/') &&
      !input.startsWith('builtin-require:') &&
      !input.startsWith('lib/') &&
      input !== 'app.ts' &&
      readFileSync(path.join(root, input), 'utf8').includes('import.meta.url'),
  );
  if (misplaced.length > 0) {
    console.error(`build: ${misplaced.join(', ')} read import.meta.url, which in the bundle is dist/lib/: move that code to lib/`);
    process.exit(1);
  }
  writeFileSync(
    path.join(dist, 'app.js'),
    `// Written by scripts/build.mjs: the compile cache first (Node 22.1+), so that the bundle's
// compiled code is kept for the next start, then the server (app.ts, bundled).
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('./lib/app.bundle.js');
await main();
`,
  );
}
