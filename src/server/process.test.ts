import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** The real entry point, as `npm start` runs it. */
const ENTRY = path.resolve('src/server/server.ts');

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitForReady(port: number, child: ChildProcess): Promise<void> {
  // Generous: a first start creates and migrates a new embedded database, slow on a busy machine.
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('server exited early');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become ready');
}

const tmpDirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of tmpDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Live mode pointed at an address nothing answers on: the server never needs Xero to start. */
const LIVE = {
  XERO_CLIENT_ID: 'process-test',
  XERO_CLIENT_SECRET: 'process-test-secret',
  TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  XERO_ISSUER: 'http://127.0.0.1:9',
  XERO_API_URL: 'http://127.0.0.1:9',
};

describe('the server process', () => {
  it.each([
    [{ PORT: 'abc' }, /^ledgerlink: Invalid configuration: PORT must be a whole number from 0 to 65535 \(got "abc"\)$/],
    [{ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, /^ledgerlink: Invalid configuration: DATABASE_URL cannot connect to the database \(.+\)$/],
    [{ XERO_CLIENT_ID: 'only-one' }, /^ledgerlink: Invalid configuration: XERO_CLIENT_SECRET /],
  ])('stops on bad configuration with one clear line: %o', async (env, line) => {
    const p = run(env);
    children.push(p.child);
    const code = await p.exited;
    const { stderr } = p.output();
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(line);
    expect(stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('keeps data written before a kill -9', { timeout: 360_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-kill-'));
    tmpDirs.push(dataDir);
    const port = await freePort();
    const env = { ...LIVE, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, APP_URL: `http://127.0.0.1:${port}` };
    const origin = `http://127.0.0.1:${port}`;

    const first = run(env);
    children.push(first.child);
    await waitForReady(port, first.child);
    expect(first.output().stdout).toContain(`Ledgerlink ready on http://127.0.0.1:${port}`);
    expect(first.output().stdout).toContain('database: PGlite (embedded)');
    const created = await fetch(`${origin}/api/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ username: 'survivor', password: 'Kill-Nine-Survivor-7' }),
    });
    expect(created.status).toBe(201);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = run(env);
    children.push(second.child);
    await waitForReady(port, second.child);
    const login = await fetch(`${origin}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ username: 'survivor', password: 'Kill-Nine-Survivor-7' }),
    });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ username: 'survivor', isAdmin: true });

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
