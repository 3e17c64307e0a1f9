/**
 * A throwaway PostgreSQL server from Debian's postgresql package (docs/toolchain.md): initdb in a temporary
 * folder, listening on 127.0.0.1 on a free port, trust authentication, stopped and removed afterwards.
 * As root it runs as the postgres user (initdb refuses root).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresServer {
  /** Server URL without a database name; add one with `databaseUrl(name)`. */
  databaseUrl(name: string): string;
  createDatabase(name: string): void;
  version: string;
  stop(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a server, or returns why it cannot (the benchmark then skips what needs it). */
export async function startPostgres(pgBin: string): Promise<PostgresServer | { unavailable: string }> {
  const initdb = path.join(pgBin, 'initdb');
  if (!fs.existsSync(initdb))
    return { unavailable: `no PostgreSQL at ${pgBin} (apt-get install -y postgresql, or set BENCH_PG_BIN)` };
  const asRoot = process.getuid?.() === 0;
  if (asRoot && spawnSync('id', ['postgres']).status !== 0)
    return { unavailable: 'running as root and there is no postgres user to run PostgreSQL as' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-bench-pg-'));
  if (asRoot) spawnSync('chown', ['postgres:postgres', dir]);
  const run = (bin: string, args: string[]) => {
    const full = path.join(pgBin, bin);
    const res = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...args], { encoding: 'utf8' })
      : spawnSync(full, args, { encoding: 'utf8' });
    if (res.status !== 0)
      throw new Error(`${bin} failed: ${(res.stderr || res.stdout || '').trim().slice(-400)}`);
    return res.stdout;
  };
  const port = await freePort();
  const data = path.join(dir, 'data');
  try {
    run('initdb', ['-D', data, '-U', 'app', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-o',
      `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
      'start',
    ]);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return {
      unavailable: `PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const version = run('postgres', ['--version']).trim();
  return {
    version,
    databaseUrl: (name) => `postgres://app@127.0.0.1:${port}/${name}`,
    createDatabase: (name) => {
      run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'app', name]);
    },
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
