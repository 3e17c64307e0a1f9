import { describe, expect, it } from 'vitest';
import type { XeroInvoice } from '../xero-http/schemas';
import { readXeroCis, toInvoiceRow } from './mappers';

/**
 * Issue 42: both of Xero's reads of one bill give the same row. xero-node's recorded `singleInvoice` example (a
 * `GET /Invoices/{id}` answer for an ordinary supplier's bill) carries `CISDeduction: 0.00`; the list read of the
 * same bill carries no CIS field at all.
 */
describe('Xero’s CIS fields on a bill', () => {
  const listed: XeroInvoice = {
    InvoiceID: 'bbbbbbbb-0000-4000-8000-000000000001',
    Type: 'ACCPAY',
    InvoiceNumber: 'OIT00545',
    Contact: { ContactID: 'cccccccc-0000-4000-8000-000000000001', Name: 'Office Supplies Ltd' },
    Date: '/Date(1764201600000+0000)/',
    Status: 'AUTHORISED',
    LineAmountTypes: 'Exclusive',
    LineItems: [{ Description: 'Paper', Quantity: 1, UnitAmount: 50, AccountCode: '429', LineAmount: 50 }],
    SubTotal: 50,
    TotalTax: 10,
    Total: 60,
    AmountDue: 60,
    AmountPaid: 0,
    UpdatedDateUTC: '/Date(1764237600000+0000)/',
  };
  const single: XeroInvoice = { ...listed, CISDeduction: 0 };

  it('stores the single read and the list read of an ordinary bill alike: no deduction', () => {
    const a = toInvoiceRow(1, single);
    const b = toInvoiceRow(1, listed);
    expect(a.cisDeductionPence).toBeNull();
    expect(a.cisRate).toBeNull();
    expect({ ...a, syncedAt: null }).toEqual({ ...b, syncedAt: null });
  });

  it('keeps a deduction Xero computed, with its rate', () => {
    expect(readXeroCis({ CISDeduction: 180, CISRate: 30 })).toEqual({
      cisDeductionPence: 18_000,
      cisRate: '30',
    });
    // A rate with no deduction (a subcontractor at 0 %) says nothing Xero's contact settings do not.
    expect(readXeroCis({ CISDeduction: 0, CISRate: 0 })).toEqual({ cisDeductionPence: null, cisRate: null });
    expect(readXeroCis({ CISDeduction: null, CISRate: undefined })).toEqual({
      cisDeductionPence: null,
      cisRate: null,
    });
  });
});
