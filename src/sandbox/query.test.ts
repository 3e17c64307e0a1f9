import { describe, expect, it } from 'vitest';
import { XeroError } from './accounting/errors';
import { compileOrder, compileWhere, paginate, readPaging, type FieldMap } from './accounting/query';

interface Row {
  Type: string;
  Status: string;
  Amount: number;
  DateMs: number;
  Name: string;
  Supplier: boolean;
  ContactID: string;
}
const fields: FieldMap<Row> = {
  type: (r) => r.Type,
  status: (r) => r.Status,
  amountdue: (r) => r.Amount,
  date: (r) => ({ kind: 'date', ms: r.DateMs }),
  name: (r) => r.Name,
  issupplier: (r) => r.Supplier,
  'contact.contactid': (r) => r.ContactID,
};
const rows: Row[] = [
  {
    Type: 'ACCREC',
    Status: 'AUTHORISED',
    Amount: 10,
    DateMs: Date.UTC(2026, 0, 5),
    Name: 'Daily Sales',
    Supplier: false,
    ContactID: 'AAAA0000-0000-4000-8000-000000000001',
  },
  {
    Type: 'ACCREC',
    Status: 'PAID',
    Amount: 0,
    DateMs: Date.UTC(2026, 0, 6),
    Name: 'Green Leaf Cafe',
    Supplier: false,
    ContactID: 'aaaa0000-0000-4000-8000-000000000002',
  },
  {
    Type: 'ACCPAY',
    Status: 'AUTHORISED',
    Amount: 25.5,
    DateMs: Date.UTC(2026, 1, 1),
    Name: 'A. Patel Plastering',
    Supplier: true,
    ContactID: 'aaaa0000-0000-4000-8000-000000000003',
  },
];
const names = (where: string) =>
  rows.filter(compileWhere(where, fields, 'Invoice') ?? (() => true)).map((r) => r.Name);

describe('where', () => {
  it('supports comparisons, AND/OR/NOT, parentheses, dates, Guid and string methods', () => {
    expect(names('Type=="ACCREC" AND Status=="AUTHORISED"')).toEqual(['Daily Sales']);
    expect(names('Type == "ACCREC" && AmountDue > 0 || IsSupplier == true')).toEqual([
      'Daily Sales',
      'A. Patel Plastering',
    ]);
    expect(names('NOT (Type=="ACCREC")')).toEqual(['A. Patel Plastering']);
    expect(names('Date >= DateTime(2026, 01, 06) AND Date < DateTime(2026,02,01)')).toEqual([
      'Green Leaf Cafe',
    ]);
    expect(names('Contact.ContactID == Guid("aaaa0000-0000-4000-8000-000000000001")')).toEqual([
      'Daily Sales',
    ]);
    expect(names('Name.Contains("leaf")')).toEqual(['Green Leaf Cafe']);
    expect(names('Name.StartsWith("A.")')).toEqual(['A. Patel Plastering']);
    expect(names('IsSupplier')).toEqual(['A. Patel Plastering']);
    expect(names('AmountDue >= 25.5')).toEqual(['A. Patel Plastering']);
    expect(names("status == 'paid'")).toEqual(['Green Leaf Cafe']);
  });

  it('throws QueryParseException for unknown fields or bad syntax', () => {
    for (const bad of ['Nope=="x"', 'Type=="ACCREC" AND', 'Type=="unterminated', '(Type=="A"']) {
      let error: unknown;
      try {
        compileWhere(bad, fields, 'Invoice');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(XeroError);
      expect((error as XeroError).body).toMatchObject({ Type: 'QueryParseException' });
    }
  });
});

describe('order and paging', () => {
  it('orders by several keys', () => {
    const order = compileOrder('Type DESC, AmountDue ASC', fields, 'Invoice');
    expect([...rows].sort(order ?? (() => 0)).map((r) => r.Name)).toEqual([
      'Green Leaf Cafe',
      'Daily Sales',
      'A. Patel Plastering',
    ]);
  });

  it('pages from 1 with at most 1000 a page', () => {
    expect(readPaging({})).toBeNull();
    expect(readPaging({ page: '2', pagesize: '5000' })).toEqual({ page: 2, pageSize: 1000 });
    expect(readPaging({ page: '0' })).toEqual({ page: 1, pageSize: 100 });
    const p = paginate(
      Array.from({ length: 250 }, (_, i) => i),
      { page: 3, pageSize: 100 },
    );
    expect(p.items).toHaveLength(50);
    expect(p.pagination).toEqual({ page: 3, pageSize: 100, pageCount: 3, itemCount: 250 });
  });
});
