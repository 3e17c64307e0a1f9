import crypto from 'node:crypto';
import { and, desc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { getStockJournalReference } from '../../../shared/stock-journal';
import {
  auditLog,
  organizations,
  stockJournalEntries,
  users,
  xeroInvoices,
  xeroWrites,
} from '../../db/schema/index';
import { AppError } from '../../lib/app-error';
import type { BodyCache } from '../../lib/body-cache';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import type { Journal, JournalsPort, SalesPort, StockTransferJournal } from '../../xero/xero-port';
import type { XeroSync } from '../../xero/sync/sync.service';
import { createWriteLedger, registerWriteKinds } from '../../ledger/index';
import { createAuditLog } from '../audit/audit';
import type { RequestContext } from '../organizations/tenancy';
import { createStockJournalRepository } from './stock-journal.repository';
import {
  createStockJournalService,
  JOURNAL_MESSAGES,
  JOURNALS_FRESH_MS,
  PENDING_STATUS,
} from './stock-journal.service';

/** Xero's manual journals, in memory, with the failures a test asks for. */
function createFakeJournals() {
  const journals: Journal[] = [];
  const created: StockTransferJournal[] = [];
  const state = {
    /** How the next create fails: refused, lost after Xero applied it, or lost before (Xero never had it). */
    nextCreate: null as null | 'refused' | 'lost-applied' | 'lost-not-applied',
    readsFail: false,
    /** Reads of Xero's journals (list and listDated). */
    reads: 0,
  };
  const live = (j: Journal) => j.status !== 'DELETED' && j.status !== 'VOIDED';
  const port: JournalsPort = {
    async list() {
      state.reads += 1;
      if (state.readsFail) throw new AppError('XERO_UNAVAILABLE', 'Xero is unavailable');
      return { journals: [...journals], notModified: false };
    },
    async listDated(_ctx, fromDate, toDate) {
      state.reads += 1;
      if (state.readsFail) throw new AppError('XERO_UNAVAILABLE', 'Xero is unavailable');
      return journals.filter((j) => j.date !== null && j.date >= fromDate && j.date <= toDate);
    },
    async create(_ctx, journal) {
      const failure = state.nextCreate;
      state.nextCreate = null;
      if (failure === 'refused') throw new AppError('XERO_REJECTED', 'Account code is not valid');
      if (failure === 'lost-not-applied') throw new AppError('XERO_UNAVAILABLE', 'Xero answered 503');
      created.push(journal);
      const stored: Journal = {
        journalId: crypto.randomUUID(),
        narration: journal.narration,
        date: journal.date,
        status: journal.status,
        updatedAt: new Date(),
        debitPence: journal.amountPence,
      };
      journals.push(stored);
      if (failure === 'lost-applied') throw new Error('socket hang up');
      return stored;
    },
  };
  return { port, journals, created, state, live };
}

const CONTACT = '11111111-1111-4111-8111-111111111111';
const COST = '22222222-2222-4222-8222-222222222222';
const STOCK = '33333333-3333-4333-8333-333333333333';
// Monday 2 to Sunday 8 November 2026.
const WEEK = { periodStart: '2026-11-02', periodEnd: '2026-11-08' };
const NEXT = { periodStart: '2026-11-09', periodEnd: '2026-11-15' };

describe('Stock Journal money rules, against an in-memory Xero', () => {
  let database: TestDatabase;
  let tenant: RequestContext;
  let fake: ReturnType<typeof createFakeJournals>;
  let service: ReturnType<typeof createStockJournalService>;

  const body = (period: typeof WEEK, netAmount: number, marginRate = 1.35) => ({
    ...period,
    netAmount,
    contactId: CONTACT,
    stockAccountId: STOCK,
    costAccountId: COST,
    marginRate,
    reference: getStockJournalReference(period.periodStart, period.periodEnd),
  });
  const entryOf = async (period: typeof WEEK) =>
    (await service.listEntries(tenant)).find(
      (e) => e.periodStart === period.periodStart && e.periodEnd === period.periodEnd,
    );
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error as AppError,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    const [user] = await database.db.insert(users).values({ username: 'sam' }).returning();
    const [org] = await database.db
      .insert(organizations)
      .values({ tenantId: 'fake-tenant', defaultStockJournalPostingStatus: 'draft' })
      .returning();
    if (!user || !org) throw new Error('seed failed');
    tenant = {
      userId: user.id,
      username: 'sam',
      isAdmin: false,
      ip: '127.0.0.1',
      organization: org,
      organizationId: org.id,
      tenantId: 'fake-tenant',
    };
    // Net sales of the two weeks, as the invoice cache holds them: £1,000.00 and £333.33.
    const sale = (invoiceId: string, date: string, subTotalPence: number) => ({
      organizationId: org.id,
      invoiceId,
      type: 'ACCREC',
      status: 'AUTHORISED',
      contactId: CONTACT,
      date,
      subTotalPence,
      totalPence: subTotalPence,
    });
    await database.db
      .insert(xeroInvoices)
      .values([
        sale('s1', '2026-11-03', 60_000),
        sale('s2', '2026-11-06', 40_000),
        sale('s3', '2026-11-10', 33_333),
      ]);
  });
  afterAll(() => database.destroy());

  beforeEach(async () => {
    await database.db.delete(stockJournalEntries);
    fake = createFakeJournals();
    const ledger = createWriteLedger({ db: database.db });
    const noSync = {
      ensureInvoices: async () => undefined,
      syncInvoices: async () => undefined,
    } as unknown as XeroSync;
    const sales: SalesPort = { listInRange: async () => [] };
    service = createStockJournalService({
      repo: createStockJournalRepository(database.db),
      sync: noSync,
      journals: fake.port,
      sales,
      ledger,
      audit: createAuditLog(database.db, { warn: () => undefined }),
      bodies: {} as BodyCache,
      checkToken: async () => undefined,
    });
    registerWriteKinds(ledger, service.writeKinds);
  });

  it('posts cost = net ÷ margin rate to the penny, debit cost and credit stock, dated at the period end', async () => {
    const answer = await service.createJournal(tenant, body(WEEK, 1000));
    expect(answer.status).toBe('draft');
    // 100,000 ÷ 1.35 = 74,074.07… → 74,074 pence.
    expect(fake.created).toEqual([
      expect.objectContaining({
        amountPence: 74_074,
        costAccountId: COST,
        stockAccountId: STOCK,
        date: WEEK.periodEnd,
        status: 'DRAFT',
      }),
    ]);
    expect(await entryOf(WEEK)).toMatchObject({
      status: 'draft',
      amount: 740.74,
      netAmount: 1000,
      marginRate: 1.35,
    });
    // £333.33 ÷ 1.5 = £222.22 exactly.
    await service.createJournal(tenant, body(NEXT, 333.33, 1.5));
    expect(fake.created[1]?.amountPence).toBe(22_222);
  });

  it('refuses a net the cache does not hold, before anything is claimed or sent', async () => {
    const error = await failure(service.createJournal(tenant, body(WEEK, 999.99)));
    expect(error?.message).toBe(JOURNAL_MESSAGES.salesChanged);
    expect(fake.created).toHaveLength(0);
    expect(await entryOf(WEEK)).toBeUndefined();
  });

  it('never posts a week Xero already has a live journal for; a voided one does not count', async () => {
    const narration = getStockJournalReference(WEEK.periodStart, WEEK.periodEnd);
    fake.journals.push({
      journalId: 'voided-1',
      narration,
      date: WEEK.periodEnd,
      status: 'VOIDED',
      updatedAt: null,
      debitPence: 5_000,
    });
    fake.journals.push({
      journalId: 'posted-1',
      narration,
      date: WEEK.periodEnd,
      status: 'POSTED',
      updatedAt: null,
      debitPence: 70_000,
    });
    const error = await failure(service.createJournal(tenant, body(WEEK, 1000)));
    expect(error?.code).toBe('CONFLICT');
    expect(fake.created).toHaveLength(0);
    // The week shows Xero's journal: its amount is Xero's debit, its net and rate unknown.
    expect(await entryOf(WEEK)).toMatchObject({
      journalId: 'posted-1',
      status: 'posted',
      amount: 700,
      netAmount: null,
      marginRate: null,
    });

    fake.journals.splice(1, 1);
    await database.db.delete(stockJournalEntries);
    await service.createJournal(tenant, body(WEEK, 1000));
    expect(fake.created).toHaveLength(1);
  });

  it("a run of posts reads Xero's journals once; a post after the run reads again and never posts a week Xero has", async () => {
    await service.createJournal(tenant, body(WEEK, 1000));
    expect(fake.state.reads).toBe(1);
    // The next week straight after, and the list shown after it: no read of Xero's journals.
    await service.createJournal(tenant, body(NEXT, 333.33));
    await service.listEntries(tenant);
    expect(fake.state.reads).toBe(1);
    expect(fake.created).toHaveLength(2);

    // Later, someone posts a week in Xero itself; Ledgerlink's next post reads what changed first.
    const realNow = Date.now.bind(Date);
    const later = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + JOURNALS_FRESH_MS);
    try {
      await database.db.delete(stockJournalEntries);
      fake.journals.splice(0, fake.journals.length, {
        journalId: 'by-hand',
        narration: getStockJournalReference(WEEK.periodStart, WEEK.periodEnd),
        date: WEEK.periodEnd,
        status: 'DRAFT',
        updatedAt: new Date(),
        debitPence: 1_000,
      });
      const error = await failure(service.createJournal(tenant, body(WEEK, 1000)));
      expect(error?.code).toBe('CONFLICT');
      expect(fake.state.reads).toBe(2);
      expect(fake.created).toHaveLength(2);
      expect(await entryOf(WEEK)).toMatchObject({ journalId: 'by-hand', status: 'draft' });
    } finally {
      later.mockRestore();
    }
  });

  it('a create Xero refused or never applied frees the week at once and logs one failure', async () => {
    const [last] = await database.db
      .select({ id: auditLog.id })
      .from(auditLog)
      .orderBy(desc(auditLog.id))
      .limit(1);
    fake.state.nextCreate = 'refused';
    expect((await failure(service.createJournal(tenant, body(WEEK, 1000))))?.code).toBe('XERO_REJECTED');
    expect(await entryOf(WEEK)).toBeUndefined();

    fake.state.nextCreate = 'lost-not-applied';
    const lost = await failure(service.createJournal(tenant, body(WEEK, 1000)));
    expect(lost?.message).toBe(JOURNAL_MESSAGES.notPosted);
    expect(await entryOf(WEEK)).toBeUndefined();

    await service.createJournal(tenant, body(WEEK, 1000));
    expect(fake.journals.filter(fake.live)).toHaveLength(1);
    const lines = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, tenant.organizationId), gt(auditLog.id, last?.id ?? 0)));
    const creates = lines.filter((l) => l.action === 'stock-journal.create');
    expect(creates.map((l) => l.result).sort()).toEqual(['failure', 'failure', 'success']);
    expect(creates.every((l) => l.username === 'sam')).toBe(true);
  });

  it('a create whose answer was lost is looked up: Xero has it, so the user gets the journal, not an error', async () => {
    fake.state.nextCreate = 'lost-applied';
    const answer = await service.createJournal(tenant, body(WEEK, 1000));
    expect(answer.journalId).toBe(fake.journals[0]?.journalId);
    expect(fake.journals).toHaveLength(1);
    const [write] = await database.db
      .select()
      .from(xeroWrites)
      .where(eq(xeroWrites.xeroId, answer.journalId ?? ''));
    expect(write?.state).toBe('confirmed');
  });

  it('when Xero cannot be asked just before sending, nothing is sent and the week is not held', async () => {
    fake.state.readsFail = true;
    expect((await failure(service.createJournal(tenant, body(WEEK, 1000))))?.code).toBe('XERO_UNAVAILABLE');
    expect(fake.journals).toHaveLength(0);
    expect(await entryOf(WEEK)).toBeUndefined();
  });

  it("a pending entry a crash left without its write id takes the outcome of its period's newest write", async () => {
    // An earlier create of the week that Xero refused, then the one that posted.
    fake.state.nextCreate = 'refused';
    await failure(service.createJournal(tenant, body(WEEK, 1000)));
    const answer = await service.createJournal(tenant, body(WEEK, 1000));
    // The server stopped after the write but before the entry learnt of it.
    await database.db
      .update(stockJournalEntries)
      .set({ status: PENDING_STATUS, writeId: null, journalId: null })
      .where(eq(stockJournalEntries.organizationId, tenant.organizationId));
    // Xero cannot be read now: only the write ledger can tell.
    fake.state.readsFail = true;
    expect(await entryOf(WEEK)).toMatchObject({ journalId: answer.journalId, status: 'draft' });
    expect(fake.created).toHaveLength(1);
  });
});
