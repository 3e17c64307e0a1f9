import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error';
import { readCacheOnly, refuseIfCacheOnly } from '../../xero/call-context';
import type { RequestContext } from '../organizations/tenancy';
import type { FigureSources } from './figures';
import type { PracticeRepository, ReadState } from './practice.repository';
import { createPracticeReader, type ReadOutcome } from './reader';

/** As the one HTTP path to Xero does (xero-http/http.ts): inside a cache-only read, the call never leaves. */
async function callXero(): Promise<void> {
  if (refuseIfCacheOnly())
    throw new AppError('XERO_UNAVAILABLE', 'Not read from Xero now: answered from what Ledgerlink holds.');
}

const ctx = {
  organizationId: 7,
  tenantId: 'tenant-7',
  userId: 1,
  username: 'owner',
  isAdmin: true,
  ip: '',
  organization: {
    id: 7,
    tenantId: 'tenant-7',
    tenantName: 'Demo Builders Ltd',
    featurePayInvoices: false,
    featureAddInvoices: false,
    featureCisBills: true,
    featureStockJournal: false,
    defaultStockJournalContactId: null,
  },
} as unknown as RequestContext;

/** Every resource the row is made of read whole: missingReads finds nothing to read, so the cache is tried. */
const allRead: ReadState = new Map(
  ['invoices:bills-draft', 'invoices:bills-paid', 'contacts', 'accounts'].map((r) => [
    r,
    { lastSyncAt: new Date(), initialReadAt: null },
  ]),
);

describe("the Today page's background reader (issue 47)", () => {
  it('reads from Xero a row whose cache answer failed for want of a refused call, instead of showing it failed', async () => {
    // CIS Returns' months ask Xero what changed in supplier credit notes when they open (issue 42): from the cache
    // alone that call is refused, and the refusal's error escapes the feature's code.
    // A read within the last seconds stands for the call (CREDIT_NOTES_FRESH_MS).
    let reads = 0;
    const sources = {
      listDraftBills: () => Promise.resolve([]),
      readCisMonth: async () => {
        if (reads === 0) await callXero();
        reads += 1;
        return null;
      },
      ensureView: () => Promise.resolve(),
      syncContacts: () => Promise.resolve(),
      syncAccounts: () => Promise.resolve(),
    } as unknown as FigureSources;
    const published: ReadOutcome[] = [];
    const reader = createPracticeReader({
      sources,
      repo: { findReadStates: () => Promise.resolve(new Map([[7, allRead]])) },
      stampOf: () => 's1',
      publish: (_id, outcome) => published.push(outcome),
      onStateChange: () => {},
    });
    reader.enqueue(ctx);
    await reader.close();
    expect(published.filter((o) => o.kind === 'failed')).toEqual([]);
    expect(published.at(-1)).toMatchObject({ kind: 'figures', complete: true });
    // Read in the background, where the call goes to Xero.
    expect(reads).toBeGreaterThan(0);
  });

  it('readCacheOnly: null when a call was refused (answered or thrown), the answer when none was, other errors thrown', async () => {
    expect(await readCacheOnly(() => Promise.resolve(3))).toBe(3);
    expect(await readCacheOnly(async () => callXero().then(() => 3))).toBeNull();
    expect(
      await readCacheOnly(async () => {
        await callXero().catch(() => {});
        return 3;
      }),
    ).toBeNull();
    await expect(readCacheOnly(() => Promise.reject(new Error('database gone')))).rejects.toThrow(
      'database gone',
    );
  });
});

describe('the Today page’s background reads at shutdown', () => {
  it('close() does not wait for a read that goes on (a SIGTERM must not hang on a large first read)', async () => {
    let reached = false;
    const warned: string[] = [];
    // A read that never ends: the database's answer never comes (a large organisation's first read, in effect).
    const repo = {
      findReadStates: () => {
        reached = true;
        return new Promise<never>(() => {});
      },
    } as unknown as PracticeRepository;
    const reader = createPracticeReader({
      sources: {} as never,
      repo,
      stampOf: () => 's',
      publish: () => {},
      onStateChange: () => {},
      log: { warn: (_o, m) => warned.push(m) },
    });
    const ctx = {
      organizationId: 7,
      organization: { featurePayInvoices: true },
    } as unknown as RequestContext;
    reader.enqueue(ctx);
    await expect.poll(() => reached).toBe(true);
    expect(reader.size).toBe(1);

    const closing = reader.close(50);
    let closed = false;
    void closing.then(() => (closed = true));
    await expect.poll(() => closed, { timeout: 5_000 }).toBe(true);
    // Nothing new starts after close.
    reader.enqueue({ ...ctx, organizationId: 8 } as RequestContext);
    expect(reader.size).toBe(1);
    expect(warned).toEqual([]);
  });
});
