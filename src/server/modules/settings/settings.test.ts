import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  organizations,
  xeroAccounts,
  xeroInvoices,
  xeroSyncState,
  xeroTaxRates,
  xeroWrites,
} from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, type XeroTestApp } from '../../test/xero';
import type { WriteKind } from '../../ledger/index';

type Item = { id: string; name: string; code?: string };
type Call = Awaited<ReturnType<typeof createConnectedUser>>['call'];

describe('settings, reference lists and clean-ups', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let stranger: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let buildersId: number;
  const shop: Record<string, string> = {};

  /** Xero calls (and writes) the sandbox saw while `work` ran. */
  async function measure<R>(work: () => Promise<R>) {
    t.sandbox.clearLedger();
    const result = await work();
    const ledger = t.sandbox.ledger();
    return {
      result,
      calls: ledger.totals.all,
      writes: ledger.writes.length,
      endpoints: ledger.calls.map((c) => `${c.method} ${c.endpoint}`),
    };
  }

  async function list(call: Call, path: string): Promise<Item[]> {
    const res = await call('GET', path);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Item[];
  }

  const byName = (items: Item[], name: string) => {
    const found = items.find((i) => i.name === name);
    if (!found) throw new Error(`${name} not in ${items.map((i) => i.name).join(', ')}`);
    return found.id;
  };

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    stranger = await createConnectedUser(t, 'stranger', {
      email: 'bookkeeper@demobuilders.example',
      tenants: ['Demo Builders Ltd'],
    });
    shopId = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
    buildersId = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    // Every account of the shop, by name, straight from the cache the lists fill.
    await list(owner.call, '/api/xero/sales-accounts');
    const rows = await t.database.db
      .select()
      .from(xeroAccounts)
      .where(eq(xeroAccounts.organizationId, shopId));
    for (const row of rows) shop[row.name] = row.accountId;
  });
  afterAll(() => t.close());

  describe('reference lists', () => {
    it('opening the settings screen on an organisation never synced costs 4 Xero calls, then none', async () => {
      const lists = [
        'settings/bank-accounts',
        'sales-accounts',
        'vat-rates',
        'bill-accounts',
        'asset-accounts',
        'cost-accounts',
        'contact-groups',
        'contacts',
      ];
      const open = () =>
        Promise.all(lists.map((path) => owner.call('GET', `/api/xero/${path}?org=${buildersId}`)));
      const first = await measure(open);
      expect(first.result.map((r) => r.statusCode)).toEqual(lists.map(() => 200));
      // Accounts once for the six account lists, tax rates once, one page of contacts, the contact groups.
      expect(first.endpoints.sort()).toEqual([
        'GET /api.xro/2.0/Accounts',
        'GET /api.xro/2.0/ContactGroups',
        'GET /api.xro/2.0/Contacts',
        'GET /api.xro/2.0/TaxRates',
      ]);
      expect(first.calls).toBe(4);
      const again = await measure(open);
      expect(again.calls).toBe(0);
    });

    it('offers only active accounts of the right kind, as {id, name, code}', async () => {
      const sales = await list(owner.call, '/api/xero/sales-accounts');
      expect(sales.map((a) => a.name)).toEqual(['Sales', 'Other Revenue', 'Interest Income']);
      expect(sales[0]).toEqual({ id: shop.Sales, name: 'Sales', code: '200' });

      const bill = (await list(owner.call, '/api/xero/bill-accounts')).map((a) => a.name);
      expect(bill).toContain('Cost of Goods Sold');
      expect(bill).toContain('Advertising');
      expect(bill).not.toContain('Sales');
      expect(bill).not.toContain('Accounts Payable');

      const asset = (await list(owner.call, '/api/xero/asset-accounts')).map((a) => a.name);
      expect(asset).toEqual(
        expect.arrayContaining(['Inventory', 'Stock - Shop Floor', 'Stock - Warehouse', 'Prepayments']),
      );
      for (const excluded of [
        'Business Current Account',
        'Cash',
        'Business Credit Card',
        'Accounts Receivable',
        'Sales',
      ])
        expect(asset).not.toContain(excluded);

      const cost = (await list(owner.call, '/api/xero/cost-accounts')).map((a) => a.name);
      expect(cost).toEqual(
        expect.arrayContaining(['Cost of Goods Sold', 'Cost of Sales - Food', 'Direct Wages']),
      );
      expect(cost).not.toContain('Inventory');

      const bank = (await owner.call('GET', '/api/xero/settings/bank-accounts')).json();
      expect(bank.creditCardAccounts.map((a: { name: string }) => a.name)).toEqual(['Business Credit Card']);
      expect(bank.cashAccounts.map((a: { name: string }) => a.name)).toEqual([
        'Business Current Account',
        'Cash',
      ]);
    });

    it('never offers system accounts for bills or journals', async () => {
      const bill = (await list(owner.call, `/api/xero/bill-accounts?org=${buildersId}`)).map((a) => a.name);
      expect(bill).toEqual(expect.arrayContaining(['Subcontractors', 'Materials', 'Plant Hire']));
      expect(bill).not.toContain('CIS Labour Expense');
      expect(bill).not.toContain('CIS Materials');
      const asset = (await list(owner.call, `/api/xero/asset-accounts?org=${buildersId}`)).map((a) => a.name);
      expect(asset).not.toContain('Accounts Receivable');
    });

    it('lists active VAT rates with their rate and where they may be used', async () => {
      const rates = (await owner.call('GET', '/api/xero/vat-rates')).json();
      expect(rates).toContainEqual({
        id: 'OUTPUT2',
        name: '20% (VAT on Income)',
        rate: 20,
        canApplyToRevenue: true,
        canApplyToExpenses: false,
      });
      expect(rates).toContainEqual({
        id: 'RRINPUT',
        name: '5% (VAT on Expenses)',
        rate: 5,
        canApplyToRevenue: false,
        canApplyToExpenses: true,
      });
      expect(rates).toContainEqual(expect.objectContaining({ id: 'NONE', rate: 0 }));
    });

    it('lists contact groups and searches contacts by name, and names chosen contacts', async () => {
      const groups = await list(owner.call, '/api/xero/contact-groups');
      expect(groups.map((g) => g.name)).toEqual(['Suppliers', 'Trade Customers']);
      const daily = await list(owner.call, '/api/xero/contacts?search=daily');
      expect(daily).toEqual([{ id: expect.any(String), name: 'Daily Sales' }]);
      const dailyId = daily[0]?.id ?? '';
      const none = await list(owner.call, '/api/xero/contacts?search=%25zz_no_such%25');
      expect(none).toEqual([]);
      const withChosen = await list(owner.call, `/api/xero/contacts?search=zzz&ids=${dailyId},none`);
      expect(withChosen).toEqual([{ id: dailyId, name: 'Daily Sales' }]);
      const all = await list(owner.call, '/api/xero/contacts');
      expect(all.length).toBeGreaterThan(5);
      expect(all.length).toBeLessThanOrEqual(50);
      const names = all.map((c) => c.name);
      expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    });

    it('reads from the cache, and ?refresh=true syncs that cache again', async () => {
      const cached = await measure(() => owner.call('GET', '/api/xero/sales-accounts'));
      expect(cached.calls).toBe(0);
      const refreshed = await measure(() => owner.call('GET', '/api/xero/sales-accounts?refresh=true'));
      expect(refreshed.calls).toBe(1);
      expect(refreshed.endpoints).toEqual(['GET /api.xro/2.0/Accounts']);
      const vat = await measure(() => owner.call('GET', '/api/xero/vat-rates?refresh=true'));
      expect(vat.calls).toBe(1);
      // `?refresh=1` means the same on every route (one parse of the flag, src/shared/input.ts).
      const one = await measure(() => owner.call('GET', '/api/xero/vat-rates?refresh=1'));
      expect(one.calls).toBe(1);
      const contacts = await measure(() => owner.call('GET', '/api/xero/contacts?search=a&refresh=true'));
      // One page of contacts changed since the last sync, and the groups.
      expect(contacts.calls).toBe(2);
      expect(contacts.writes + refreshed.writes + vat.writes + one.writes).toBe(0);
    });

    it('refuses an organisation the user is not linked to, and a signed-out visitor', async () => {
      for (const path of [
        'sales-accounts',
        'vat-rates',
        'bill-accounts',
        'asset-accounts',
        'cost-accounts',
        'contact-groups',
        'contacts',
        'settings/bank-accounts',
      ]) {
        const res = await stranger.call('GET', `/api/xero/${path}?org=${shopId}`);
        expect(res.statusCode, path).toBe(403);
        expect(res.json().message).toBe('You do not have access to this organization');
        const anonymous = await t.app.inject({ method: 'GET', url: `/api/xero/${path}` });
        expect(anonymous.statusCode).toBe(401);
      }
      const bad = await owner.call('GET', '/api/xero/sales-accounts?org=abc');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('Invalid organization ID');
    });

    it('works whatever the feature flags (settings are not behind one)', async () => {
      const [org] = await t.database.db.select().from(organizations).where(eq(organizations.id, buildersId));
      expect(org?.featureCisBills).toBe(false);
      expect((await stranger.call('GET', '/api/xero/bill-accounts')).statusCode).toBe(200);
      expect((await stranger.call('GET', '/api/xero/contact-groups')).statusCode).toBe(200);
    });
  });

  describe('PATCH /api/xero/settings', () => {
    it('saves every default, answers the new defaults, and the connection carries them', async () => {
      const dailyId = (await list(owner.call, '/api/xero/contacts?search=Daily Sales'))[0]?.id;
      const suppliers = byName(await list(owner.call, '/api/xero/contact-groups'), 'Suppliers');
      const body = {
        defaultCreditCardAccountId: shop['Business Credit Card'],
        defaultCashAccountId: shop.Cash,
        defaultSalesAccountId: shop.Sales,
        defaultVatRateId: 'OUTPUT2',
        defaultBillVatRateId: 'INPUT2',
        defaultBillAccountId: shop['Cost of Goods Sold'],
        defaultContactId: dailyId,
        defaultTaxStatus: 'Tax exclusive',
        defaultCisSubcontractorsGroupId: suppliers,
        defaultStockJournalContactId: dailyId,
        defaultStockJournalMarginRate: 1.5,
        defaultStockJournalStockAccountId: shop.Inventory,
        defaultStockJournalCostAccountId: shop['Cost of Goods Sold'],
        defaultStockJournalPostingStatus: 'posted',
      };
      const saved = await measure(() => owner.call('PATCH', '/api/xero/settings', body));
      expect(saved.result.statusCode, saved.result.body).toBe(200);
      expect(saved.result.json()).toEqual({ ...body, organizationId: shopId });
      // Accounts and tax rates were cached by the lists; contacts were too: nothing to ask Xero.
      expect(saved.calls).toBe(0);
      expect(saved.writes).toBe(0);
      const status = (await owner.call('GET', '/api/xero/connection')).json();
      expect(status).toMatchObject(body);

      const [entry] = await t.database.db
        .select()
        .from(auditLog)
        .where(
          and(
            eq(auditLog.action, 'settings.update'),
            eq(auditLog.organizationId, shopId),
            eq(auditLog.result, 'success'),
          ),
        );
      expect(entry?.username).toBe('owner');
      expect(entry?.target).toBe('Demo Shop Ltd');
      expect(entry?.detail).toMatchObject({
        before: {
          defaultCashAccountId: null,
          defaultTaxStatus: 'Tax inclusive',
          defaultStockJournalMarginRate: 1.35,
        },
        after: {
          defaultCashAccountId: shop.Cash,
          defaultTaxStatus: 'Tax exclusive',
          defaultStockJournalMarginRate: 1.5,
        },
      });
    });

    it('reads "none", "" and null as "no default"', async () => {
      const res = await owner.call('PATCH', '/api/xero/settings', {
        defaultContactId: 'none',
        defaultCisSubcontractorsGroupId: '',
        defaultBillVatRateId: null,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        defaultContactId: '',
        defaultCisSubcontractorsGroupId: '',
        defaultBillVatRateId: '',
      });
      const status = (await owner.call('GET', '/api/xero/connection')).json();
      expect(status.defaultContactId).toBe('');
      expect(status.defaultSalesAccountId).toBe(shop.Sales);
    });

    it('refuses a bank account as the stock account with a clear message', async () => {
      const res = await owner.call('PATCH', '/api/xero/settings', {
        defaultStockJournalStockAccountId: shop['Business Current Account'],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'Stock account: a bank account cannot be used in a stock journal. Choose an inventory or current asset account.',
      );
      expect((await owner.call('GET', '/api/xero/connection')).json().defaultStockJournalStockAccountId).toBe(
        shop.Inventory,
      );
      const [failure] = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'settings.update'), eq(auditLog.result, 'failure')));
      expect(failure?.detail).toMatchObject({ reason: expect.stringContaining('Stock account') });
    });

    const refusals: Array<[string, () => Record<string, unknown>, string]> = [
      [
        'a cash account as the card account',
        () => ({ defaultCreditCardAccountId: shop.Cash }),
        'Credit card account: "Cash" is not a credit card account. Choose a credit card account.',
      ],
      [
        'an archived card account',
        () => ({ defaultCreditCardAccountId: shop['Old Credit Card'] }),
        'Credit card account: "Old Credit Card" is archived in Xero. Choose an active account.',
      ],
      [
        'a sales account as the card account',
        () => ({ defaultCreditCardAccountId: shop.Sales }),
        'Credit card account: "Sales" is not a bank account. Choose a credit card account.',
      ],
      [
        'a card as the cash account',
        () => ({ defaultCashAccountId: shop['Business Credit Card'] }),
        'Cash account: "Business Credit Card" is a credit card account. Choose a bank account such as Cash.',
      ],
      [
        'a revenue account as the cash account',
        () => ({ defaultCashAccountId: shop.Sales }),
        'Cash account: "Sales" is not a bank account. Choose a bank account such as Cash.',
      ],
      [
        'a cost account as the sales account',
        () => ({ defaultSalesAccountId: shop['Cost of Goods Sold'] }),
        'Sales account: "Cost of Goods Sold" is not a revenue account. Choose a sales account.',
      ],
      [
        'an expenses VAT rate on sales',
        () => ({ defaultVatRateId: 'INPUT2' }),
        'VAT rate: "20% (VAT on Expenses)" cannot be used on sales. Choose a VAT rate for income.',
      ],
      [
        'an income VAT rate on bills',
        () => ({ defaultBillVatRateId: 'OUTPUT2' }),
        'Bill VAT rate: "20% (VAT on Income)" cannot be used on bills. Choose a VAT rate for expenses.',
      ],
      [
        'an unknown VAT rate',
        () => ({ defaultVatRateId: 'TAX999' }),
        'VAT rate: the VAT rate was not found in Xero. Refresh the settings and choose again.',
      ],
      [
        'a revenue account for bills',
        () => ({ defaultBillAccountId: shop.Sales }),
        'Bill account: "Sales" is not a direct costs, expense or overheads account.',
      ],
      [
        'a system account as the stock account',
        () => ({ defaultStockJournalStockAccountId: shop['Accounts Receivable'] }),
        'Stock account: "Accounts Receivable" is a system account that cannot be used in a manual journal. Choose an inventory or current asset account.',
      ],
      [
        'a revenue account as the stock account',
        () => ({ defaultStockJournalStockAccountId: shop.Sales }),
        'Stock account: "Sales" is not an asset account. Choose an inventory or current asset account.',
      ],
      [
        'a bank account as the cost account',
        () => ({ defaultStockJournalCostAccountId: shop.Cash }),
        'Cost account: a bank account cannot be used in a stock journal. Choose a cost of sales or expense account.',
      ],
      [
        'an asset as the cost account',
        () => ({ defaultStockJournalCostAccountId: shop['Stock - Shop Floor'] }),
        'Cost account: "Stock - Shop Floor" is not a cost of sales or expense account. Choose a cost of sales or expense account.',
      ],
      [
        'the stock account as the cost account',
        () => ({ defaultStockJournalCostAccountId: shop.Inventory }),
        'Cost account: the cost account must differ from the stock account, or the journal would move nothing.',
      ],
      [
        'an unknown account',
        () => ({ defaultSalesAccountId: '00000000-0000-4000-8000-000000000000' }),
        'Sales account: the account was not found in Xero. Refresh the settings and choose again.',
      ],
      [
        'an unknown contact',
        () => ({ defaultContactId: '00000000-0000-4000-8000-000000000000' }),
        'Default contact: the contact was not found in Xero. Search for it again.',
      ],
      [
        'an unknown stock journal contact',
        () => ({ defaultStockJournalContactId: 'not-a-contact' }),
        'Stock journal contact: the contact was not found in Xero. Search for it again.',
      ],
      [
        'an unknown contact group',
        () => ({ defaultCisSubcontractorsGroupId: 'not-a-group' }),
        'CIS subcontractors group: the contact group was not found in Xero. Refresh the CIS settings and choose again.',
      ],
      [
        'a margin rate under 1',
        () => ({ defaultStockJournalMarginRate: 0.5 }),
        'Margin rate must be at least 1',
      ],
      [
        'a margin rate with 3 decimals',
        () => ({ defaultStockJournalMarginRate: 1.355 }),
        'Margin rate must have at most 2 decimals',
      ],
      [
        'a margin rate as text',
        () => ({ defaultStockJournalMarginRate: 'abc' }),
        'Margin rate must be a number',
      ],
      [
        'an unknown tax status',
        () => ({ defaultTaxStatus: 'VAT' }),
        'Tax status must be "Tax inclusive", "Tax exclusive" or "No tax"',
      ],
      [
        'an unknown posting status',
        () => ({ defaultStockJournalPostingStatus: 'POSTED' }),
        'Posting status must be "draft" or "posted"',
      ],
    ];
    for (const [what, body, message] of refusals) {
      it(`refuses ${what}`, async () => {
        const res = await owner.call('PATCH', '/api/xero/settings', body());
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().message).toBe(message);
      });
    }

    it('refuses unknown fields and a body that is not JSON, never with a 5xx', async () => {
      const unknown = await owner.call('PATCH', '/api/xero/settings', { featurePayInvoices: true });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().message).toContain('featurePayInvoices');
      const text = await t.app.inject({
        method: 'PATCH',
        url: '/api/xero/settings',
        headers: { cookie: owner.cookie, origin: TEST_ORIGIN, 'content-type': 'application/json' },
        payload: '{not json',
      });
      expect(text.statusCode).toBe(400);
    });

    it('refuses CIS system accounts for bills (Xero does not accept them there)', async () => {
      const rows = await t.database.db
        .select()
        .from(xeroAccounts)
        .where(eq(xeroAccounts.organizationId, buildersId));
      const cisLabour = rows.find((r) => r.name === 'CIS Labour Expense')?.accountId;
      const res = await owner.call('PATCH', `/api/xero/settings?org=${buildersId}`, {
        defaultBillAccountId: cisLabour,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'Bill account: "CIS Labour Expense" is a system account that Xero does not accept on bills. Choose another direct costs account.',
      );
      const ok = await owner.call('PATCH', '/api/xero/settings', {
        organizationId: buildersId,
        defaultBillAccountId: rows.find((r) => r.name === 'Subcontractors')?.accountId,
      });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().organizationId).toBe(buildersId);
      // The shop's defaults did not move.
      expect((await owner.call('GET', '/api/xero/connection')).json().defaultBillAccountId).toBe(
        shop['Cost of Goods Sold'],
      );
    });

    it('refuses a VAT rate Xero no longer has active', async () => {
      await t.database.db
        .update(xeroTaxRates)
        .set({ status: 'ARCHIVED' })
        .where(and(eq(xeroTaxRates.organizationId, shopId), eq(xeroTaxRates.taxType, 'RROUTPUT')));
      const res = await owner.call('PATCH', '/api/xero/settings', { defaultVatRateId: 'RROUTPUT' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        'VAT rate: "5% (VAT on Income)" is not active in Xero. Choose an active VAT rate.',
      );
      expect((await list(owner.call, '/api/xero/vat-rates')).map((r) => r.id)).not.toContain('RROUTPUT');
      await t.database.db
        .update(xeroTaxRates)
        .set({ status: 'ACTIVE' })
        .where(and(eq(xeroTaxRates.organizationId, shopId), eq(xeroTaxRates.taxType, 'RROUTPUT')));
    });

    it('checks only what changed: a saved default that went stale does not block other changes', async () => {
      await t.database.db
        .update(xeroAccounts)
        .set({ status: 'ARCHIVED' })
        .where(and(eq(xeroAccounts.organizationId, shopId), eq(xeroAccounts.accountId, shop.Cash ?? '')));
      const res = await owner.call('PATCH', '/api/xero/settings', {
        defaultCashAccountId: shop.Cash,
        defaultStockJournalMarginRate: 1.4,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().defaultStockJournalMarginRate).toBe(1.4);
      await t.database.db
        .update(xeroAccounts)
        .set({ status: 'ACTIVE' })
        .where(and(eq(xeroAccounts.organizationId, shopId), eq(xeroAccounts.accountId, shop.Cash ?? '')));
    });

    it('syncs a never-synced cache first: the first save costs one call per reference kind', async () => {
      const res = await stranger.call('PATCH', '/api/xero/settings', {
        defaultTaxStatus: 'No tax',
        defaultStockJournalMarginRate: 2,
      });
      expect(res.statusCode).toBe(200);
      // As if the organisation's VAT rates had never been read.
      await t.database.db.delete(xeroTaxRates).where(eq(xeroTaxRates.organizationId, buildersId));
      await t.database.db
        .delete(xeroSyncState)
        .where(and(eq(xeroSyncState.organizationId, buildersId), eq(xeroSyncState.resource, 'tax-rates')));
      const firstVat = await measure(() =>
        stranger.call('PATCH', '/api/xero/settings', { defaultBillVatRateId: 'INPUT2' }),
      );
      expect(firstVat.result.statusCode, firstVat.result.body).toBe(200);
      expect(firstVat.endpoints).toEqual(['GET /api.xro/2.0/TaxRates']);
      const again = await measure(() =>
        stranger.call('PATCH', '/api/xero/settings', { defaultVatRateId: 'OUTPUT2' }),
      );
      expect(again.calls).toBe(0);
    });

    it("refuses another user's organisation and a signed-out visitor", async () => {
      const res = await stranger.call('PATCH', `/api/xero/settings?org=${shopId}`, {
        defaultTaxStatus: 'No tax',
      });
      expect(res.statusCode).toBe(403);
      const inBody = await stranger.call('PATCH', '/api/xero/settings', {
        organizationId: shopId,
        defaultTaxStatus: 'No tax',
      });
      expect(inBody.statusCode).toBe(403);
      const anonymous = await t.app.inject({
        method: 'PATCH',
        url: '/api/xero/settings',
        headers: { origin: TEST_ORIGIN },
        payload: { defaultTaxStatus: 'No tax' },
      });
      expect(anonymous.statusCode).toBe(401);
      expect((await owner.call('GET', '/api/xero/connection')).json().defaultTaxStatus).toBe('Tax exclusive');
    });

    it('saves with every feature switched off', async () => {
      await t.database.db
        .update(organizations)
        .set({
          featurePayInvoices: false,
          featureAddInvoices: false,
          featureCisBills: false,
          featureStockJournal: false,
        })
        .where(eq(organizations.id, shopId));
      const res = await owner.call('PATCH', '/api/xero/settings', {
        defaultStockJournalPostingStatus: 'draft',
      });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('clean-ups', () => {
    it('drops cached bank accounts Xero no longer has, with one read and no write', async () => {
      const stale = {
        organizationId: shopId,
        accountId: '11111111-2222-4333-8444-555555555555',
        name: 'Cash',
        type: 'BANK',
        class: 'ASSET',
        status: 'ACTIVE',
        bankAccountType: 'BANK',
      };
      await t.database.db.insert(xeroAccounts).values(stale);
      const before = await t.database.db
        .select()
        .from(xeroAccounts)
        .where(eq(xeroAccounts.organizationId, shopId));
      const run = await measure(() => owner.call('POST', '/api/xero/bank-accounts/cleanup'));
      expect(run.result.statusCode, run.result.body).toBe(200);
      expect(run.result.json()).toEqual({ deletedCount: 1 });
      expect(run.endpoints).toEqual(['GET /api.xro/2.0/Accounts']);
      expect(run.writes).toBe(0);
      const after = await t.database.db
        .select()
        .from(xeroAccounts)
        .where(eq(xeroAccounts.organizationId, shopId));
      expect(after.length).toBe(before.length - 1);
      expect(after.some((a) => a.accountId === stale.accountId)).toBe(false);
      expect(after.filter((a) => a.name === 'Cash')).toHaveLength(1);
      const second = await owner.call('POST', '/api/xero/bank-accounts/cleanup');
      expect(second.json()).toEqual({ deletedCount: 0 });
      const [entry] = await t.database.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, 'settings.cleanup.bank-accounts'))
        .orderBy(auditLog.id);
      expect(entry).toMatchObject({ organizationId: shopId, result: 'success', detail: { deletedCount: 1 } });
    });

    it('drops finished invoices and confirmed payments older than three months from the cache only', async () => {
      const ctx = {
        organizationId: shopId,
        tenantId: owner.orgs.find((o) => o.organizationId === shopId)?.tenantId ?? '',
        userId: owner.user.id,
      };
      await t.parts.sync.syncInvoices(ctx, { key: 'sales-open' });
      const invoice = (id: string, status: string, date: string) => ({
        organizationId: shopId,
        invoiceId: id,
        type: 'ACCREC',
        status,
        date,
      });
      await t.database.db
        .insert(xeroInvoices)
        .values([
          invoice('old-paid', 'PAID', '2020-01-10'),
          invoice('old-voided', 'VOIDED', '2020-02-10'),
          invoice('old-open', 'AUTHORISED', '2020-01-10'),
          invoice('old-draft', 'DRAFT', '2020-01-10'),
          invoice('new-paid', 'PAID', new Date().toISOString().slice(0, 10)),
        ]);
      await t.database.db
        .insert(xeroSyncState)
        .values({ organizationId: shopId, resource: 'invoices:contact:someone', lastSyncAt: new Date() });
      const old = new Date('2020-03-01T10:00:00Z');
      const write = (
        key: string,
        state: 'confirmed' | 'failed',
        completedAt: Date,
        kind: WriteKind = 'payment',
      ) => ({
        organizationId: shopId,
        userId: owner.user.id,
        kind,
        idempotencyKey: key,
        fingerprint: key,
        state,
        request: {},
        completedAt,
      });
      await t.database.db
        .insert(xeroWrites)
        .values([
          write('old-payment', 'confirmed', old),
          write('old-payment-deletion', 'confirmed', old, 'payment.delete'),
          write('old-failed-payment', 'failed', old),
          write('old-journal', 'confirmed', old, 'journal.create'),
          write('new-payment', 'confirmed', new Date()),
        ]);
      const openBefore = await t.database.db
        .select()
        .from(xeroInvoices)
        .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')));

      const run = await measure(() => owner.call('POST', `/api/xero/data/cleanup?org=${shopId}`));
      expect(run.result.statusCode, run.result.body).toBe(200);
      expect(run.result.json()).toEqual({ deletedInvoices: 2, deletedPayments: 2 });
      expect(run.calls).toBe(0);

      const left = await t.database.db
        .select({ id: xeroInvoices.invoiceId })
        .from(xeroInvoices)
        .where(eq(xeroInvoices.organizationId, shopId));
      const ids = left.map((r) => r.id);
      expect(ids).toEqual(expect.arrayContaining(['old-open', 'old-draft', 'new-paid']));
      expect(ids).not.toContain('old-paid');
      const openAfter = await t.database.db
        .select()
        .from(xeroInvoices)
        .where(and(eq(xeroInvoices.organizationId, shopId), eq(xeroInvoices.status, 'AUTHORISED')));
      expect(openAfter.length).toBe(openBefore.length);
      const writes = (
        await t.database.db.select().from(xeroWrites).where(eq(xeroWrites.organizationId, shopId))
      ).map((w) => w.idempotencyKey);
      expect(writes.sort()).toEqual(['new-payment', 'old-failed-payment', 'old-journal']);
      // The per-customer views will be fetched afresh instead of missing the invoices cleaned up.
      const views = await t.database.db
        .select()
        .from(xeroSyncState)
        .where(eq(xeroSyncState.organizationId, shopId));
      expect(views.map((v) => v.resource)).not.toContain('invoices:contact:someone');
      expect(views.map((v) => v.resource)).toContain('invoices:sales-open');
      const [entry] = await t.database.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, 'settings.cleanup.data'));
      expect(entry).toMatchObject({
        organizationId: shopId,
        detail: { deletedInvoices: 2, deletedPayments: 2 },
      });
    });

    it("never cleans another user's organisation", async () => {
      for (const path of ['/api/xero/bank-accounts/cleanup', '/api/xero/data/cleanup']) {
        const res = await stranger.call('POST', `${path}?org=${shopId}`);
        expect(res.statusCode).toBe(403);
        const anonymous = await t.app.inject({ method: 'POST', url: path, headers: { origin: TEST_ORIGIN } });
        expect(anonymous.statusCode).toBe(401);
      }
    });
  });
});
