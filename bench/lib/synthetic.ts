/**
 * Cached invoices written straight into `xero_invoices` through Drizzle: the practical way to hold tens of
 * thousands of outstanding invoices for the load and memory benchmarks (syncing them through the sandbox
 * would measure the sandbox). The rows look like the sync's own (the mapper's shape: two lines, a payment
 * on some), and the view's sync state is marked done so the app serves them from the cache.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  organizations,
  userOrganizations,
  xeroInvoices,
  xeroSyncState,
} from '../../src/server/db/schema/index';
import type { Db } from '../../src/server/db/client';

/** The resource name the shared sync keeps the Pay Invoices view's state under (sync.service.ts). */
const SALES_OPEN_RESOURCE = 'invoices:sales-open';

/**
 * Adds `count` outstanding sales invoices to an organisation's cache, numbered from `from`: one
 * INSERT … SELECT over generate_series, so 100,000 rows take seconds rather than minutes of row-by-row
 * parameters. Each row has two lines (standard-rated and zero-rated takings), every fifth a part payment.
 */
export async function insertOutstandingInvoices(
  db: Db,
  organizationId: number,
  count: number,
  from = 1,
): Promise<void> {
  const last = from + count - 1;
  await db.execute(sql`
    insert into ${xeroInvoices} (
      organization_id, invoice_id, type, invoice_number, reference, contact_id, contact_name, status, line_amount_types,
      date, due_date, sub_total_pence, total_tax_pence, total_pence, amount_due_pence, amount_paid_pence, currency_code,
      sent_to_contact, has_attachments, lines, payments, updated_utc, synced_at
    )
    select ${organizationId}, gen_random_uuid()::text, 'ACCREC', 'INV-B' || lpad(n::text, 7, '0'),
      case when n % 2 = 0 then 'PO ' || (1000 + n % 9000) else '' end,
      gen_random_uuid()::text, 'Trade Customer ' || (n % 250), 'AUTHORISED', 'Inclusive',
      d, d + 30, total - vat, vat, total, total - paid, paid, 'GBP', n % 3 = 0, n % 4 = 0,
      jsonb_build_array(
        jsonb_build_object('lineItemId', gen_random_uuid(), 'description', 'Takings ' || d || ' - standard rated goods', 'quantity', 1,
          'unitAmount', standard / 100.0, 'accountCode', '200', 'accountId', null, 'taxType', 'OUTPUT2', 'taxAmountPence', vat, 'lineAmountPence', standard),
        jsonb_build_object('lineItemId', gen_random_uuid(), 'description', 'Takings ' || d || ' - zero rated food', 'quantity', 1,
          'unitAmount', food / 100.0, 'accountCode', '200', 'accountId', null, 'taxType', 'ZERORATEDOUTPUT', 'taxAmountPence', 0, 'lineAmountPence', food)
      ),
      case when paid > 0
        then jsonb_build_array(jsonb_build_object('paymentId', gen_random_uuid(), 'date', d, 'amountPence', paid, 'reference', 'Card payment for INV-B' || n))
        else '[]'::jsonb end,
      now() - (n % 700) * interval '1 day', now()
    from (
      select n, standard, food, round(standard / 6.0)::bigint as vat, standard + food as total,
        case when n % 5 = 0 then (standard + food) / 3 else 0 end as paid, current_date - (n % 700)::int as d
      from (
        select n, 5000 + (n * 7919) % 90000 as standard, 1000 + (n * 104729) % 30000 as food
        from generate_series(${from}::bigint, ${last}::bigint) as n
      ) amounts
    ) invoices
  `);
}

/** Marks the Pay Invoices view synced, so GET /api/xero/invoices serves the cache without asking Xero. */
export async function markSalesOpenSynced(db: Db, organizationId: number): Promise<void> {
  const now = new Date();
  await db
    .insert(xeroSyncState)
    .values({
      organizationId,
      resource: SALES_OPEN_RESOURCE,
      highWater: now,
      lastSyncAt: now,
      lastFullSyncAt: now,
    })
    .onConflictDoUpdate({
      target: [xeroSyncState.organizationId, xeroSyncState.resource],
      set: { lastSyncAt: now, leaseUntil: null },
    });
}

/** An organisation that exists only in the cache (no Xero behind it), linked to the user, Pay Invoices on. */
export async function insertCachedOrganization(db: Db, userId: number, name: string): Promise<number> {
  const [org] = await db
    .insert(organizations)
    .values({ tenantId: randomUUID(), tenantName: name, featurePayInvoices: true })
    .returning({ id: organizations.id });
  if (!org) throw new Error('organisation insert returned nothing');
  await db
    .insert(userOrganizations)
    .values({ userId, organizationId: org.id, connected: true, isActive: false });
  return org.id;
}
