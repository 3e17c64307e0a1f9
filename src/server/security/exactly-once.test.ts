import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStockJournalReference } from '../../shared/stock-journal';
import type { Sandbox } from '../../sandbox/sandbox';
import { fromPence } from '../../shared/money';
import {
  applyFaults,
  billRequest,
  clearFaults,
  countRowStates,
  createWorld,
  findViolations,
  installMidWriteExpiry,
  loadDrafts,
  loadPeriods,
  NO_FAULTS,
  pickSubcontractor,
  postOnce,
  removeMidWriteExpiry,
  restartAndReconcile,
  reusableDatabase,
  rowsByKeys,
  type ReusedDatabase,
  runOp,
  startExactlyOnceSandbox,
  takeInvoice,
  type CrashedKind,
  type CrashPoint,
  type FaultPlan,
  type Op,
  type World,
} from '../test/exactly-once';

/**
 * Money writes survive every fault exactly once (issue 11). Payments, bill creations (one and a batch),
 * draft approvals with cash and stock journal posts go through the real server against the sandbox while
 * the sandbox fails, throttles, stalls, drops connections after applying writes and expires tokens on a
 * schedule fast-check chooses; crashes are left in the write ledger as a stopped server leaves them, and a
 * restarted instance reconciles. After every run Xero holds exactly the writes the ledger confirmed, once
 * each; every write a user was told succeeded is there; nothing a user was told failed is there; the
 * activity log has one line per settled write (success for what Xero has, failure for what it never got);
 * and every balance shown (Refresh Invoice and the list) is Xero's, also right after a late resend of an
 * old key following later payments (issue 15).
 *
 * `npm test` runs it small; `npm run test:stress` (STRESS_FULL=true) runs more and longer sequences.
 * EXACTLY_ONCE_SEED (and EXACTLY_ONCE_PATH) replay a reported failure.
 */
const FULL = process.env.STRESS_FULL === 'true';
const SIZES = FULL ? { runs: 120, minOps: 4, maxOps: 10 } : { runs: 18, minOps: 3, maxOps: 5 };

const counted = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4, max: 9 }) },
);

const faultPlan: fc.Arbitrary<FaultPlan> = fc.record({
  aim: fc.constantFrom<FaultPlan['aim']>('write', 'write', 'all'),
  failNext: counted,
  errorStatus: fc.constantFrom<500 | 503>(500, 503),
  // A Retry-After of 1 s is waited out for real: kept to one 429 so the suite stays quick.
  burst: fc.oneof(
    { weight: 5, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant({ count: 1, retryAfterSeconds: 1 as const }) },
    {
      weight: 2,
      arbitrary: fc.record({ count: fc.integer({ min: 1, max: 3 }), retryAfterSeconds: fc.constant(null) }),
    },
  ),
  latencyMs: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 5, max: 40 }) },
  ),
  dropAfterWrite: fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 2 }) },
  ),
  expireMidWrite: fc.oneof(
    { weight: 4, arbitrary: fc.constant(false) },
    { weight: 1, arbitrary: fc.constant(true) },
  ),
});

const double = fc.oneof(
  { weight: 5, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);
const billPence = fc.integer({ min: 100, max: 900_000 });

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      share: fc.constantFrom('full' as const, 'part' as const, 'penny' as const),
      isCard: fc.boolean(),
      faults: faultPlan,
      double,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('bill' as const),
      pence: billPence,
      authorised: fc.boolean(),
      faults: faultPlan,
      double,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bills' as const),
      bills: fc.array(fc.record({ pence: billPence, authorised: fc.boolean() }), {
        minLength: 2,
        maxLength: 3,
      }),
      faults: faultPlan,
      double,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('approve' as const),
      cash: fc.array(fc.constantFrom('none' as const, 'part' as const, 'full' as const), {
        minLength: 1,
        maxLength: 2,
      }),
      faults: faultPlan,
      double,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('journal' as const), faults: faultPlan, double }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('return' as const),
      pick: fc.nat(),
      later: fc.boolean(),
      faults: faultPlan,
    }),
  },
  // Later payments on an invoice already paid in part, late resends of old keys (also after a restart),
  // and two payments on one invoice at once (issue 15).
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('payAgain' as const),
      pick: fc.nat(),
      isCard: fc.boolean(),
      faults: faultPlan,
      double,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('resend' as const), pick: fc.nat(), restart: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('payTogether' as const), faults: faultPlan }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('crash' as const),
      write: fc.constantFrom<CrashedKind>('payment', 'bill.create', 'journal.create', 'invoice.approve'),
      at: fc.constantFrom<CrashPoint>('pending', 'sent-applied', 'sent-lost'),
    }),
  },
);

function describeRun(world: World): string {
  const lines = world.actions.map(
    (a) =>
      `  ${a.label} → ${a.statuses.join('/')} (${a.attempts} requests): ${[...a.told.values()].map((t) => t.told).join(', ')}`,
  );
  for (const c of world.crashes) lines.push(`  ${c.label}`);
  return lines.join('\n');
}

function addCounts(into: Record<string, number>, from: Record<string, number>) {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** Write calls (PUT/POST) the sandbox counted on an endpoint, for one tenant. */
function writeCalls(world: World, tenantId: string, endpoint: string): number {
  return world.sandbox
    .ledger()
    .calls.filter(
      (c) =>
        c.tenantId === tenantId && c.method !== 'GET' && c.endpoint.toLowerCase() === endpoint.toLowerCase(),
    )
    .reduce((s, c) => s + c.count, 0);
}

describe('money writes survive every fault exactly once', () => {
  let sandbox: Sandbox;
  // Each world is a new server on a database as new (emptied back to how it was created: snapshotDatabase).
  let reused: ReusedDatabase;
  beforeAll(async () => {
    sandbox = await startExactlyOnceSandbox();
    reused = await reusableDatabase();
    installMidWriteExpiry();
  });
  afterAll(async () => {
    removeMidWriteExpiry();
    await reused.database.destroy();
    await sandbox.close();
  });

  it(
    `holds in Xero exactly the confirmed writes over ${SIZES.runs} random fault schedules`,
    { timeout: FULL ? 1_800_000 : 600_000 },
    async () => {
      const totals: Record<string, number> = {};
      const started = Date.now();
      let run = 0;
      const seed = process.env.EXACTLY_ONCE_SEED ? Number(process.env.EXACTLY_ONCE_SEED) : undefined;
      await fc.assert(
        fc.asyncProperty(
          fc.array(op, { minLength: SIZES.minOps, maxLength: SIZES.maxOps }),
          fc.option(faultPlan, { freq: 2 }),
          async (ops, restartFaults) => {
            run += 1;
            const world = await createWorld(sandbox, `r${run}`, reused);
            try {
              for (const next of ops) await runOp(world, next);
              const reconciled = await restartAndReconcile(world, restartFaults);
              const violations = await findViolations(world);
              addCounts(totals, world.counts);
              addCounts(
                totals,
                Object.fromEntries(
                  Object.entries(await countRowStates(world)).map(([k, v]) => [`row.${k}`, v]),
                ),
              );
              addCounts(
                totals,
                Object.fromEntries(Object.entries(reconciled).map(([k, v]) => [`reconcile.${k}`, v])),
              );
              totals.runs = (totals.runs ?? 0) + 1;
              if (violations.length > 0)
                throw new Error(`${violations.join('\n')}\nthe run:\n${describeRun(world)}`);
            } finally {
              clearFaults(world);
              await world.t.close();
            }
          },
        ),
        {
          numRuns: SIZES.runs,
          // Each run is a whole server; a failure is reported as found (with its seed and path to replay).
          endOnFailure: true,
          ...(seed !== undefined
            ? { seed, ...(process.env.EXACTLY_ONCE_PATH ? { path: process.env.EXACTLY_ONCE_PATH } : {}) }
            : {}),
        },
      );
      const seconds = (Date.now() - started) / 1000;
      process.stdout.write(
        `\nexactly-once (${FULL ? 'full' : 'small'} size): ${run} runs in ${seconds.toFixed(1)} s; ${JSON.stringify(totals)}\n`,
      );
      expect(totals['told.success'] ?? 0).toBeGreaterThan(0);
    },
  );

  it(
    'settles crashed writes on restart: pending fails unsent, sent is confirmed when Xero has it and fails when not',
    { timeout: 180_000 },
    async () => {
      const world = await createWorld(sandbox, 'crash', reused);
      try {
        const kinds: CrashedKind[] = ['payment', 'bill.create', 'journal.create', 'invoice.approve'];
        const points: CrashPoint[] = ['pending', 'sent-applied', 'sent-lost'];
        for (const write of kinds) for (const at of points) await runOp(world, { kind: 'crash', write, at });
        expect(world.crashes).toHaveLength(12);
        const writesBefore = sandbox.ledger().writes.length;
        const reconciled = await restartAndReconcile(world);
        expect(reconciled).toMatchObject({ confirmed: 4, failed: 8, needs_review: 0 });
        // Reconciling looked things up; it sent nothing.
        expect(sandbox.ledger().writes.length).toBe(writesBefore);
        expect(await findViolations(world)).toEqual([]);
      } finally {
        await world.t.close();
      }
    },
  );

  it(
    "shows Xero's balance on Refresh Invoice right after a restart settles a payment the stopped server had sent",
    { timeout: 120_000 },
    async () => {
      // Found by the property (CI seed 1248499157): the invoice was read from Xero seconds before the stopped
      // server's payment reached Xero, so the cached row looked fresh; the reconciler confirmed the payment
      // and Refresh Invoice trusted the seconds-old row, showing the balance from before it.
      const world = await createWorld(sandbox, 'fresh-crash', reused);
      try {
        const ops: Op[] = [
          { kind: 'resend', pick: 3, restart: true },
          { kind: 'crash', write: 'journal.create', at: 'sent-applied' },
          {
            kind: 'bill',
            pence: 118,
            authorised: true,
            faults: { ...NO_FAULTS, aim: 'all', errorStatus: 503, dropAfterWrite: 2 },
            double: false,
          },
          { kind: 'crash', write: 'payment', at: 'sent-applied' },
        ];
        for (const next of ops) await runOp(world, next);
        expect(world.crashes).toHaveLength(2);
        await restartAndReconcile(world, { ...NO_FAULTS, aim: 'write', failNext: 2, errorStatus: 503 });
        expect(await findViolations(world)).toEqual([]);
      } finally {
        await world.t.close();
      }
    },
  );

  it(
    'refreshes a token Xero refuses mid-write even when it was refreshed seconds before',
    { timeout: 120_000 },
    async () => {
      const world = await createWorld(sandbox, 'expiry', reused);
      try {
        // Two payments, each meeting an expired token as its write leaves: the second refresh comes seconds
        // after the first, and must still happen (it once handed back the refused token: "reconnect").
        for (const share of ['part', 'penny'] as const) {
          await runOp(world, {
            kind: 'pay',
            share,
            isCard: false,
            double: false,
            faults: { ...NO_FAULTS, aim: 'write', expireMidWrite: true },
          });
        }
        expect(world.actions.map((a) => a.statuses)).toEqual([[200], [200]]);
        expect(world.actions.map((a) => a.attempts)).toEqual([1, 1]);
        expect(sandbox.ledger().token.refresh).toBe(2);
        await restartAndReconcile(world);
        expect(await findViolations(world)).toEqual([]);
      } finally {
        await world.t.close();
      }
    },
  );

  it(
    "settles a lost answer by looking it up, not by sending again, once Xero's 6-minute idempotency window has passed",
    { timeout: 180_000 },
    async () => {
      const world = await createWorld(sandbox, 'window', reused);
      // The write is applied but its answer is lost, and Xero fails the client's own retries: the outcome is unknown.
      const lostAnswer = (path: string) =>
        applyFaults(
          world,
          { ...NO_FAULTS, aim: 'write', failNext: 3, errorStatus: 503, dropAfterWrite: 1 },
          path,
        );
      try {
        const shop = world.shop.organizationId;
        const builders = world.builders.organizationId;
        const invoice = await takeInvoice(world);
        const [draft] = await loadDrafts(world);
        const [period] = await loadPeriods(world);
        if (!invoice || !draft || !period) throw new Error('seed lacks an invoice, a draft or a period');

        const payment = {
          url: `/api/xero/payments?org=${shop}`,
          body: {
            invoiceId: invoice.invoiceId,
            invoiceNumber: invoice.invoiceNumber,
            accountId: world.ids.cash,
            amount: fromPence(invoice.duePence),
            reference: '',
            isCard: false,
            date: world.today,
          },
          key: 'window-pay',
        };
        const bill = {
          url: `/api/xero/create-bill?org=${builders}`,
          body: billRequest(world, 'EO-WINDOW', 43_210, false, pickSubcontractor(world)),
          key: 'window-bill',
        };
        const journal = {
          url: `/api/xero/stock-journal?org=${shop}`,
          body: {
            periodStart: period.periodStart,
            periodEnd: period.periodEnd,
            netAmount: period.netTotal,
            contactId: world.ids.dailySales,
            stockAccountId: world.ids.stock,
            costAccountId: world.ids.cost,
            marginRate: 1.35,
            reference: getStockJournalReference(period.periodStart, period.periodEnd),
          },
          key: 'window-journal',
        };
        const approve = {
          url: `/api/xero/draft-invoices/update?org=${shop}`,
          body: { invoices: [{ id: draft.invoiceId, cashAmount: 0, approve: true }] },
          key: 'window-approve',
        };

        for (const key of [payment.key, bill.key, journal.key, `${approve.key}:approve:${draft.invoiceId}`])
          world.manualKeys.add(key);
        // The instance's own reconcile pass (every 10 s, ledger/rules.ts) settles an unknown write at its next
        // pass, at a moment of its choosing: at load 17 it came between these requests and the check below, and two
        // of the four were already confirmed (stop 55). This test makes the passes itself (the user's repeat after
        // the window, then the restart's), so the instance's periodic pass is held; a forced pass still runs.
        const ledger = world.t.parts.ledger;
        const ownPass = ledger.reconcile;
        ledger.reconcile = (olderThanMs?: number) =>
          olderThanMs === undefined
            ? Promise.resolve({ pending: 0, sent: 0, confirmed: 0, failed: 0, unknown: 0, needs_review: 0 })
            : ownPass(olderThanMs);
        lostAnswer('/api.xro/2.0/Payments');
        const paid = await postOnce(world, payment.url, payment.body, payment.key);
        lostAnswer('/api.xro/2.0/Invoices');
        const billed = await postOnce(world, bill.url, bill.body, bill.key);
        lostAnswer('/api.xro/2.0/ManualJournals');
        const journalled = await postOnce(world, journal.url, journal.body, journal.key);
        lostAnswer('/api.xro/2.0/Invoices');
        const approved = await postOnce(world, approve.url, approve.body, approve.key);
        clearFaults(world);

        expect([paid.status, paid.body.writeState]).toEqual([502, 'unknown']);
        expect([billed.status, billed.body.writeState]).toEqual([502, 'unknown']);
        // A journal whose answer was lost is looked up before the user is told anything (issue 15, finding 4):
        // Xero has it, so the post answers 201 with that journal and its write is already settled.
        expect(journalled.status, JSON.stringify(journalled.body)).toBe(201);
        expect(approved.status).toBe(200);
        expect((approved.body.failed as Array<{ message: string }>)[0]?.message).toMatch(/did not confirm/);
        const windowKeys = [payment.key, bill.key, journal.key, `${approve.key}:approve:${draft.invoiceId}`];
        const rows = await rowsByKeys(world, windowKeys);
        expect(windowKeys.map((k) => rows.get(k)?.state)).toEqual([
          'unknown',
          'unknown',
          'confirmed',
          'unknown',
        ]);
        // Xero did apply each of them, once.
        const applied = sandbox.ledger().writes.length;
        expect(applied).toBe(4);

        // Seven minutes on, Xero no longer remembers the keys: a resend would be a second write.
        sandbox.advanceClock(400);
        const tenants = [world.shop.tenantId, world.builders.tenantId];
        const endpoints = ['/api.xro/2.0/Payments', '/api.xro/2.0/Invoices', '/api.xro/2.0/ManualJournals'];
        const writeCallsNow = () =>
          tenants.reduce(
            (s, tenant) => s + endpoints.reduce((n, e) => n + writeCalls(world, tenant, e), 0),
            0,
          );
        const callsAtWindow = writeCallsNow();

        // The user comes back and repeats each action (same key): settled by looking it up in Xero.
        const paidAgain = await postOnce(world, payment.url, payment.body, payment.key);
        expect(paidAgain.status, JSON.stringify(paidAgain.body)).toBe(200);
        const billedAgain = await postOnce(world, bill.url, bill.body, bill.key);
        expect(billedAgain.status, JSON.stringify(billedAgain.body)).toBe(200);
        const journalAgain = await postOnce(world, journal.url, journal.body, journal.key);
        expect([201, 409]).toContain(journalAgain.status);
        const approvedAgain = await postOnce(world, approve.url, approve.body, approve.key);
        expect(approvedAgain.status).toBe(200);

        // Then the restarted server reconciles whatever is still open, by lookup.
        await restartAndReconcile(world);
        expect(writeCallsNow()).toBe(callsAtWindow);
        expect(sandbox.ledger().writes.length).toBe(applied);
        const settled = await rowsByKeys(world, [
          payment.key,
          bill.key,
          journal.key,
          `${approve.key}:approve:${draft.invoiceId}`,
        ]);
        expect([...settled.values()].map((r) => r.state)).toEqual([
          'confirmed',
          'confirmed',
          'confirmed',
          'confirmed',
        ]);
        const paymentId = sandbox.ledger().writes.find((w) => w.kind === 'payment')?.id;
        expect(paidAgain.body.paymentId).toBe(paymentId);
        expect(settled.get(payment.key)?.xeroId).toBe(paymentId);
        expect(await findViolations(world)).toEqual([]);

        // Why the lookup matters: after the window Xero has forgotten a key, and the same request with the same
        // key is a second payment. Shown on another invoice, straight to Xero.
        const other = await takeInvoice(world);
        if (!other) throw new Error('seed lacks a second invoice');
        const resend = () =>
          world.t.parts.xeroHttp.send(world.owner.user.id, world.shop.tenantId, {
            method: 'PUT',
            path: '/api.xro/2.0/Payments',
            body: {
              Payments: [
                {
                  Invoice: { InvoiceID: other.invoiceId },
                  Account: { AccountID: world.ids.cash },
                  Amount: 0.01,
                  Date: world.today,
                  Reference: 'window',
                },
              ],
            },
            idempotencyKey: 'window-control',
          });
        const paymentsOf = () =>
          sandbox
            .ledger()
            .writes.filter((w) => w.kind === 'payment' && w.summary.invoiceId === other.invoiceId).length;
        await resend();
        await resend();
        expect(paymentsOf()).toBe(1);
        sandbox.advanceClock(400);
        await resend();
        expect(paymentsOf()).toBe(2);
      } finally {
        clearFaults(world);
        await world.t.close();
      }
    },
  );
});
