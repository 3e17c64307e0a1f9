/**
 * Cached invoices written straight into `xero_invoices` through Drizzle: the practical way to hold tens of
 * thousands of outstanding invoices for the load and memory benchmarks (syncing them through the sandbox
 * would measure the sandbox). The rows look like the sync's own (same mapper shape, two lines, a payment
 * on some), and the view's sync state is marked done so the app serves them from the cache.
 */
import { randomUUID } from 'node:crypto';
import { addDays, getUkToday } from '../../src/shared/dates';
import { organizations, userOrganizations, xeroInvoices, xeroSyncState } from '../../src/server/db/schema/index.ts';
import type { Db } from '../../src/server/db/client';

/** The resource name the shared sync keeps the Pay Invoices view's state under (sync.service.ts). */
const SALES_OPEN_RESOURCE = 'invoices:sales-open';

type InvoiceRow = typeof xeroInvoices.$inferInsert;

export function makeOutstandingInvoice(organizationId: number, n: number, today: string): InvoiceRow {
  const standard = 50_00 + ((n * 7919) % 900_00);
  const food = 10_00 + ((n * 104_729) % 300_00);
  const vat = Math.round(standard / 6);
  const total = standard + food;
  const paid = n % 5 === 0 ? Math.floor(total / 3) : 0;
  const date = addDays(today, -(n % 700));
  return {
    organizationId,
    invoiceId: randomUUID(),
    type: 'ACCREC',
    invoiceNumber: `INV-B${String(n).padStart(6, '0')}`,
    reference: n % 2 === 0 ? `PO ${1000 + (n % 9000)}` : '',
    contactId: randomUUID(),
    contactName: `Trade Customer ${n % 250}`,
    status: 'AUTHORISED',
    lineAmountTypes: 'Inclusive',
    date,
    dueDate: addDays(date, 30),
    subTotalPence: total - vat,
    totalTaxPence: vat,
    totalPence: total,
    amountDuePence: total - paid,
    amountPaidPence: paid,
    currencyCode: 'GBP',
    sentToContact: n % 3 === 0,
    hasAttachments: n % 4 === 0,
    lines: [
      { lineItemId: randomUUID(), description: `Takings ${date} - standard rated goods`, quantity: 1, unitAmount: standard / 100, accountCode: '200', accountId: null, taxType: 'OUTPUT2', taxAmountPence: vat, lineAmountPence: standard },
      { lineItemId: randomUUID(), description: `Takings ${date} - zero rated food`, quantity: 1, unitAmount: food / 100, accountCode: '200', accountId: null, taxType: 'ZERORATEDOUTPUT', taxAmountPence: 0, lineAmountPence: food },
    ],
    payments: paid > 0 ? [{ paymentId: randomUUID(), date, amountPence: paid, reference: `Card payment for INV-B${n}` }] : [],
    updatedUtc: new Date(Date.now() - (n % 700) * 86_400_000),
    syncedAt: new Date(),
  };
}

/** Adds `count` outstanding sales invoices to an organisation's cache, numbered from `from`. */
export async function insertOutstandingInvoices(db: Db, organizationId: number, count: number, from = 1): Promise<void> {
  const today = getUkToday();
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, i) => makeOutstandingInvoice(organizationId, from + start + i, today));
    await db.insert(xeroInvoices).values(rows);
  }
}

/** Marks the Pay Invoices view synced, so GET /api/xero/invoices serves the cache without asking Xero. */
export async function markSalesOpenSynced(db: Db, organizationId: number): Promise<void> {
  const now = new Date();
  await db
    .insert(xeroSyncState)
    .values({ organizationId, resource: SALES_OPEN_RESOURCE, highWater: now, lastSyncAt: now, lastFullSyncAt: now })
    .onConflictDoUpdate({ target: [xeroSyncState.organizationId, xeroSyncState.resource], set: { lastSyncAt: now, leaseUntil: null } });
}

/** An organisation that exists only in the cache (no Xero behind it), linked to the user, Pay Invoices on. */
export async function insertCachedOrganization(db: Db, userId: number, name: string): Promise<number> {
  const [org] = await db
    .insert(organizations)
    .values({ tenantId: randomUUID(), tenantName: name, featurePayInvoices: true })
    .returning({ id: organizations.id });
  if (!org) throw new Error('organisation insert returned nothing');
  await db.insert(userOrganizations).values({ userId, organizationId: org.id, connected: true, isActive: false });
  return org.id;
}
