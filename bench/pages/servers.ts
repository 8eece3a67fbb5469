// The pages benchmarks' servers: each is a script of this folder run in its own Node
// process (`--import tsx`), which prints `READY <port>` once it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../../lib/paths.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface RunningServer {
  port: number;
  child: ChildProcess;
}

export async function startServer(nodeBinary: string, script: string, env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(here, script)], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += String(chunk);
      const match = /READY (\d+)/.exec(buffer);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { port, child };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  // Already gone (an exit code, or a signal: then exitCode stays null and no exit comes again).
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function nodeVersion(nodeBinary: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const child = spawn(nodeBinary, ['--version']);
    let out = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.on('exit', () => resolve(out.trim()));
  });
}
