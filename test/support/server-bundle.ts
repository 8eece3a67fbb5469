// The server and the scripts (`npm run migrate`…) as the process-spawning tests start them: each
// bundled once per test process (esbuild, about a second), then started with
// `node --import tsx <bundle>` instead of `node --import tsx app.ts`. Under tsx every
// one of the ~900 files a start loads (ours and the packages') goes through its loader
// hooks: about 1.5 s of CPU per process, most of what a test that starts thirty servers
// spends. Bundled, a start loads one file: the same sources, run as `node dist/app.js`
// runs its own bundle (scripts/build.mjs), which is what a server runs in production.
//
// Each bundled module keeps its own `import.meta.url` (a plugin writes the source file's
// address in its place), so the modules that find files from where they live (lib/paths.ts,
// the migrations, the hashing thread) find what they find under tsx; tsx stays loaded for
// what is still read as TypeScript at run time (migrations, the hashing thread). The bundle
// sits under node_modules/.cache, inside the project, so that the packages left out of it
// (native code, optional ones) are found as from the project's own files.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../lib/paths.js';

/**
 * The entry points bundled: the server (its main() called, as dist/app.js does) and the
 * command-line scripts the tests run, each after tsx's ES module hooks are registered: the bundle itself is
 * loaded before them (one plain file), the migrations it imports at run time after them.
 * The dynamic import of a path esbuild can read is bundled in place.
 */
const script = (name: string) =>
  `import { register } from 'tsx/esm/api';\nregister();\nawait import(${JSON.stringify(path.join(projectRoot, 'scripts', name))});\n`;
const ENTRIES = {
  app: `import { register } from 'tsx/esm/api';\nregister();\nconst { main } = await import(${JSON.stringify(path.join(projectRoot, 'app.ts'))});\nawait main();\n`,
  migrate: script('migrate.ts'),
  'uploads-migrate': script('uploads-migrate.ts'),
} as const;

// A module that starts a thread from a file beside it: that file is bundled as an entry
// of its own, and the module is given the address it has in the bundle's folder, so that
// its sibling is the bundled thread (a thread would not have tsx's hooks).
const THREADS = { 'lib/password-hasher.ts': 'lib/hash-worker.ts' } as const;

type BundledEntry = keyof typeof ENTRIES;

// Left to Node, as in the deployment's bundle (scripts/bundle-external.json), and tsx,
// whose hooks find their own files beside them ('tsx' stands for its subpaths too).
const EXTERNAL: string[] = [
  ...(JSON.parse(readFileSync(path.join(projectRoot, 'scripts', 'bundle-external.json'), 'utf8')) as { packages: string[] }).packages,
  'tsx',
];

const CACHE_ROOT = path.join(projectRoot, 'node_modules', '.cache', 'site-test-servers');

// Kept on globalThis: mocha may load the support files through several module loaders.
const state = globalThis as { __siteTestBundles?: Promise<string> };

/** The directory of this process's bundles, built on first use; removed when the process exits. */
function bundles(): Promise<string> {
  state.__siteTestBundles ??= build();
  return state.__siteTestBundles;
}

async function build(): Promise<string> {
  const esbuild = await import('esbuild');
  removeOrphans();
  const outdir = path.join(CACHE_ROOT, `${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(outdir, { recursive: true });
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  await esbuild.build({
    entryPoints: [
      ...Object.keys(ENTRIES).map((name) => ({ in: `entry:${name}`, out: name })),
      ...Object.values(THREADS).map((thread) => ({ in: path.join(projectRoot, thread), out: thread.replace(/\.ts$/, '') })),
    ],
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: path.join(projectRoot, 'tsconfig.json'),
    absWorkingDir: projectRoot,
    logLevel: 'warning',
    external: EXTERNAL,
    // The CommonJS packages inside call require(): give the ES module one.
    banner: { js: "import { createRequire as __siteRequire } from 'node:module';\nconst require = __siteRequire(import.meta.url);" },
    plugins: [
      {
        name: 'test-server-entries',
        setup(build) {
          build.onResolve({ filter: /^entry:/ }, (args) => ({ path: args.path.slice('entry:'.length), namespace: 'entry' }));
          build.onLoad({ filter: /.*/, namespace: 'entry' }, (args) => ({
            contents: ENTRIES[args.path as BundledEntry],
            loader: 'js',
            resolveDir: projectRoot,
          }));
        },
      },
      {
        name: 'source-import-meta-url',
        setup(build) {
          // Our sources only (packages keep theirs): the file's own address in place of import.meta.url.
          build.onLoad({ filter: /\.ts$/ }, (args) => {
            if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
            const source = readFileSync(args.path, 'utf8');
            if (!source.includes('import.meta.url')) return undefined;
            const relative = path.relative(projectRoot, args.path).split(path.sep).join('/');
            const url = relative in THREADS ? pathToFileURL(path.join(outdir, relative.replace(/\.ts$/, '.js'))).href : pathToFileURL(args.path).href;
            return { contents: source.replaceAll('import.meta.url', JSON.stringify(url)), loader: 'ts' };
          });
        },
      },
    ],
  });
  return outdir;
}

/** Removes the bundles of test processes that ended without removing theirs (killed). */
function removeOrphans(): void {
  if (!existsSync(CACHE_ROOT)) return;
  for (const name of readdirSync(CACHE_ROOT)) {
    const pid = Number(name.split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(path.join(CACHE_ROOT, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The arguments of `node` that start `entry` bundled (to put before the entry's own arguments). */
export async function bundledEntryArgs(entry: BundledEntry): Promise<string[]> {
  return [path.join(await bundles(), `${entry}.js`)];
}
