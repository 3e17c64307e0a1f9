import { describe, expect, it } from 'vitest';
import { amountDue } from './invoice-math';
import { BUILDERS_CIS_ACCOUNTS, createSeed, SEED_NAMES } from './seed';
import { createPracticeSeed } from './seed-practice';
import { addDays, isoDay } from './xero-dates';

const NOW = Date.parse('2026-06-15T12:00:00Z');

describe('seed data', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = createSeed(1, 1, NOW);
    const b = createSeed(1, 1, NOW);
    const c = createSeed(2, 1, NOW);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(c.orgs[0]?.OrganisationID).not.toBe(a.orgs[0]?.OrganisationID);
  });

  it('serves Pay Invoices, Add Invoices and Stock Journal in Demo Shop Ltd', () => {
    const { orgs, users } = createSeed(1, 1, NOW);
    const shop = orgs.find((o) => o.Name === SEED_NAMES.shop);
    expect(shop).toBeDefined();
    if (!shop) return;
    const daily = shop.contacts.find((c) => c.Name === SEED_NAMES.dailySalesContact);
    const invoices = shop.invoices.filter((i) => i.ContactID === daily?.ContactID);
    expect(invoices.length).toBeGreaterThan(175);
    const today = isoDay(NOW);
    expect(invoices.some((i) => i.Date === today)).toBe(true);
    expect(invoices.every((i) => i.Date >= addDays(today, -184))).toBe(true);
    const status = (s: string) => invoices.filter((i) => i.Status === s);
    expect(status('PAID').length).toBeGreaterThan(50);
    expect(status('DRAFT').length).toBeGreaterThanOrEqual(5);
    const outstanding = status('AUTHORISED');
    expect(outstanding.some((i) => i.amountPaid > 0)).toBe(true);
    expect(outstanding.some((i) => i.amountPaid === 0)).toBe(true);
    expect(outstanding.some((i) => (i.DueDate ?? '') < today)).toBe(true);
    expect(outstanding.every((i) => amountDue(i) > 0)).toBe(true);
    expect(shop.attachments.some((a) => a.MimeType === 'image/png')).toBe(true);
    expect(shop.attachments.some((a) => a.MimeType === 'application/pdf')).toBe(true);
    const bank = shop.accounts.filter((a) => a.Type === 'BANK' && a.Status === 'ACTIVE');
    expect(bank.map((a) => `${a.Name}:${a.BankAccountType}`).sort()).toEqual([
      'Business Credit Card:CREDITCARD',
      'Business Current Account:BANK',
      'Cash:BANK',
    ]);
    expect(shop.accounts.find((a) => a.Code === '630')?.Type).toBe('INVENTORY');
    // Money invariants hold in the seed.
    for (const inv of shop.invoices) {
      const paid = shop.payments
        .filter((p) => p.InvoiceID === inv.InvoiceID && p.Status === 'AUTHORISED')
        .reduce((s, p) => s + p.amount, 0);
      expect(paid).toBe(inv.amountPaid);
      expect(inv.amountPaid).toBeLessThanOrEqual(inv.total);
      if (inv.Status === 'PAID') expect(amountDue(inv)).toBe(0);
      if (inv.Status === 'DRAFT') expect(inv.amountPaid).toBe(0);
    }
    const numbers = shop.invoices.filter((i) => i.Type === 'ACCREC').map((i) => i.InvoiceNumber);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(users.map((u) => u.email)).toEqual(Object.values(SEED_NAMES.users));
    expect(users[0]?.tenantIds).toHaveLength(2);
  });

  it('serves CIS Bills in Demo Builders Ltd', () => {
    const builders = createSeed(1, 1, NOW).orgs.find((o) => o.Name === SEED_NAMES.builders);
    if (!builders) throw new Error('missing');
    expect(builders.cis.contractor).toBe(true);
    const group = builders.contactGroups.find((g) => g.Name === SEED_NAMES.cisGroup);
    const subs = builders.contacts.filter((c) => group?.contactIds.includes(c.ContactID));
    expect(subs.length).toBeGreaterThanOrEqual(12);
    expect(subs.every((c) => c.IsSupplier)).toBe(true);
    expect(subs.some((c) => c.cis?.enabled && c.cis.rate === 20)).toBe(true);
    expect(subs.some((c) => c.cis?.enabled && c.cis.rate === 0)).toBe(true);
    expect(subs.some((c) => c.cis?.enabled && c.cis.rate === 30)).toBe(true);
    expect(subs.some((c) => !c.cis?.enabled)).toBe(true);
    const bills = builders.invoices.filter(
      (i) => i.Type === 'ACCPAY' && group?.contactIds.includes(i.ContactID),
    );
    expect(bills.filter((b) => b.Status === 'DRAFT').length).toBeGreaterThanOrEqual(5);
    expect(bills.filter((b) => b.Status === 'AUTHORISED').length).toBeGreaterThanOrEqual(5);
    expect(
      builders.accounts.filter((a) => a.Type === 'DIRECTCOSTS' && !a.SystemAccount).length,
    ).toBeGreaterThanOrEqual(5);
  });

  it('gives Demo Builders a careful contractor’s CIS history: every paid bill carries its deduction (issue 42)', () => {
    const builders = createSeed(1, 1, NOW).orgs.find((o) => o.Name === SEED_NAMES.builders);
    if (!builders) throw new Error('missing');
    const deductions = builders.accounts.find((a) => a.Code === BUILDERS_CIS_ACCOUNTS.deductions);
    // An ordinary liability account, not Xero's CIS Liability system account.
    expect(deductions).toMatchObject({ Name: 'CIS Deductions Payable', Class: 'LIABILITY' });
    expect(deductions?.SystemAccount).toBeUndefined();
    const byName = new Map(builders.contacts.map((c) => [c.ContactID, c]));
    const group = builders.contactGroups.find((g) => g.Name === SEED_NAMES.cisGroup);
    const subs = builders.contacts.filter((c) => group?.contactIds.includes(c.ContactID));
    // Each status: 20 % with and without VAT, 30 %, 0 %, and not CIS; the names people know.
    const status = (c: (typeof subs)[number]) =>
      `${c.cis?.enabled ? c.cis.rate : 'not CIS'}${c.TaxNumber ? ' VAT' : ''}`;
    expect(Object.fromEntries(subs.map((c) => [c.Name, status(c)]))).toMatchObject({
      'Hughes Groundworks Ltd': '20 VAT',
      'A. Patel Plastering': '20',
      'Stone & Sons Brickwork': '30',
      'R. Singh Tiling': '30',
      'Northside Electrical Ltd': '0 VAT',
      'Bright Spark Electrics': '0 VAT',
      "M. O'Connor Scaffolding": 'not CIS',
      'T. Evans Plumbing & Heating': 'not CIS VAT',
    });
    const bills = builders.invoices.filter(
      (i) => i.Type === 'ACCPAY' && group?.contactIds.includes(i.ContactID),
    );
    const code = (accountCode: string) => (l: { AccountCode?: string }) => l.AccountCode === accountCode;
    let ledgerlink = 0;
    let xero = 0;
    for (const bill of bills) {
      const sub = byName.get(bill.ContactID);
      const rate = sub?.cis?.enabled ? (sub.cis.rate ?? null) : null;
      const labour = bill.lines.filter((l) => l.AccountCode === '321' || l.AccountCode === '327');
      const labourNet = labour.reduce((s, l) => s + l.lineAmount, 0);
      const line = bill.lines.find(code(BUILDERS_CIS_ACCOUNTS.deductions));
      // No VAT for a subcontractor who charges none.
      if (!sub?.TaxNumber) expect(bill.totalTax).toBe(0);
      if (bill.lines.some(code('327'))) {
        xero++;
        expect(bill.cisDeduction).toBe(Math.round((labourNet * (rate ?? 0)) / 100));
        expect(line).toBeUndefined();
      } else if (rate !== null && rate > 0) {
        ledgerlink++;
        // rate × labour, excluding VAT and materials, rounded down; the line carries no VAT.
        expect(line?.lineAmount).toBe(-Math.floor((labourNet * rate) / 100));
        expect(line?.Description).toBe(`CIS deduction at ${rate}%`);
        expect(line?.taxAmount).toBe(0);
      } else {
        expect(line).toBeUndefined();
        expect(bill.cisDeduction).toBeUndefined();
      }
      // A paid bill was paid what was due, so Xero says Paid with nothing left.
      if (bill.Status === 'PAID') expect(amountDue(bill)).toBe(0);
    }
    expect(ledgerlink).toBeGreaterThan(50);
    expect(xero).toBeGreaterThan(3);
    expect(bills.some((b) => b.lines.some(code(BUILDERS_CIS_ACCOUNTS.materials)))).toBe(true);
  });

  // How fast it seeds is a benchmark figure (the bench seeds at scale 25 and reports its time), not a test:
  // a timed assertion fails on a busy machine without anything being wrong.
  it('scales to tens of thousands of invoices, every one with its own id', () => {
    const big = createSeed(1, 10, NOW);
    const invoices = big.orgs.flatMap((o) => o.invoices);
    expect(invoices.length).toBeGreaterThan(20_000);
    expect(new Set(invoices.map((i) => i.InvoiceID)).size).toBe(invoices.length);
  });

  it('seeds a practice: N client organisations for the owner, each with its mix of work (issue 47)', () => {
    const plain = createSeed(1, 2, NOW);
    const { orgs, users } = createPracticeSeed(1, 2, NOW, 6);
    expect(orgs).toHaveLength(8);
    const owner = users.find((u) => u.email === SEED_NAMES.users.owner);
    expect(owner?.tenantIds).toEqual(orgs.map((o) => o.OrganisationID));
    // The other users keep their demo organisation only.
    expect(users.filter((u) => u !== owner).every((u) => u.tenantIds.length === 1)).toBe(true);
    // The two demo organisations are the same as without clients.
    expect(JSON.stringify(orgs.slice(0, 2))).toBe(JSON.stringify(plain.orgs));
    const clients = orgs.slice(2);
    expect(new Set(clients.map((o) => o.Name)).size).toBe(6);
    expect(clients.map((o) => o.practiceKind)).toEqual([
      'shop',
      'contractor',
      'services',
      'shop',
      'contractor',
      'services',
    ]);
    for (const org of clients) {
      const awaiting = org.invoices.filter(
        (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && amountDue(i) > 0,
      );
      // 200 × scale, and a shop's few recent takings not yet paid.
      expect(awaiting.length).toBeGreaterThanOrEqual(400);
      expect(awaiting.length).toBeLessThan(420);
      expect(org.invoices.some((i) => i.Status === 'PAID')).toBe(true);
    }
    const shop = clients[0]!;
    expect(shop.contacts.some((c) => c.Name === SEED_NAMES.dailySalesContact)).toBe(true);
    expect(shop.journals.length).toBeGreaterThan(0);
    const contractor = clients[1]!;
    expect(contractor.cis.contractor).toBe(true);
    expect(contractor.contactGroups.some((g) => g.Name === SEED_NAMES.cisGroup)).toBe(true);
    expect(contractor.invoices.some((i) => i.Type === 'ACCPAY' && i.Status === 'DRAFT')).toBe(true);
    expect(contractor.payments.some((p) => p.PaymentType === 'ACCPAYPAYMENT')).toBe(true);
    // Deterministic for the seed.
    expect(JSON.stringify(createPracticeSeed(1, 2, NOW, 6))).toBe(JSON.stringify({ orgs, users }));
  });
});
