import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SCHEME } from '../../../sandbox/hmrc/register';
import { getPeriodOf, getTaxMonth, shiftPeriod } from '../../../shared/cis-returns';
import { getUkToday } from '../../../shared/dates';
import { openDatabase } from '../../db/client';
import { pgliteTemplate } from '../../test/database';
import { startCommandFlags } from '../../test/start-command';

/**
 * A real server killed (SIGKILL) between sending the month's return and HMRC's acknowledgement (issue 43, decision
 * 043): HMRC and Xero stand apart from it (`npm run sandbox:hmrc`, `npm run sandbox`) and outlive it. The restarted
 * server finds the return on HMRC's queue by its TransactionID, gets HMRC's answer, and the month is filed once; the
 * browser's retry gets that first submission's outcome.
 */
const BUNDLE_DIR = path.resolve(`dist/hmrc-process-test-${process.pid}`);
const ENTRY = path.join(BUNDLE_DIR, 'server.mjs');

beforeAll(() => {
  const built = spawnSync(
    process.execPath,
    ['scripts/build-server.mjs', 'src/server/server.ts', path.relative(process.cwd(), ENTRY)],
    {
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`could not bundle the server: ${built.stderr}`);
});
afterAll(() => fs.rmSync(BUNDLE_DIR, { recursive: true, force: true }));

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function run(env: Record<string, string>, entry?: string) {
  const args = entry ? ['--import', 'tsx', entry] : [...startCommandFlags(), ENTRY];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  children.push(child);
  return { child, exited, stdout: () => stdout };
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

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 150_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('filing with HMRC across a crash', () => {
  it(
    'a server killed between send and acknowledgement: after the restart the return is found, not resent, and filed once',
    { timeout: 420_000 },
    async () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-hmrc-kill-'));
      dirs.push(root);
      const [port, xeroPort, hmrcPort] = [await freePort(), await freePort(), await freePort()];
      const origin = `http://127.0.0.1:${port}`;
      const xeroUrl = `http://127.0.0.1:${xeroPort}`;
      const hmrcUrl = `http://127.0.0.1:${hmrcPort}`;

      const xero = run(
        {
          SANDBOX_PORT: String(xeroPort),
          DATA_DIR: path.join(root, 'xero'),
          SANDBOX_CLIENT_SECRET: 'hmrc-kill',
          SANDBOX_REDIRECT_URIS: `${origin}/api/xero/callback`,
        },
        path.resolve('src/sandbox/main.ts'),
      );
      const hmrc = run(
        {
          HMRC_SANDBOX_PORT: String(hmrcPort),
          DATA_DIR: path.join(root, 'hmrc'),
          HMRC_SANDBOX_POLL_SECONDS: '0',
        },
        path.resolve('src/sandbox/hmrc/main.ts'),
      );
      await until('the sandboxes', async () =>
        /listening/.test(xero.stdout()) && /listening/.test(hmrc.stdout()) ? true : undefined,
      );
      const control = async (method: string, what: string, body?: unknown) => {
        const res = await fetch(`${hmrcUrl}/__hmrc/${what}`, {
          method,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return (await res.json()) as Record<string, unknown>;
      };

      const dataDir = path.join(root, 'app');
      const database = await openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
      await database.close();
      const env = {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        APP_URL: origin,
        XERO_CLIENT_ID: 'ledgerlink-demo',
        XERO_CLIENT_SECRET: 'hmrc-kill',
        TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
        XERO_ISSUER: xeroUrl,
        XERO_API_URL: xeroUrl,
        HMRC_ENDPOINT: `${hmrcUrl}/submission`,
      };
      const ready = (p: ReturnType<typeof run>) =>
        until('the server', async () => {
          if (p.child.exitCode !== null) throw new Error('server exited');
          return (await fetch(`${origin}/readyz`)).ok ? true : undefined;
        });

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
      await ready(first);
      const owner = { username: 'owner', password: 'Hmrc-Kill-Owner-7' };
      expect((await call('POST', '/api/register', owner)).status).toBe(201);
      expect((await call('POST', '/api/login', owner)).status).toBe(200);
      await fetch(`${xeroUrl}/__sandbox/auto-consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'owner@demoshop.example', tenants: 'all' }),
      });
      let location = ((await (await call('GET', '/api/xero/connect')).json()) as { url: string }).url;
      for (let hop = 0; hop < 5 && location.startsWith(xeroUrl); hop++) {
        const res = await fetch(location, { redirect: 'manual' });
        location = new URL(res.headers.get('location') ?? '', location).toString();
      }
      expect((await call('GET', location)).headers.get('location')).toContain('connected=true');
      const orgs = (await (await call('GET', '/api/admin/organizations')).json()) as Array<{
        id: number;
        tenantName: string;
      }>;
      const builders = orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
      if (!builders) throw new Error('Demo Builders is not connected');
      expect(
        (await call('PATCH', `/api/admin/organizations/${builders.id}/features`, { featureCisBills: true }))
          .status,
      ).toBe(200);
      const q = `org=${builders.id}`;
      expect(
        (
          await call('PUT', `/api/xero/cis/settings?${q}`, {
            contractorName: null,
            utr: DEMO_SCHEME.utr,
            employerReference: `${DEMO_SCHEME.taxOfficeNumber}/${DEMO_SCHEME.taxOfficeReference}`,
            accountsOfficeReference: DEMO_SCHEME.accountsOfficeReference,
            materialsAccountCodes: [],
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call('PUT', `/api/xero/cis/hmrc/credentials?${q}`, {
            userId: DEMO_SCHEME.senderId,
            password: DEMO_SCHEME.password,
          })
        ).status,
      ).toBe(200);

      // A month before the demo's history: a nil return. HMRC receives it at once but takes a minute to acknowledge.
      const period = shiftPeriod(getPeriodOf(getUkToday()), 24);
      await control('POST', 'faults', { ackDelayMs: 60_000 });
      const body = {
        declarations: { employmentStatus: false, verification: false, informationCorrect: true },
      };
      const inFlight = call('POST', `/api/xero/cis/returns/${period}/submission?${q}`, body, {
        'idempotency-key': 'kill-nine',
      }).catch(() => null);
      await until('HMRC to receive the return', async () => {
        const { messages } = (await control('GET', 'messages')) as {
          messages: Array<{ messageClass: string }>;
        };
        return messages.some((m) => m.messageClass === 'IR-CIS-CIS300MR') ? true : undefined;
      });
      first.child.kill('SIGKILL');
      await first.exited;
      expect(await inFlight).toBeNull();
      await control('DELETE', 'faults');

      const second = run(env);
      await ready(second);
      // The browser's retry (same key) and a fresh look both end on the first submission, accepted.
      const accepted = await until('the return to be accepted', async () => {
        const res = await call('POST', `/api/xero/cis/returns/${period}/submission?${q}`, body, {
          'idempotency-key': 'kill-nine',
        });
        const answer = (await res.json()) as { state?: string; id?: number; receipt?: { irmark: string } };
        return answer.state === 'accepted' ? answer : undefined;
      });
      expect(accepted.receipt?.irmark).toMatch(/=$/);
      const again = (await (
        await call('POST', `/api/xero/cis/returns/${period}/submission?${q}`, body, {
          'idempotency-key': 'another-click',
        })
      ).json()) as { id: number };
      expect(again.id).toBe(accepted.id);
      const { messages } = (await control('GET', 'messages')) as {
        messages: Array<{ messageClass: string }>;
      };
      expect(messages.filter((m) => m.messageClass === 'IR-CIS-CIS300MR')).toHaveLength(1);
      const { filed } = (await control('GET', 'filed')) as {
        filed: Array<{ kind: string; return?: { periodEnd: string } }>;
      };
      expect(filed.filter((f) => f.return?.periodEnd === getTaxMonth(period).end)).toHaveLength(1);
      const months = (await (await call('GET', `/api/xero/cis/returns?period=${period}&${q}`)).json()) as {
        filing: unknown;
      };
      expect(months.filing).not.toBeNull();
    },
  );
});
