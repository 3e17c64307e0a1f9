import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './db/client';
import { pgliteTemplate } from './test/database';
import { startCommandFlags } from './test/start-command';

/**
 * The real entry points, as `npm start` and `npm run sandbox` run them: the server bundled by
 * scripts/build-server.mjs and run by plain Node with `npm run start:only`'s flags (package.json), once for the
 * file (tsx would transpile the whole server again in each of the file's twelve server processes); the
 * sandbox through tsx.
 */
const BUNDLE_DIR = path.resolve(`dist/process-test-${process.pid}`);
const ENTRY = path.join(BUNDLE_DIR, 'server.mjs');
const SANDBOX_ENTRY = path.resolve('src/sandbox/main.ts');

const SERVER_FLAGS = startCommandFlags();

beforeAll(() => {
  const built = spawnSync(
    process.execPath,
    ['scripts/build-server.mjs', 'src/server/server.ts', path.relative(process.cwd(), ENTRY)],
    { encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(`could not bundle the server: ${built.stderr}`);
});
afterAll(() => fs.rmSync(BUNDLE_DIR, { recursive: true, force: true }));

function run(env: Record<string, string>, entry = ENTRY) {
  const args = entry === ENTRY ? [...SERVER_FLAGS, entry] : ['--import', 'tsx', entry];
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

/**
 * A DATA_DIR whose embedded database is already migrated (the test template, as a server that has started
 * before leaves it): migrating a new one costs a start ~4 s of CPU. The demo test keeps a first start on an
 * empty folder; the others are about what happens after it.
 */
async function migratedDataDir(dataDir: string): Promise<string> {
  const database = await openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
  await database.close();
  return dataDir;
}

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
      const dataDir = await migratedDataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-twice-')));
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
        'Demo ready: Demo Builders Ltd and Demo Shop Ltd connected, every feature switched on, Settings defaults chosen',
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
      // A project whose typecheck fails and whose lint passes (the two run side by side), with this project's tools.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-npm-test-'));
      tmpDirs.push(dir);
      fs.symlinkSync(path.resolve('node_modules'), path.join(dir, 'node_modules'));
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true }, files: ['bad.ts'] }),
      );
      fs.writeFileSync(path.join(dir, 'bad.ts'), "export const total: number = 'twelve';\n");
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'bad', private: true, scripts: { lint: 'node -e 0' } }),
      );
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
        /^0 passed, 1 failed, 0 skipped · typecheck FAILED; not run: vitest, e2e \((?:\d+ min \d+|\d+) s\)$/,
      );
    },
  );

  it('keeps data written before a kill -9', { timeout: 360_000 }, async () => {
    const dataDir = await migratedDataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-kill-')));
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

  it(
    'a payment whose server was killed (kill -9) while Xero applied it reaches Xero once, and the restarted server says so once; so does the cash of an approval killed before its cash was sent',
    { timeout: 420_000 },
    async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-kill-pay-'));
      tmpDirs.push(root);
      const [port, sandboxPort] = [await freePort(), await freePort()];
      const origin = `http://127.0.0.1:${port}`;
      const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;

      // Xero stands apart from Ledgerlink (`npm run sandbox`), so it outlives the killed server as Xero does.
      const xero = run(
        {
          SANDBOX_PORT: String(sandboxPort),
          DATA_DIR: path.join(root, 'xero'),
          SANDBOX_CLIENT_SECRET: 'kill-nine-secret',
          SANDBOX_REDIRECT_URIS: `${origin}/api/xero/callback`,
        },
        SANDBOX_ENTRY,
      );
      children.push(xero.child);
      await waitForLine(xero, /Xero sandbox listening/);
      const control = async (method: string, what: string, body?: unknown) => {
        const res = await fetch(`${sandboxUrl}/__sandbox/${what}`, {
          method,
          ...(body === undefined
            ? {}
            : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        });
        expect(res.status, `sandbox ${method} ${what}`).toBe(200);
        return res.json() as Promise<Record<string, unknown>>;
      };

      const env = {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: await migratedDataDir(path.join(root, 'app')),
        APP_URL: origin,
        XERO_CLIENT_ID: 'ledgerlink-demo',
        XERO_CLIENT_SECRET: 'kill-nine-secret',
        TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
        XERO_ISSUER: sandboxUrl,
        XERO_API_URL: sandboxUrl,
      };

      // The browser: a cookie jar and the same-origin header every change carries.
      const jar = new Map<string, string>();
      const call = async (
        method: string,
        url: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) => {
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

      const first = run(env);
      children.push(first.child);
      await waitForReady(port, first.child);
      const credentials = { username: 'owner', password: 'Kill-Nine-Owner-7' };
      expect((await call('POST', '/api/register', credentials)).status).toBe(201);
      expect((await call('POST', '/api/login', credentials)).status).toBe(200);

      // Connect to Xero as a person would: the authorize page (consent given by the sandbox) and back.
      const info = (await control('GET', 'info')) as {
        users: Array<{ email: string; tenantIds: string[] }>;
        orgs: Array<{ name: string }>;
      };
      const person = info.users.find((u) => u.tenantIds.length > 1) ?? info.users[0];
      await control('POST', 'auto-consent', { email: person?.email, tenants: 'all' });
      const start = await call('GET', '/api/xero/connect');
      expect(start.status).toBe(200);
      let location = ((await start.json()) as { url: string }).url;
      for (let hop = 0; hop < 5 && location.startsWith(sandboxUrl); hop++) {
        const res = await fetch(location, { redirect: 'manual' });
        location = new URL(res.headers.get('location') ?? '', location).toString();
      }
      const callback = await call('GET', location);
      expect(callback.headers.get('location')).toContain('connected=true');
      const orgs = (await (await call('GET', '/api/admin/organizations')).json()) as Array<{
        id: number;
        tenantName: string;
      }>;
      const shop = orgs.find((o) => o.tenantName === info.orgs[0]?.name);
      if (!shop) throw new Error('Demo Shop is not connected');
      expect(
        (await call('PATCH', `/api/admin/organizations/${shop.id}/features`, { featurePayInvoices: true }))
          .status,
      ).toBe(200);

      const invoices = (await (await call('GET', `/api/xero/invoices?org=${shop.id}`)).json()) as Array<{
        invoiceId: string;
        invoiceNumber: string;
        amountDue: number;
      }>;
      const invoice = invoices.find((i) => i.amountDue > 5);
      const accounts = (await (await call('GET', `/api/xero/bank-accounts?org=${shop.id}`)).json()) as {
        cashAccounts: Array<{ accountId: string; name: string }>;
      };
      const cash = accounts.cashAccounts.find((a) => /cash/i.test(a.name)) ?? accounts.cashAccounts[0];
      if (!invoice || !cash) throw new Error('the seed has no invoice to pay or no bank account');
      const dueBefore = Math.round(invoice.amountDue * 100);
      const payment = {
        invoiceId: invoice.invoiceId,
        invoiceNumber: invoice.invoiceNumber,
        accountId: cash.accountId,
        amount: 1.23,
        reference: `Cash payment for ${invoice.invoiceNumber}`,
        isCard: false,
        date: new Date().toISOString().slice(0, 10),
      };
      const pay = (key: string) =>
        call('POST', `/api/xero/payments?org=${shop.id}`, payment, { 'idempotency-key': key });
      const paymentsInXero = async () =>
        (
          (await control('GET', 'ledger')) as {
            writes: Array<{ kind: string; action: string; id: string; summary: Record<string, unknown> }>;
          }
        ).writes.filter(
          (w) =>
            w.kind === 'payment' &&
            w.action === 'create' &&
            String(w.summary.invoiceId).toLowerCase() === invoice.invoiceId.toLowerCase(),
        );

      // Xero applies this payment at once but takes 4 s to answer; the server is killed while it waits: the
      // write reached Xero, its answer never came back.
      await control('POST', 'faults', {
        clear: true,
        answerDelayMs: 4_000,
        pathPrefix: '/api.xro/2.0/Payments',
      });
      const inFlight = pay('kill-nine-payment').catch(() => null);
      await new Promise((r) => setTimeout(r, 1_000));
      first.child.kill('SIGKILL');
      await first.exited;
      expect(await inFlight).toBeNull();
      const applied = await paymentsInXero();
      expect(applied).toHaveLength(1);
      await control('DELETE', 'faults');

      const second = run(env);
      children.push(second.child);
      await waitForReady(port, second.child);

      // The balance on screen is Xero's at once, though the stopped server never heard Xero's answer.
      const refreshed = await call(
        'GET',
        `/api/xero/invoices/${invoice.invoiceId}?refresh=true&org=${shop.id}`,
      );
      expect(refreshed.status).toBe(200);
      expect(
        Math.round(((await refreshed.json()) as { invoice: { amountDue: number } }).invoice.amountDue * 100),
      ).toBe(dueBefore - 123);

      // The browser's retry with the same key (issue 28 item 5): "still being processed" only while the
      // killed server's heartbeat is fresh, each 409 saying when to ask again (Retry-After: when that
      // heartbeat is stale); asked then, Xero is asked and the first payment is the answer. The waits it is
      // told add up to at most 10 s after the restart, whatever the write's kind.
      const waits: number[] = [];
      let answer: { paymentId: string; amountDue: number } | null = null;
      while (!answer && waits.length < 5) {
        const res = await pay('kill-nine-payment');
        if (res.status === 200) answer = (await res.json()) as { paymentId: string; amountDue: number };
        else {
          expect(res.status).toBe(409);
          expect(((await res.json()) as { message?: string; error?: string }).message ?? '').toContain(
            'already being processed',
          );
          const wait = Number(res.headers.get('retry-after'));
          expect(wait, 'a 409 for a change in flight says when to ask again').toBeGreaterThan(0);
          waits.push(wait);
          await new Promise((r) => setTimeout(r, wait * 1000));
        }
      }
      expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10);
      expect(answer?.paymentId.toLowerCase()).toBe(applied[0]?.id.toLowerCase());
      expect(Math.round((answer?.amountDue ?? 0) * 100)).toBe(dueBefore - 123);

      // A new payment on the invoice goes through, judged against the true balance.
      const next = await pay('kill-nine-second-payment');
      expect(next.status).toBe(200);
      expect(Math.round(((await next.json()) as { amountDue: number }).amountDue * 100)).toBe(
        dueBefore - 246,
      );

      // Xero has each payment once; the activity log says each once, as a success, naming the owner.
      expect(await paymentsInXero()).toHaveLength(2);
      const audit = (await (await call('GET', '/api/admin/audit')).json()) as Array<{
        action: string;
        target: string | null;
        result: string;
        username: string | null;
      }>;
      const lines = audit.filter(
        (a) => a.action === 'payment.create' && a.target?.toLowerCase() === invoice.invoiceId.toLowerCase(),
      );
      expect(lines.map((l) => [l.result, l.username])).toEqual([
        ['success', 'owner'],
        ['success', 'owner'],
      ]);

      // Issue 28 part A: kill -9 between an approval and its cash payment. Xero approves the draft at once
      // but takes 3 s to answer; the server is killed 1.5 s in. The approval and its cash were recorded as one
      // intent before the approval was sent, so after the restart the cash is paid exactly once, with nobody
      // sending anything again.
      expect(
        (await call('PATCH', `/api/admin/organizations/${shop.id}/features`, { featureAddInvoices: true }))
          .status,
      ).toBe(200);
      const saved = await call('PATCH', `/api/xero/settings?org=${shop.id}`, {
        organizationId: shop.id,
        defaultCashAccountId: cash.accountId,
      });
      expect(saved.status, await saved.clone().text()).toBe(200);
      const drafts = (await (await call('GET', `/api/xero/draft-invoices?org=${shop.id}`)).json()) as Array<{
        id: string;
        invoiceNumber: string;
        totalAmount: number;
        pendingCashAmount: number;
      }>;
      const draft = drafts.find((d) => d.totalAmount > 10 && d.pendingCashAmount === 0);
      if (!draft) throw new Error('the seed has no draft to approve');
      const cashOn = async (id: string) =>
        (
          (await control('GET', 'ledger')) as {
            writes: Array<{ kind: string; action: string; summary: Record<string, unknown> }>;
          }
        ).writes.filter(
          (w) =>
            w.kind === 'payment' &&
            w.action === 'create' &&
            String(w.summary.invoiceId).toLowerCase() === id.toLowerCase(),
        );
      await control('POST', 'faults', {
        clear: true,
        answerDelayMs: 3_000,
        pathPrefix: '/api.xro/2.0/Invoices',
      });
      const approving = call(
        'POST',
        `/api/xero/draft-invoices/update?org=${shop.id}`,
        { invoices: [{ id: draft.id, cashAmount: 7.77, approve: true, pendingCashSeen: 0 }] },
        { 'idempotency-key': 'kill-nine-approve-with-cash' },
      ).catch(() => null);
      await new Promise((r) => setTimeout(r, 1_500));
      second.child.kill('SIGKILL');
      await second.exited;
      expect(await approving).toBeNull();
      await control('DELETE', 'faults');
      expect(await cashOn(draft.id)).toHaveLength(0);

      const third = run(env);
      children.push(third.child);
      await waitForReady(port, third.child);
      // No resend: the restarted server's reconciler finds the approval in Xero, then pays the recorded cash.
      const until = Date.now() + 60_000;
      while ((await cashOn(draft.id)).length === 0 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 1_000));
      const cashPaid = await cashOn(draft.id);
      expect(cashPaid).toHaveLength(1);
      expect(cashPaid[0]?.summary.amount).toBe(7.77);
      // The screens and the log say what Xero has: the draft has left the drafts, Pay Invoices shows what is
      // still due, the log has the approval and the cash, and nothing waits for review.
      const draftsAfter = (await (
        await call('GET', `/api/xero/draft-invoices?refresh=true&org=${shop.id}`)
      ).json()) as Array<{ id: string }>;
      expect(draftsAfter.some((d) => d.id === draft.id)).toBe(false);
      const onPayInvoices = await call('GET', `/api/xero/invoices/${draft.id}?refresh=true&org=${shop.id}`);
      expect(onPayInvoices.status).toBe(200);
      expect(
        Math.round(
          ((await onPayInvoices.json()) as { invoice: { amountDue: number } }).invoice.amountDue * 100,
        ),
      ).toBe(Math.round(draft.totalAmount * 100) - 777);
      const intentLines = (
        (await (await call('GET', '/api/admin/audit')).json()) as Array<{
          action: string;
          target: string | null;
          result: string;
          detail: { amountPence?: number } | null;
        }>
      )
        .filter((a) => a.target?.toLowerCase() === draft.id.toLowerCase())
        .map((a) => [a.action, a.result, a.detail?.amountPence ?? null])
        .sort();
      expect(intentLines).toEqual([
        ['add-invoices.approve', 'success', null],
        ['add-invoices.cash-payment', 'success', 777],
      ]);
      expect(await (await call('GET', '/api/admin/writes/review')).json()).toEqual([]);
      // The browser's retry with the same key, late, answers the finished action and sends nothing.
      const retried = await call(
        'POST',
        `/api/xero/draft-invoices/update?org=${shop.id}`,
        { invoices: [{ id: draft.id, cashAmount: 7.77, approve: true, pendingCashSeen: 0 }] },
        { 'idempotency-key': 'kill-nine-approve-with-cash' },
      );
      expect(await retried.json()).toEqual({ processed: 1, failed: [] });
      expect(await cashOn(draft.id)).toHaveLength(1);

      third.child.kill('SIGTERM');
      expect(await third.exited).toBe(0);
    },
  );
});
