// Runs the real entry point (app.ts, bundled once per test process: server-bundle.ts) in a
// child process, as `node dist/app.js` runs its own bundle on a server, for the tests of
// start-up and shutdown behaviour.
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../lib/paths.js';
import { freePort } from '../../lib/embedded-postgres.js';
import { bundledEntryArgs } from './server-bundle.js';

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, await bundledEntryArgs('app'), {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, output: () => output, exited };
}

export async function waitForListening(server: ServerProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.output().includes('server listening')) return;
    if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`server did not start in time:\n${server.output()}`);
}

/**
 * `count` servers started together on one database, once each listens for the public
 * cache's changes (so that a change made afterwards reaches every one of them).
 */
export async function spawnListeningServers(env: Record<string, string>, count = 2): Promise<ServerProcess[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => spawnServer(env)));
  await Promise.all(servers.map((server) => waitForListening(server, 60_000)));
  for (const server of servers) {
    const deadline = Date.now() + 10_000;
    while (!server.output().includes('public cache: listening for changes') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    if (!server.output().includes('public cache: listening for changes')) throw new Error(`server does not listen for changes:\n${server.output()}`);
  }
  return servers;
}

/** Stops servers with SIGTERM and waits for each to exit. */
export async function stopServers(servers: readonly ServerProcess[]): Promise<void> {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
}
