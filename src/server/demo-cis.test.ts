import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CisMonthsResponse, CisReturn, CisSettings } from '../shared/cis-returns';
import type { DraftBill } from '../shared/cis-bills';
import { startSandbox, type Sandbox } from '../sandbox/sandbox';
import { DEMO_CIS_REFERENCES, demoSubcontractorRefs, prepareDemo } from './demo';
import { TEST_ORIGIN } from './test/app';
import { register } from './test/session';
import { createXeroTestApp, TEST_CLIENT, type XeroTestApp } from './test/xero';

/**
 * Demo Builders Ltd as a careful contractor has it (issue 42 item 7), prepared by the demo's first start as on
 * Saturday 28 November 2026 (the demo's bills are dated back from its first start; SANDBOX_SEED 1, scale 1):
 * references kept, every return due before that day filed on time but one, the month in progress open. The
 * month 6 October – 5 November 2026 is the one docs/cis-month-worked.md works by hand from the demo's screens.
 */
describe('the demo’s CIS history (issue 42 item 7)', () => {
  let t: XeroTestApp;
  let sandbox: Sandbox;
  let cookie = '';
  const get = async <T>(url: string): Promise<T> => {
    const res = await t.app.inject({ method: 'GET', url, headers: { cookie, origin: TEST_ORIGIN } });
    expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
    return res.json() as T;
  };

  beforeAll(async () => {
    // The clock of both the sandbox (which dates the demo's bills from its start) and the app, running on.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-11-28T09:00:00Z'), shouldAdvanceTime: true });
    sandbox = await startSandbox({
      port: 0,
      dataDir: null,
      seed: 1,
      scale: 1,
      clients: [
        {
          ...TEST_CLIENT,
          redirectUris: [`${TEST_ORIGIN}/api/xero/callback`, `${TEST_ORIGIN}/api/auth/xero/callback`],
        },
      ],
    });
    t = await createXeroTestApp({ sandboxInstance: sandbox });
    const admin = await register(t.app, 'admin');
    expect(admin.user.isAdmin).toBe(true);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-demo-cis-'));
    await prepareDemo({
      app: t.app,
      sandbox: { url: sandbox.url, sandbox },
      credentials: { username: 'admin', password: 'Sturdy-Ledger-Pass-1' },
      appUrl: TEST_ORIGIN,
      dataDir,
    });
    cookie = admin.cookie;
  }, 300_000);

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
    vi.useRealTimers();
  });

  async function buildersQuery() {
    const orgs = await get<Array<{ id: number; tenantName: string }>>('/api/admin/organizations');
    return `org=${orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.id ?? 0}`;
  }

  it('keeps the firm’s references and files every month due, one of them late with its £100', async () => {
    const q = await buildersQuery();
    const settings = await get<CisSettings>(`/api/xero/cis/settings?${q}`);
    expect(settings).toMatchObject({
      ...DEMO_CIS_REFERENCES['Demo Builders Ltd'],
      materialsAccountCodes: ['322'],
      deductionAccountCode: '814',
    });
    const { months, today } = await get<CisMonthsResponse>(`/api/xero/cis/months?${q}`);
    expect(today).toBe('2026-11-28');
    // Every month since the first CIS payment, newest first: the month in progress, then every one filed.
    expect(months[0]).toMatchObject({ period: '2026-12', state: 'current', penaltyAmount: 0 });
    expect(months.slice(1).map((m) => m.state)).toEqual(months.slice(1).map(() => 'filed'));
    expect(months.length).toBeGreaterThan(12);
    const late = months.filter((m) => m.filing?.late);
    expect(late.map((m) => [m.period, m.filing?.filedOn, m.penaltyAmount])).toEqual([
      ['2026-06', '2026-06-22', 100],
    ]);
    expect(months.filter((m) => m.penaltyAmount > 0).map((m) => m.period)).toEqual(['2026-06']);
    expect(months.every((m) => !m.changedSinceFiling)).toBe(true);
  });

  it('shows no flag and nothing missing on any month: a careful contractor’s history', async () => {
    const q = await buildersQuery();
    const { months } = await get<CisMonthsResponse>(`/api/xero/cis/months?${q}`);
    const rates = new Set<number | null>();
    for (const m of months) {
      const ret = await get<CisReturn>(`/api/xero/cis/returns?${q}&period=${m.period}`);
      expect(
        ret.checks.filter((c) => !c.ok),
        m.period,
      ).toEqual([]);
      expect(
        ret.lines.flatMap((l) => l.flags),
        m.period,
      ).toEqual([]);
      for (const l of ret.lines) {
        rates.add(l.rate);
        expect(l.utr).toBe(demoSubcontractorRefs(l.name, l.rate ?? 0).utr);
        expect(l.verificationNumber !== null).toBe(l.rate === 30);
        // The deduction is the rate on the labour (gross less materials), to the penny of each payment's share.
        const labour = l.grossAmount - l.materialsAmount;
        expect(
          Math.abs(l.deductionAmount - (labour * (l.rate ?? 0)) / 100),
          `${m.period} ${l.name}`,
        ).toBeLessThan(0.05);
      }
    }
    expect([...rates].sort()).toEqual([0, 20, 30]);
  });

  it('shows the month worked by hand in docs/cis-month-worked.md', async () => {
    const q = await buildersQuery();
    const ret = await get<CisReturn>(`/api/xero/cis/returns?${q}&period=2026-11`);
    expect(ret.filing?.filedOn).toBe('2026-11-12');
    expect(
      ret.lines.map((l) => [l.name, l.rate, l.grossAmount, l.materialsAmount, l.deductionAmount]),
    ).toEqual(DOC_MONTH_LINES);
    expect(ret.totals).toEqual(DOC_MONTH_TOTALS);
    expect(ret.paymentDueDate).toBe('2026-11-20');
  });

  it('shows CIS Bills’ drafts at each subcontractor’s rate, on the labour alone', async () => {
    const q = await buildersQuery();
    const drafts = await get<DraftBill[]>(`/api/xero/draft-bills?${q}`);
    expect(drafts.length).toBeGreaterThan(0);
    for (const d of drafts) {
      const labourPence = Math.round((d.total - d.vatAmount - d.materialsAmount) * 100);
      expect(d.cisDeduction, d.contact.name).toBe(Math.floor((labourPence * (d.cisRate ?? 0)) / 100) / 100);
      expect(d.amountDue).toBeCloseTo(d.total - d.cisDeduction, 2);
    }
  });
});

/** docs/cis-month-worked.md's table for 6 October – 5 November 2026. */
const DOC_MONTH_LINES: Array<[string, number | null, number, number, number]> = [
  ['A. Patel Plastering', 20, 3130, 0, 626],
  ['Hughes Groundworks Ltd', 20, 3480.31, 400.31, 616],
  ['R. Singh Tiling', 30, 909.02, 303.33, 181.71],
];
const DOC_MONTH_TOTALS = { grossAmount: 7519.33, materialsAmount: 703.64, deductionAmount: 1423.71 };
