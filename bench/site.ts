// The real server (app.ts under tsx, production settings) in a child process, for the
// benchmarks that measure it from outside: started on a free port, ready once it (or
// every worker of its cluster) listens, stopped with SIGTERM as a supervisor would.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../lib/embedded-postgres.js';
import { projectRoot } from '../lib/paths.js';

export interface Site {
  child: ChildProcess;
  port: number;
  base: string;
  /** Everything the process wrote (JSON log lines). */
  output(): string;
  /** Resident memory of the server process in MB (/proc/<pid>/status, Linux), its workers' summed in a cluster. */
  rssMb(): number;
  stop(): Promise<void>;
}

/** Settings every benchmark shares; `env` adds or overrides. */
export function siteEnv(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    SESSION_SECRET: 'bench-session-secret-0123456789-0123456789',
    BASE_URL: 'http://bench.local',
    // No mail server: what a benchmark sends goes to the outbox folder, on purpose.
    MAIL_OUTBOX: 'true',
    // One request log line per request would measure the logger; errors still show.
    LOG_LEVEL: 'warn',
    ...env,
  };
}

function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export async function startSite(nodeBinary: string, env: Record<string, string>): Promise<Site> {
  const port = await freePort();
  let output = '';
  const child = spawn(nodeBinary, ['--import', 'tsx', path.join(projectRoot, 'app.ts')], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the site exited:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the site did not start:\n${output}`);
    }
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // In a cluster the first answer may come before every worker listens, and at LOG_LEVEL
  // warn no line says when they all do: every worker forked, then time to start.
  const workers = Number(env.WEB_CONCURRENCY ?? '1');
  if (workers > 1) {
    while (childPids(child.pid!).length < workers && !output.includes('server listening') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!output.includes('server listening')) await new Promise((resolve) => setTimeout(resolve, 5000));
  }
  return {
    child,
    port,
    base,
    output: () => output,
    rssMb: () => rssOf(child.pid) + (Number(env.WEB_CONCURRENCY ?? '1') > 1 ? childPids(child.pid!).reduce((sum, pid) => sum + rssOf(pid), 0) : 0),
    stop,
  };
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** A Markdown table, columns padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => (row[index] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, index) => cell.padEnd(widths[index])).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
