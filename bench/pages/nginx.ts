// Benchmark baseline: Debian's nginx serving the recorded answers' bodies as static
// files (one worker, no access log), each URL mapped to its file by its full request
// URI (the by-path URLs differ only by their query). Absent when nginx is not installed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { RecordedAnswer } from './recorded.js';

export interface RunningNginx {
  port: number;
  stop(): Promise<void>;
}

export function nginxInstalled(): boolean {
  return !spawnSync('nginx', ['-v']).error;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

export async function startNginx(answers: Map<string, RecordedAnswer>): Promise<RunningNginx> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  chmodSync(scratch, 0o755);
  const root = path.join(scratch, 'root');
  mkdirSync(root);
  const lines: string[] = [];
  let n = 0;
  for (const [url, answer] of answers) {
    const json = answer.headers.some((value, index) => index % 2 === 1 && value.startsWith('application/json'));
    const file = `/answer-${++n}.${json ? 'json' : 'html'}`;
    writeFileSync(path.join(root, file), answer.body);
    lines.push(`    "${url}" ${file};`);
  }
  const port = await freePort();
  for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(scratch, dir));
  writeFileSync(
    path.join(scratch, 'nginx.conf'),
    [
      process.getuid?.() === 0 ? 'user root;' : '',
      'worker_processes 1;',
      `pid ${path.join(scratch, 'nginx.pid')};`,
      `error_log ${path.join(scratch, 'error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      '  types { text/html html; application/json json; }',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((dir) => `  ${dir === 'body' ? 'client_body' : dir}_temp_path ${path.join(scratch, dir)};`),
      '  map_hash_bucket_size 256;',
      '  map $request_uri $answer_file {',
      '    default /none;',
      ...lines,
      '  }',
      `  server { listen 127.0.0.1:${port}; root ${root}; location / { try_files $answer_file =404; } }`,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('nginx', ['-p', scratch, '-c', path.join(scratch, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; ; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    if (attempt === 100 || child.exitCode !== null) throw new Error('nginx did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
