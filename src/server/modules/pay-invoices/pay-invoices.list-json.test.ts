import { and, asc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceListResponseSchema } from '../../../shared/pay-invoices';
import { organizations, xeroInvoices } from '../../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../../test/database';
import { createPayInvoicesRepository } from './pay-invoices.repository';
import { toInvoiceDto } from './pay-invoices.service';

const PLACEHOLDER = JSON.stringify([{ attachmentId: 'placeholder', name: '', mimeType: '', url: '' }]);

/**
 * The outstanding-invoice list is written as JSON by the database (issue 19: memory). It must be the answer the
 * JavaScript mapping gives for the same rows, byte for byte: the same ETag whichever way it was built, and
 * nothing on screen changes. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
describe('Pay Invoices list written by the database', () => {
  let database: TestDatabase;
  let repo: ReturnType<typeof createPayInvoicesRepository>;
  let orgId: number;
  let otherOrgId: number;
  let emptyOrgId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    repo = createPayInvoicesRepository(db);
    const orgs = await db
      .insert(organizations)
      .values([{ tenantId: 'tenant-list-json' }, { tenantId: 'tenant-other' }, { tenantId: 'tenant-empty' }])
      .returning({ id: organizations.id });
    [orgId, otherOrgId, emptyOrgId] = orgs.map((o) => o.id) as [number, number, number];

    const base = { organizationId: orgId, type: 'ACCREC', status: 'AUTHORISED', currencyCode: 'GBP' };
    let n = 0;
    const invoice = (values: Partial<typeof xeroInvoices.$inferInsert>) => {
      n += 1;
      return {
        ...base,
        invoiceId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        invoiceNumber: `INV-${n}`,
        contactName: `Customer ${n}`,
        date: '2026-11-02',
        dueDate: '2026-11-30',
        totalPence: 12_000,
        amountDuePence: 12_000,
        ...values,
      };
    };
    await db.insert(xeroInvoices).values([
      invoice({}),
      invoice({ amountPaidPence: 1, amountDuePence: 11_999 }), // PARTIAL
      invoice({ sentToContact: true }), // SENT
      invoice({ invoiceNumber: null, contactName: null }),
      invoice({ date: null }), // the due date stands in
      // Neither date: the UK day it was read (23:30 UTC in summer is the next day in London).
      invoice({ date: null, dueDate: null, syncedAt: new Date('2026-06-30T23:30:00Z') }),
      invoice({ currencyCode: '' }),
      invoice({ currencyCode: 'USD' }),
      invoice({ hasAttachments: true }),
      // Pence that are not exact in binary: the answer prints what JavaScript prints.
      invoice({ totalPence: 1, amountDuePence: 1 }),
      invoice({ totalPence: 29, amountDuePence: 10 }),
      invoice({ totalPence: 3_333, amountDuePence: 1_005 }),
      invoice({ totalPence: 123_456_789, amountDuePence: 98_765_432_109 }),
      invoice({ totalPence: 0, amountDuePence: 7 }),
      // Text JSON must escape, and text it must not.
      invoice({ contactName: 'O\'Brien "Builders" \\ Sons\n\tLtd\u0001\u001f' }),
      invoice({ contactName: 'Café 中文 😀 </script> \u2028 \u007f /' }),
      // Ordered by date, then number as the database orders text, then id.
      invoice({ date: '2026-10-01', invoiceNumber: 'INV-10' }),
      invoice({ date: '2026-10-01', invoiceNumber: 'INV-9' }),
      invoice({ date: '2026-10-01', invoiceNumber: 'inv-2' }),
      invoice({ date: '2026-10-01', invoiceNumber: 'INV-SAME' }),
      invoice({ date: '2026-10-01', invoiceNumber: 'INV-SAME' }),
      invoice({ date: '2027-01-01' }),
      // Not outstanding, or not this organisation's: never listed.
      invoice({ status: 'DRAFT' }),
      invoice({ status: 'PAID', amountDuePence: 0 }),
      invoice({ amountDuePence: 0 }),
      invoice({ type: 'ACCPAY', invoiceNumber: 'BILL-1' }),
      invoice({ organizationId: otherOrgId, invoiceNumber: 'OTHER-1' }),
    ]);
  });

  afterAll(async () => {
    await database?.destroy();
  });

  it('is byte for byte the JavaScript mapping of the same rows', async () => {
    // The oracle: the outstanding rows read plainly and mapped in JavaScript, in the list's order.
    const i = xeroInvoices;
    const rows = await database.db
      .select()
      .from(i)
      .where(
        and(
          eq(i.organizationId, orgId),
          eq(i.type, 'ACCREC'),
          eq(i.status, 'AUTHORISED'),
          gt(i.amountDuePence, 0),
        ),
      )
      .orderBy(asc(i.date), asc(i.invoiceNumber), asc(i.invoiceId));
    const json = await repo.listOutstandingJson(orgId, PLACEHOLDER);
    expect(json).toBe(JSON.stringify(rows.map(toInvoiceDto)));

    const list = invoiceListResponseSchema.parse(JSON.parse(json));
    expect(list).toHaveLength(22);
    const numbers = list.map((i) => i.invoiceNumber);
    expect(numbers).not.toContain('BILL-1');
    expect(numbers).not.toContain('OTHER-1');
    expect(list.find((i) => i.dueDate === null)?.date).toBe('2026-07-01');
    expect(list.map((i) => i.status)).toEqual(expect.arrayContaining(['PARTIAL', 'SENT', 'AUTHORISED']));
    expect(list.find((i) => i.totalAmount === 1_234_567.89)?.amountDue).toBe(987_654_321.09);
    expect(list.filter((i) => i.attachments.length === 1)).toHaveLength(1);
    expect(list.filter((i) => i.currency === 'GBP')).toHaveLength(21);
  });

  it('is an empty list for an organisation with nothing outstanding', async () => {
    expect(await repo.listOutstandingJson(emptyOrgId, PLACEHOLDER)).toBe('[]');
  });
});
