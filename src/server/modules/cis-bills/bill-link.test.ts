import { describe, expect, it } from 'vitest';
import { withWriteMark, writeMarkOf } from '../../ledger/index';
import { billLinkOf, hasAnyBillMark, isBillOfWrite } from './bill-link';

describe("a CIS bill's write mark in Xero (decision 028)", () => {
  const key = 'b7c1f0e2-4d3a-4f55-9a0e-1c2d3e4f5a6b';
  const mark = writeMarkOf(key);

  it('is a link back to CIS Bills on APP_URL that carries the mark, a path in APP_URL kept', () => {
    expect(billLinkOf('https://ledgerlink.example.com', key)).toBe(
      `https://ledgerlink.example.com/cis-invoices?write=${mark}`,
    );
    expect(billLinkOf('https://example.com/ledgerlink', key)).toBe(
      `https://example.com/ledgerlink/cis-invoices?write=${mark}`,
    );
  });

  it("finds the write's bill by the mark in its Url, wherever APP_URL has moved since, and never another write's", () => {
    const url = billLinkOf('http://localhost:5000', key);
    expect(isBillOfWrite({ url, invoiceNumber: '0726' }, key)).toBe(true);
    expect(isBillOfWrite({ url: `https://moved.example.com/cis-invoices?write=${mark}` }, key)).toBe(true);
    expect(isBillOfWrite({ url, invoiceNumber: '0726' }, `${key}x`)).toBe(false);
    expect(isBillOfWrite({ url: 'not a link', invoiceNumber: '0726' }, key)).toBe(false);
    expect(isBillOfWrite({ url: null, invoiceNumber: '0726' }, key)).toBe(false);
    // The mark typed as a number is not a Url's mark: only `[LL-…]` after the number counts there.
    expect(isBillOfWrite({ url: null, invoiceNumber: mark }, key)).toBe(false);
  });

  it('still finds a bill written before, with the mark in its number', () => {
    expect(isBillOfWrite({ url: null, invoiceNumber: withWriteMark('0726', key) }, key)).toBe(true);
    expect(isBillOfWrite({ invoiceNumber: withWriteMark('0726', key) }, `${key}x`)).toBe(false);
  });

  it("tells a bill some write of Ledgerlink's made from one a person entered", () => {
    expect(hasAnyBillMark({ url: billLinkOf('https://a.example', key), invoiceNumber: '0726' })).toBe(true);
    expect(hasAnyBillMark({ invoiceNumber: withWriteMark('0726', key) })).toBe(true);
    expect(
      hasAnyBillMark({ url: 'https://a.example/cis-invoices?write=nonsense', invoiceNumber: '0726' }),
    ).toBe(false);
    expect(hasAnyBillMark({ url: null, invoiceNumber: '0726' })).toBe(false);
  });
});
