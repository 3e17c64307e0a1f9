import { createWriteLedger, registerWriteKinds } from '../../ledger/index';
import crypto from 'node:crypto';
import { and, desc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  auditLog,
  cisContractorSettings,
  organizations,
  users,
  xeroAccounts,
  xeroContacts,
} from '../../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import type { Bill, BillAnswer, BillChange, BillsPort, ContactsPort, NewBill } from '../../xero/xero-port';
import type { XeroSync } from '../../xero/sync/sync.service';
import { batchKeyOf } from '../../xero/batcher';
import { createAuditLog } from '../audit/audit';
import { createCisBillsRepository } from './cis-bills.repository';
import { createCisBillsService, toDraftBill, type CisBillsContext } from './cis-bills.service';

/** Xero's bills, in memory: pence in, pence out, as the port speaks. */
function createFakeBills() {
  const bills = new Map<string, Bill>();
  const calls: { op: string; count: number }[] = [];
  const sent: NewBill[] = [];
  const batches: { key: string; references: string[] }[] = [];
  const changes: BillChange[] = [];
  const refuse = new Set<string>();
  /** What Xero does with the next create: applies it and loses the answer; `legacy`: holds the mark in the number, as bills written before decision 028 do. */
  const next = { loseAnswer: false, legacy: false };
  const toBill = (b: NewBill): Bill => {
    const totalPence = b.lines.reduce((sum, l) => sum + Math.round(l.quantity * l.unitPence), 0);
    return {
      invoiceId: crypto.randomUUID(),
      type: 'ACCPAY',
      status: b.status,
      invoiceNumber: next.legacy
        ? `${b.reference} [${new URL(b.url ?? '').searchParams.get('write')}]`
        : b.reference,
      url: next.legacy ? null : (b.url ?? null),
      contactId: b.contactId,
      date: b.date,
      dueDate: b.dueDate,
      lineAmountTypes: b.lineAmountTypes,
      totalPence,
      subTotalPence: totalPence,
      lines: b.lines.map((l) => ({
        lineItemId: crypto.randomUUID(),
        description: l.description,
        quantity: l.quantity,
        unitAmount: l.unitPence / 100,
        accountCode: l.accountCode ?? null,
        accountId: null,
        taxType: l.taxType ?? null,
        taxAmountPence: 0,
        lineAmountPence: Math.round(l.quantity * l.unitPence),
      })),
    };
  };
  const port: BillsPort = {
    async createMany(_ctx, newBills, idempotencyKey) {
      calls.push({ op: 'createMany', count: newBills.length });
      batches.push({ key: idempotencyKey, references: newBills.map((b) => b.reference) });
      const answers = newBills.map((b): BillAnswer => {
        sent.push(b);
        if (refuse.has(b.contactId)) return { ok: false, errors: ['The contact is archived'] };
        const bill = toBill(b);
        bills.set(bill.invoiceId, bill);
        return { ok: true, bill };
      });
      if (next.loseAnswer) {
        next.loseAnswer = false;
        throw new Error('socket hang up');
      }
      return answers;
    },
    async update(_ctx, invoiceId, change) {
      calls.push({ op: 'update', count: 1 });
      changes.push(change);
      const bill = bills.get(invoiceId);
      if (!bill) return { ok: false, errors: ['Invoice not found'] };
      const next: Bill = { ...bill, status: change.status ?? bill.status };
      if (change.lineAmountTypes) next.lineAmountTypes = change.lineAmountTypes;
      if (change.lines) {
        next.totalPence = change.lines.reduce((sum, l) => sum + Math.round(l.quantity * l.unitPence), 0);
        next.lines = change.lines.map((l) => ({
          lineItemId: l.lineItemId ?? crypto.randomUUID(),
          description: l.description,
          quantity: l.quantity,
          unitAmount: l.unitPence / 100,
          accountCode: l.accountCode ?? null,
          accountId: null,
          taxType: l.taxType ?? null,
          taxAmountPence: 0,
          lineAmountPence: Math.round(l.quantity * l.unitPence),
        }));
      }
      bills.set(invoiceId, next);
      return { ok: true, bill: next };
    },
    async get(_ctx, invoiceId) {
      return bills.get(invoiceId) ?? null;
    },
    async listChangedForContact(_ctx, contactId) {
      calls.push({ op: 'listChangedForContact', count: 1 });
      return [...bills.values()].filter((b) => b.contactId === contactId).reverse();
    },
  };
  return { port, bills, calls, sent, changes, refuse, batches, next };
}

/** Subcontractors with gross payment status (0 %): their bills carry no deduction line. */
const SUB_A = '44444444-4444-4444-8444-444444444444';
const SUB_B = '55555555-5555-4555-8555-555555555555';
/** A subcontractor at 20 %, without VAT. */
const SUB_C = '77777777-7777-4777-8777-777777777777';
const DAY = '2026-11-20';

describe('CIS Bills money rules, against an in-memory Xero', () => {
  let database: TestDatabase;
  let ctx: CisBillsContext;
  let fake: ReturnType<typeof createFakeBills>;
  let service: ReturnType<typeof createCisBillsService>;

  const request = (
    contactId: string,
    lines: { quantity: number; unitAmount: number }[],
    reference = '4726',
  ) => ({
    contactId,
    date: DAY,
    reference,
    lineItems: lines.map((l) => ({ description: 'Labour', accountCode: '321', ...l })),
    status: 'DRAFT' as const,
  });
  const newLines = async (since: number) =>
    database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, ctx.organizationId), gt(auditLog.id, since)));
  const lastAuditId = async () =>
    (await database.db.select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0]
      ?.id ?? 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    const [user] = await database.db.insert(users).values({ username: 'cara' }).returning();
    const [org] = await database.db.insert(organizations).values({ tenantId: 'fake-builders' }).returning();
    if (!user || !org) throw new Error('seed failed');
    await database.db.insert(xeroAccounts).values([
      {
        organizationId: org.id,
        accountId: '66666666-6666-4666-8666-666666666666',
        code: '321',
        name: 'Subcontractors',
        type: 'DIRECTCOSTS',
        status: 'ACTIVE',
      },
      {
        organizationId: org.id,
        accountId: '88888888-8888-4888-8888-888888888888',
        code: '814',
        name: 'CIS Deductions Payable',
        type: 'CURRLIAB',
        class: 'LIABILITY',
        status: 'ACTIVE',
      },
    ]);
    // The subcontractors' CIS settings as read from Xero, current for their UpdatedDateUTC (issue 19).
    const checked = new Date('2026-11-01T00:00:00Z');
    await database.db.insert(xeroContacts).values(
      [
        [SUB_A, 'A', 0],
        [SUB_B, 'B', 0],
        [SUB_C, 'C', 20],
      ].map(([contactId, name, rate]) => ({
        organizationId: org.id,
        contactId: String(contactId),
        name: String(name),
        status: 'ACTIVE',
        isSupplier: true,
        cisEnabled: true,
        cisRate: Number(rate),
        cisCheckedAt: checked,
        cisCheckedUpdatedUtc: checked,
        updatedUtc: checked,
      })),
    );
    await database.db
      .insert(cisContractorSettings)
      .values({ organizationId: org.id, deductionAccountCode: '814', materialsAccountCodes: [] });
    ctx = {
      organizationId: org.id,
      tenantId: 'fake-builders',
      userId: user.id,
      username: 'cara',
      isAdmin: false,
      ip: null,
      organization: { defaultCisSubcontractorsGroupId: null, defaultBillVatRateId: null },
    };
  });
  afterAll(() => database.destroy());

  beforeEach(() => {
    fake = createFakeBills();
    const ledger = createWriteLedger({ db: database.db });
    const noSync = {
      syncAccounts: async () => undefined,
      syncTaxRates: async () => undefined,
      syncContacts: async () => undefined,
    } as unknown as XeroSync;
    const contacts: ContactsPort = { cisSettings: async () => ({ enabled: true, rate: 20 }) };
    service = createCisBillsService({
      repo: createCisBillsRepository(database.db),
      bills: fake.port,
      contacts,
      sync: noSync,
      ledger,
      audit: createAuditLog(database.db, { warn: () => undefined }),
      appUrl: 'https://ledgerlink.example.com',
    });
    registerWriteKinds(ledger, service.writeKinds);
  });

  it('shows the 20 % deduction and 80 % amount due on the bill total, rounded down to the penny', () => {
    const draft = toDraftBill(
      {
        invoiceId: 'b',
        contactId: SUB_C,
        contactName: 'C',
        date: DAY,
        invoiceNumber: 'r',
        status: 'DRAFT',
        totalPence: 123_456,
        lines: [],
      } as never,
      {
        settings: { deductionAccountCode: '814', materialsAccountCodes: [], reverseCharge: false },
        accounts: [],
        contactRate: 20,
      },
    );
    // 20 % of £1,234.56 is £246.912: £246.91 deducted, £987.65 due.
    expect(draft).toMatchObject({ total: 1234.56, cisDeduction: 246.91, amountDue: 987.65, cisRate: 20 });
  });

  it('sends each line in pence as entered, due on its date, with no VAT without a bill VAT rate', async () => {
    const answer = await service.createBill(
      ctx,
      undefined,
      request(SUB_A, [
        { quantity: 1.5, unitAmount: 10.01 },
        { quantity: 1, unitAmount: 0.1 },
      ]),
    );
    expect(answer.status).toBe('DRAFT');
    expect(fake.sent[0]).toMatchObject({
      contactId: SUB_A,
      // The supplier's number exactly as typed; the write's mark is in the link back (decision 028).
      reference: '4726',
      url: expect.stringMatching(/^https:\/\/ledgerlink\.example\.com\/cis-invoices\?write=LL-[0-9a-f]{10}$/),
      dueDate: DAY,
      lineAmountTypes: 'NoTax',
      lines: [
        { quantity: 1.5, unitPence: 1001, accountCode: '321', taxType: null },
        { quantity: 1, unitPence: 10, accountCode: '321', taxType: null },
      ],
    });
  });

  it('sends a batch in one call; a bill Xero refuses does not stop the others; one log line per bill, naming the user', async () => {
    fake.refuse.add(SUB_B);
    const since = await lastAuditId();
    const results = await service.createBills(ctx, [
      {
        id: 'a',
        key: `k-${crypto.randomUUID()}`,
        request: request(SUB_A, [{ quantity: 1, unitAmount: 100 }], 'B1'),
      },
      {
        id: 'b',
        key: `k-${crypto.randomUUID()}`,
        request: request(SUB_B, [{ quantity: 1, unitAmount: 200 }], 'B2'),
      },
      {
        id: 'c',
        key: `k-${crypto.randomUUID()}`,
        request: request(SUB_A, [{ quantity: 2, unitAmount: 150 }], 'B3'),
      },
    ]);
    expect(fake.calls).toEqual([{ op: 'createMany', count: 3 }]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    const lines = await newLines(since);
    expect(lines.map((l) => [l.action, l.result]).sort()).toEqual([
      ['bill.create', 'failure'],
      ['bill.create', 'success'],
      ['bill.create', 'success'],
    ]);
    expect(lines.every((l) => l.username === 'cara')).toBe(true);
  });

  it('a batch goes through the one batcher: bills sorted by their keys, under a key made from them, whatever order they came in', async () => {
    const id = crypto.randomUUID();
    const bills = [
      { id: 'z', key: `z-${id}`, request: request(SUB_A, [{ quantity: 1, unitAmount: 10 }], 'Z1') },
      { id: 'm', key: `m-${id}`, request: request(SUB_B, [{ quantity: 1, unitAmount: 20 }], 'M1') },
      { id: 'a', key: `a-${id}`, request: request(SUB_A, [{ quantity: 1, unitAmount: 30 }], 'A1') },
    ];
    const results = await service.createBills(ctx, bills);
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      ['z', true],
      ['m', true],
      ['a', true],
    ]);
    // The same bills sent again (Xero's answer lost) make the same body under the same key, so Xero replays.
    expect(fake.batches).toEqual([
      { key: batchKeyOf(bills.map((b) => b.key)), references: ['A1', 'M1', 'Z1'] },
    ]);
  });

  it('a batch retried with the same keys replays: nothing is sent again and nothing is logged twice', async () => {
    const keys = [`r-${crypto.randomUUID()}`, `r-${crypto.randomUUID()}`];
    const bills = keys.map((key, i) => ({
      id: String(i),
      key,
      request: request(SUB_A, [{ quantity: 1, unitAmount: 40 + i }], `R${i}`),
    }));
    const since = await lastAuditId();
    const first = await service.createBills(ctx, bills);
    const again = await service.createBills(ctx, bills);
    expect(again).toEqual(first);
    expect(fake.calls).toEqual([{ op: 'createMany', count: 2 }]);
    expect(await newLines(since)).toHaveLength(2);
  });

  it('an amount change makes the labour line the gross typed and works the deduction line out again; approving codes a line without account, keeping its unit to 4 decimals, and books its deduction', async () => {
    const created = await service.createBill(
      ctx,
      undefined,
      request(SUB_C, [{ quantity: 1, unitAmount: 100 }], 'U1'),
    );
    expect(fake.sent.at(-1)?.lines).toMatchObject([
      { unitPence: 10_000, accountCode: '321' },
      {
        description: 'CIS deduction at 20%',
        quantity: 1,
        unitPence: -2_000,
        accountCode: '814',
        taxType: null,
      },
    ]);
    const deductionLineId = (fake.bills.get(created.invoiceID)?.lines as { lineItemId: string }[])[1]
      ?.lineItemId;
    const updated = await service.updateBill(ctx, created.invoiceID, 250.5, undefined);
    expect(fake.changes[0]).toMatchObject({
      status: 'DRAFT',
      lines: [
        { quantity: 1, unitPence: 25_050 },
        { lineItemId: deductionLineId, unitPence: -5_010, accountCode: '814' },
      ],
    });
    expect(updated).toMatchObject({ total: 250.5, cisDeduction: 50.1, amountDue: 200.4 });

    // A bill entered in Xero with an uncoded line of £12.3456 a unit.
    const bill = fake.bills.get(created.invoiceID);
    if (!bill) throw new Error('no bill');
    const uncoded = {
      ...bill,
      invoiceId: crypto.randomUUID(),
      lines: [
        {
          ...(bill.lines as object[])[0],
          accountCode: null,
          unitAmount: 12.3456,
          quantity: 2,
          lineAmountPence: 2_469,
        },
      ],
    } as Bill;
    fake.bills.set(uncoded.invoiceId, uncoded);
    await createCisBillsRepository(database.db).upsertBill({
      ...uncoded,
      organizationId: ctx.organizationId,
    });
    await service.approveBill(ctx, uncoded.invoiceId, '66666666-6666-4666-8666-666666666666', undefined);
    expect(fake.changes[1]).toMatchObject({
      status: 'AUTHORISED',
      lines: [
        { quantity: 2, unitPence: 1234.56, accountCode: '321' },
        // Entered in Xero without its deduction: approving books it, so Xero shows the net as due.
        // 20 % of £24.69, rounded down.
        { description: 'CIS deduction at 20%', unitPence: -493, accountCode: '814' },
      ],
    });
  });
  it("a create whose answer was lost is found by the mark in the bill's Url with one read, and answered as Xero has it", async () => {
    const bill = () => request(SUB_B, [{ quantity: 1, unitAmount: 61.25 }], '0726');
    // An earlier bill of the same contact, date, number and total, made by another write.
    const earlier = await service.createBill(ctx, `earlier-${crypto.randomUUID()}`, bill());
    const key = `lost-${crypto.randomUUID()}`;
    fake.next.loseAnswer = true;
    await expect(service.createBill(ctx, key, bill())).rejects.toThrow();
    const inXero = [...fake.bills.values()].filter((b) => b.contactId === SUB_B && b.totalPence === 6125);
    const lost = inXero.find((b) => b.invoiceId !== earlier.invoiceID);
    // Xero holds both under the number as typed; each one's Url carries its own write's mark.
    expect(inXero.map((b) => b.invoiceNumber)).toEqual(['0726', '0726']);
    expect(lost?.url).toMatch(/\/cis-invoices\?write=LL-[0-9a-f]{10}$/);
    fake.calls.length = 0;
    const again = await service.createBill(ctx, key, bill());
    expect(again).toMatchObject({ invoiceID: lost?.invoiceId, status: 'DRAFT' });
    expect(fake.calls).toEqual([{ op: 'listChangedForContact', count: 1 }]);
    expect([...fake.bills.values()].filter((b) => b.totalPence === 6125)).toHaveLength(2);
  });

  it('a bill written before decision 028, with the mark in its number, is still found by it', async () => {
    const key = `legacy-${crypto.randomUUID()}`;
    Object.assign(fake.next, { loseAnswer: true, legacy: true });
    await expect(
      service.createBill(ctx, key, request(SUB_A, [{ quantity: 1, unitAmount: 70.07 }], '0826')),
    ).rejects.toThrow();
    fake.next.legacy = false;
    const [held] = [...fake.bills.values()].filter((b) => b.totalPence === 7007);
    expect(held?.invoiceNumber).toMatch(/^0826 \[LL-[0-9a-f]{10}\]$/);
    const again = await service.createBill(
      ctx,
      key,
      request(SUB_A, [{ quantity: 1, unitAmount: 70.07 }], '0826'),
    );
    expect(again.invoiceID).toBe(held?.invoiceId);
    expect([...fake.bills.values()].filter((b) => b.totalPence === 7007)).toHaveLength(1);
  });
});
