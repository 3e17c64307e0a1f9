import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { openDatabase } from '../db/client';
import { pgliteTemplate } from './database';
import { startCommandFlags } from './start-command';

/**
 * Real server processes for the tests that kill one (kill -9) and start it again, as `npm start` and `npm run
 * sandbox` run them: the server bundled by scripts/build-server.mjs and run by plain Node with `npm run
 * start:only`'s flags, the sandbox through tsx. A test file bundles once (`bundleServer` in its beforeAll).
 */
export const SANDBOX_ENTRY = path.resolve('src/sandbox/main.ts');

export function bundleServer(name: string): { entry: string; remove: () => void } {
  const dir = path.resolve(`dist/${name}-${process.pid}`);
  const entry = path.join(dir, 'server.mjs');
  const built = spawnSync(
    process.execPath,
    ['scripts/build-server.mjs', 'src/server/server.ts', path.relative(process.cwd(), entry)],
    { encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(`could not bundle the server: ${built.stderr}`);
  return { entry, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Started {
  child: ChildProcess;
  exited: Promise<number | null>;
  output: () => { stdout: string; stderr: string };
}

/** Starts the server bundle (or, with `sandbox`, the Xero sandbox) with only this environment. */
export function runProcess(env: Record<string, string>, entry: string, sandbox = false): Started {
  const args = sandbox ? ['--import', 'tsx', entry] : [...startCommandFlags(), entry];
  const child = spawn(process.execPath, args, {
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

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForReady(port: number, child: ChildProcess): Promise<void> {
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

/** Resolves once stdout has a line matching `pattern` (the sandbox's listening line, say). */
export async function waitForLine(p: Started, pattern: RegExp): Promise<void> {
  while (!pattern.test(p.output().stdout)) {
    if (p.child.exitCode !== null) throw new Error(`exited early: ${p.output().stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A DATA_DIR whose embedded database is already migrated (the test template), as a server started before leaves it. */
export async function migratedDataDir(dataDir: string): Promise<string> {
  const database = await openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
  await database.close();
  return dataDir;
}

/** A browser on `origin`: a cookie jar and the same-origin header every change carries. */
export function browserOn(origin: string) {
  const jar = new Map<string, string>();
  return async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url.startsWith('http') ? url : `${origin}${url}`, {
      method,
      redirect: 'manual',
      headers: {
        origin,
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair && at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return res;
  };
}
export type Browser = ReturnType<typeof browserOn>;

/** The sandbox's control endpoints (`/__sandbox/…`): what a person does in Xero, faults, its ledger. */
export function sandboxControl(sandboxUrl: string) {
  return async (method: string, what: string, body?: unknown) => {
    const res = await fetch(`${sandboxUrl}/__sandbox/${what}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (res.status !== 200) throw new Error(`sandbox ${method} ${what}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
}

/**
 * Registers the first user (an administrator), signs in and connects Xero as a person would: the authorize page
 * (consent given by the sandbox) and back. Answers the organisations connected, by name.
 */
export async function connectAsOwner(
  call: Browser,
  control: ReturnType<typeof sandboxControl>,
  sandboxUrl: string,
): Promise<Map<string, number>> {
  const credentials = { username: 'owner', password: 'Kill-Nine-Owner-7' };
  const registered = await call('POST', '/api/register', credentials);
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  await call('POST', '/api/login', credentials);
  const info = (await control('GET', 'info')) as { users: Array<{ email: string; tenantIds: string[] }> };
  const person = info.users.find((u) => u.tenantIds.length > 1) ?? info.users[0];
  await control('POST', 'auto-consent', { email: person?.email, tenants: 'all' });
  const start = await call('GET', '/api/xero/connect');
  let location = ((await start.json()) as { url: string }).url;
  for (let hop = 0; hop < 5 && location.startsWith(sandboxUrl); hop++) {
    const res = await fetch(location, { redirect: 'manual' });
    location = new URL(res.headers.get('location') ?? '', location).toString();
  }
  const callback = await call('GET', location);
  if (!callback.headers.get('location')?.includes('connected=true')) throw new Error('Xero not connected');
  const orgs = (await (await call('GET', '/api/admin/organizations')).json()) as Array<{
    id: number;
    tenantName: string;
  }>;
  return new Map(orgs.map((o) => [o.tenantName, o.id]));
}
