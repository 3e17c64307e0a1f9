import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** The real entry points, as `npm start` and `npm run sandbox` run them. */
const ENTRY = path.resolve('src/server/server.ts');
const SANDBOX_ENTRY = path.resolve('src/sandbox/main.ts');

function run(env: Record<string, string>, entry = ENTRY) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
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

/** Resolves with the first stdout line matching `pattern` (the server's ready line, say). */
async function waitForLine(p: ReturnType<typeof run>, pattern: RegExp): Promise<void> {
  while (!pattern.test(p.output().stdout)) {
    if (p.child.exitCode !== null) throw new Error(`exited early: ${p.output().stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
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
    [
      { PORT: 'abc' },
      /^ledgerlink: Invalid configuration: PORT must be a whole number from 0 to 65535 \(got "abc"\)$/,
    ],
    [
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      /^ledgerlink: Invalid configuration: DATABASE_URL cannot connect to the database \(.+\)$/,
    ],
    [
      { XERO_CLIENT_ID: 'only-one' },
      /^ledgerlink: Invalid configuration: XERO_CLIENT_SECRET is not set, but XERO_CLIENT_ID is: set both for live Xero, or neither for demo mode$/,
    ],
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

  it('npm run sandbox stops on a bad SANDBOX_PORT with one clear line', async () => {
    const p = run({ SANDBOX_PORT: 'abc' }, SANDBOX_ENTRY);
    children.push(p.child);
    expect(await p.exited).toBe(1);
    expect(p.output().stderr).toBe(
      'sandbox: Invalid configuration: SANDBOX_PORT must be a whole number from 0 to 65535 (got "abc")\n',
    );
  });

  it(
    'refuses a second server on the same data folder, naming the folder and the first one',
    { timeout: 360_000 },
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-twice-'));
      tmpDirs.push(dataDir);
      const [portA, portB] = [await freePort(), await freePort()];
      const first = run({ ...LIVE, PORT: String(portA), HOST: '127.0.0.1', DATA_DIR: dataDir });
      children.push(first.child);
      await waitForReady(portA, first.child);

      const second = run({ ...LIVE, PORT: String(portB), HOST: '127.0.0.1', DATA_DIR: dataDir });
      children.push(second.child);
      // Before the lock, the second one started too: it must stop instead of answering on its port.
      const listening = waitForReady(portB, second.child).then(
        () => 'listening',
        () => 'stopped',
      );
      expect(await Promise.race([second.exited.then(() => 'stopped'), listening])).toBe('stopped');
      expect(await second.exited).toBe(1);
      const line = second.output().stderr;
      expect(line.split('\n')).toEqual([expect.any(String), '']);
      expect(
        line.startsWith(
          `ledgerlink: DATA_DIR ${dataDir} is in use by another Ledgerlink server (pid ${first.child.pid}, started `,
        ),
      ).toBe(true);
      expect(line.endsWith('); stop it or set DATA_DIR to another folder\n')).toBe(true);
      // The first server is untouched and still answers.
      expect((await fetch(`http://127.0.0.1:${portA}/readyz`)).ok).toBe(true);

      // Stopped cleanly, it leaves the folder free for the next start.
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'ledgerlink.lock'))).toBe(false);
    },
  );

  it(
    'demo mode: no password before a start that fails on a taken port; the next start prepares the demo and shows it',
    { timeout: 360_000 },
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-demo-'));
      tmpDirs.push(dataDir);
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const takenPort = (taken.address() as net.AddressInfo).port;
      const env = { HOST: '127.0.0.1', DATA_DIR: dataDir, SANDBOX_PORT: String(await freePort()) };

      const refused = run({ ...env, PORT: String(takenPort) });
      children.push(refused.child);
      expect(await refused.exited).toBe(1);
      await new Promise((resolve) => taken.close(resolve));
      expect(refused.output().stderr).toMatch(
        /^ledgerlink: cannot listen on 127\.0\.0\.1:\d+ \(PORT\/HOST\): .*EADDRINUSE/,
      );
      expect(refused.output().stdout).not.toMatch(/password/i);

      const port = await freePort();
      const started = run({ ...env, PORT: String(port), APP_URL: `http://127.0.0.1:${port}` });
      children.push(started.child);
      await waitForLine(started, /password "[^"]+"/);
      const lines = started.output().stdout.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(
          /^Ledgerlink ready on http:\/\/127\.0\.0\.1:\d+ · database: PGlite \(embedded\)/,
        ),
        'Demo ready: Demo Builders Ltd and Demo Shop Ltd connected, every feature switched on',
        expect.stringMatching(/^Demo administrator: username "admin", password "[^"]+" \(shown once;/),
      ]);
      started.child.kill('SIGTERM');
      expect(await started.exited).toBe(0);
    },
  );

  it(
    'npm test ends by naming the step that failed and the steps that did not run',
    { timeout: 120_000 },
    async () => {
      // A project whose typecheck fails, with this project's tools.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-npm-test-'));
      tmpDirs.push(dir);
      fs.symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, files: ['bad.ts'] }),
      );
      fs.writeFileSync(path.join(dir, 'bad.ts'), "export const total: number = 'twelve';\n");
      const child = spawn(process.execPath, [path.resolve('scripts/test.mjs')], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      children.push(child);
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).not.toBe(0);
      const lines = stdout.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        /^0 passed, 1 failed, 0 skipped · typecheck FAILED; not run: lint, vitest, e2e \(\d+ s\)$/,
      );
    },
  );

  it('keeps data written before a kill -9', { timeout: 360_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-kill-'));
    tmpDirs.push(dataDir);
    const port = await freePort();
    const env = {
      ...LIVE,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      APP_URL: `http://127.0.0.1:${port}`,
    };
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
    // Its lock stays behind; the next start sees that its process is gone and takes the folder over.
    expect(fs.existsSync(path.join(dataDir, 'ledgerlink.lock'))).toBe(true);

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
