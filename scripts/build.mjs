// `npm run build` and the build step of `npm start`: compiles the sources to dist/ with
// tsc (incremental: its state lives in dist/.tsbuildinfo), then writes a stamp of the
// sources it compiled (each file's path, size and modification time).
//   --if-changed  skips the build when the sources match the stamp, so a restart with
//                 nothing changed starts at once instead of waiting for a full tsc run.
// A source removed since the last build (or a dist/ without a stamp) means a clean build:
// tsc never deletes the output of a removed file, and a removed migration left in
// dist/migrations would still run. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
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

function fingerprint(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const { size, mtimeMs } = statSync(path.join(root, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

const files = sources();
const current = fingerprint(files);
const stamp = readStamp();
const compiled = existsSync(path.join(dist, 'app.js'));

if (process.argv.includes('--if-changed') && compiled && stamp?.fingerprint === current) {
  console.error('build: no source changed since the last build (dist/ is up to date)');
  process.exit(0);
}

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
// The fingerprint taken before compiling: a file saved during the build makes the next start build again.
writeFileSync(stampFile, JSON.stringify({ fingerprint: current, files }) + '\n');
