/**
 * Contract tests: every sandbox answer Ledgerlink uses validates against Xero's own OpenAPI files
 * (../shared/xero-openapi). Skipped with a loud message naming where they are expected when absent (npm test
 * repeats it above its last line); required in CI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOracle, OPENAPI_DIR, type Oracle } from './openapi-oracle';
import type { Sandbox } from './sandbox';
import { api, connect, startTestSandbox, tenantByName } from './test/sandbox';

const oracle: Oracle | null = await loadOracle();
const MISSING = `Xero's OpenAPI files were not found: expected xero_accounting.yaml and xero-identity.yaml in ${OPENAPI_DIR}`;
if (!oracle) console.warn(`\n!! [contract] contract tests SKIPPED. ${MISSING}\n`);

describe('the OpenAPI oracle', () => {
  it('is present in CI', () => {
    if (process.env.CI === 'true') expect(oracle, `${OPENAPI_DIR} is required in CI`).not.toBeNull();
  });
});

describe.skipIf(!oracle)(
  oracle
    ? 'sandbox answers match Xero’s OpenAPI'
    : `sandbox answers match Xero’s OpenAPI (SKIPPED: ${MISSING})`,
  () => {
    let sandbox: Sandbox;
    let token = '';
    let shop = '';
    let builders = '';
    const o = oracle as Oracle;

    beforeAll(async () => {
      sandbox = await startTestSandbox({ minuteLimit: 10_000, concurrentLimit: 50 });
      const c = await connect(sandbox);
      token = c.tokens.access_token;
      shop = tenantByName(c.tenants, 'Demo Shop Ltd');
      builders = tenantByName(c.tenants, 'Demo Builders Ltd');
    });
    afterAll(async () => {
      await sandbox.close();
    });

    async function check<T = Record<string, unknown>>(
      method: string,
      specPath: string,
      url: string,
      opts: { tenant?: string; body?: unknown; status?: number } = {},
    ): Promise<T> {
      if (opts.body !== undefined && method !== 'GET')
        expect(o.validateRequest(method, specPath, opts.body), `request ${method} ${specPath}`).toEqual([]);
      const res = await api<T>(sandbox, token, opts.tenant ?? shop, method, url, opts.body);
      expect(res.status, `${method} ${url}: ${res.text.slice(0, 300)}`).toBe(opts.status ?? 200);
      expect(
        o.validateResponse('accounting', method, specPath, res.status, res.body),
        `${method} ${url}`,
      ).toEqual([]);
      return res.body;
    }

    it('the oracle itself rejects answers that break the schemas', () => {
      expect(
        o.validateResponse('accounting', 'GET', '/Invoices', 200, { Invoices: [{ AmountDue: '12.00' }] }),
      ).not.toEqual([]);
      expect(o.validateResponse('accounting', 'PUT', '/Invoices', 400, { ErrorNumber: 'ten' })).not.toEqual(
        [],
      );
      expect(
        o.validateRequest('PUT', '/Invoices', { Invoices: [{ LineAmountTypes: 'NO_TAX' }] }),
      ).not.toEqual([]);
    });

    it('GET /connections', async () => {
      const res = await fetch(`${sandbox.url}/connections`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body: unknown = await res.json();
      expect(o.validateResponse('identity', 'GET', '/Connections', 200, body)).toEqual([]);
    });

    it('Organisation, its CIS settings, Accounts, TaxRates', async () => {
      const orgs = await check<{ Organisations: { OrganisationID: string }[] }>(
        'GET',
        '/Organisation',
        '/Organisation',
        { tenant: builders },
      );
      await check(
        'GET',
        '/Organisation/{OrganisationID}/CISSettings',
        `/Organisation/${orgs.Organisations[0]?.OrganisationID}/CISSettings`,
        { tenant: builders },
      );
      const accounts = await check<{ Accounts: { AccountID: string }[] }>('GET', '/Accounts', '/Accounts');
      await check('GET', '/Accounts', `/Accounts?where=${encodeURIComponent('Type=="BANK"')}`);
      await check('GET', '/Accounts/{AccountID}', `/Accounts/${accounts.Accounts[0]?.AccountID}`);
      await check('GET', '/TaxRates', '/TaxRates');
    });

    it('Contacts, contact CIS settings, ContactGroups', async () => {
      const contacts = await check<{ Contacts: { ContactID: string }[] }>(
        'GET',
        '/Contacts',
        '/Contacts?page=1&pageSize=100',
        { tenant: builders },
      );
      await check('GET', '/Contacts', '/Contacts', { tenant: builders });
      await check('GET', '/Contacts', '/Contacts?page=1&summaryOnly=true&searchTerm=ltd', {
        tenant: builders,
      });
      for (const c of contacts.Contacts.slice(0, 12)) {
        await check('GET', '/Contacts/{ContactID}', `/Contacts/${c.ContactID}`, { tenant: builders });
        await check('GET', '/Contacts/{ContactID}/CISSettings', `/Contacts/${c.ContactID}/CISSettings`, {
          tenant: builders,
        });
      }
      const groups = await check<{ ContactGroups: { ContactGroupID: string }[] }>(
        'GET',
        '/ContactGroups',
        '/ContactGroups',
        { tenant: builders },
      );
      await check(
        'GET',
        '/ContactGroups/{ContactGroupID}',
        `/ContactGroups/${groups.ContactGroups[0]?.ContactGroupID}`,
        { tenant: builders },
      );
    });

    it('Invoices: lists, one, attachments', async () => {
      const page = await check<{ Invoices: { InvoiceID: string; HasAttachments: boolean }[] }>(
        'GET',
        '/Invoices',
        '/Invoices?page=1&pageSize=1000',
      );
      await check(
        'GET',
        '/Invoices',
        `/Invoices?Statuses=DRAFT&where=${encodeURIComponent('Type=="ACCREC"')}`,
      );
      await check('GET', '/Invoices', '/Invoices?page=2&summaryOnly=true');
      await check('GET', '/Invoices', '/Invoices?page=1&pageSize=200', { tenant: builders });
      await check('GET', '/Invoices/{InvoiceID}', `/Invoices/${page.Invoices[0]?.InvoiceID}`);
      const withAtt = page.Invoices.find((i) => i.HasAttachments);
      await check('GET', '/Invoices/{InvoiceID}/Attachments', `/Invoices/${withAtt?.InvoiceID}/Attachments`);
    });

    it('Invoices: create, update, validation errors, summarizeErrors=false', async () => {
      const contacts = await check<{ Contacts: { ContactID: string; Name: string }[] }>(
        'GET',
        '/Contacts',
        `/Contacts?page=1&searchTerm=${encodeURIComponent('Daily Sales')}`,
      );
      const contactId = contacts.Contacts[0]?.ContactID;
      const body = {
        Invoices: [
          {
            Type: 'ACCREC',
            Contact: { ContactID: contactId },
            Date: '2026-01-05',
            DueDate: '2026-01-12',
            LineAmountTypes: 'Inclusive',
            Status: 'DRAFT',
            Reference: 'Takings 5 Jan',
            LineItems: [
              {
                Description: 'Takings',
                Quantity: 1,
                UnitAmount: 512.34,
                AccountCode: '200',
                TaxType: 'OUTPUT2',
              },
            ],
          },
        ],
      };
      const created = await check<{ Invoices: { InvoiceID: string }[] }>('PUT', '/Invoices', '/Invoices', {
        body,
      });
      const id = created.Invoices[0]?.InvoiceID ?? '';
      await check('POST', '/Invoices/{InvoiceID}', `/Invoices/${id}`, {
        body: { Invoices: [{ InvoiceID: id, Status: 'AUTHORISED' }] },
      });
      await check('POST', '/Invoices', '/Invoices', {
        body: { Invoices: [{ ...body.Invoices[0], Reference: 'second' }] },
      });
      await check('PUT', '/Invoices', '/Invoices', {
        body: {
          Invoices: [
            {
              ...body.Invoices[0],
              LineItems: [{ Description: 'x', Quantity: 1, UnitAmount: 1, AccountCode: '999' }],
            },
          ],
        },
        status: 400,
      });
      await check('PUT', '/Invoices', '/Invoices?summarizeErrors=false', {
        body: {
          Invoices: [
            body.Invoices[0],
            {
              ...body.Invoices[0],
              LineItems: [{ Description: 'x', Quantity: 1, UnitAmount: 1, AccountCode: '999' }],
            },
          ],
        },
      });
      // A CIS bill as Ledgerlink sends it.
      const subs = await check<{ Contacts: { ContactID: string }[] }>(
        'GET',
        '/Contacts',
        `/Contacts?page=1&where=${encodeURIComponent('IsSupplier==true')}`,
        { tenant: builders },
      );
      await check('PUT', '/Invoices', '/Invoices?summarizeErrors=false', {
        tenant: builders,
        body: {
          Invoices: [
            {
              Type: 'ACCPAY',
              Contact: { ContactID: subs.Contacts[0]?.ContactID },
              Date: '2026-01-05',
              DueDate: '2026-01-19',
              InvoiceNumber: '4025',
              LineAmountTypes: 'NoTax',
              Status: 'AUTHORISED',
              LineItems: [
                { Description: 'Labour - Elm Street', Quantity: 1, UnitAmount: 1250, AccountCode: '321' },
              ],
            },
          ],
        },
      });
    });

    it('Payments: batch, single, list, one, delete', async () => {
      const inv = await check<{ Invoices: { InvoiceID: string; AmountDue: number }[] }>(
        'GET',
        '/Invoices',
        `/Invoices?page=1&pageSize=5&Statuses=AUTHORISED&where=${encodeURIComponent('Type=="ACCREC"')}`,
      );
      const accounts = await check<{ Accounts: { AccountID: string; Name: string }[] }>(
        'GET',
        '/Accounts',
        '/Accounts',
      );
      const card = accounts.Accounts.find((a) => a.Name === 'Business Credit Card')?.AccountID;
      const cash = accounts.Accounts.find((a) => a.Name === 'Cash')?.AccountID;
      const [a, b] = inv.Invoices;
      const batch = await check<{ Payments: { PaymentID: string }[] }>(
        'PUT',
        '/Payments',
        '/Payments?summarizeErrors=false',
        {
          body: {
            Payments: [
              {
                Invoice: { InvoiceID: a?.InvoiceID },
                Account: { AccountID: card },
                Amount: 0.01,
                Date: '2026-01-06',
                Reference: 'Card payment for INV-1',
              },
            ],
          },
        },
      );
      await check('POST', '/Payments', '/Payments', {
        body: {
          Invoice: { InvoiceID: b?.InvoiceID },
          Account: { AccountID: cash },
          Amount: 0.02,
          Date: '2026-01-06',
          Reference: 'Cash payment',
        },
      });
      await check('PUT', '/Payments', '/Payments', {
        body: {
          Payments: [
            { Invoice: { InvoiceID: a?.InvoiceID }, Account: { AccountID: card }, Amount: 1_000_000 },
          ],
        },
        status: 400,
      });
      await check('GET', '/Payments', '/Payments?page=1&pageSize=100');
      const id = batch.Payments[0]?.PaymentID;
      await check('GET', '/Payments/{PaymentID}', `/Payments/${id}`);
      await check('POST', '/Payments/{PaymentID}', `/Payments/${id}`, { body: { Status: 'DELETED' } });
    });

    it('ManualJournals: create, post, list, one', async () => {
      const body = {
        ManualJournals: [
          {
            Narration: 'Stock Transfer Journal - 5 Jan 2026 to 11 Jan 2026',
            Date: '2026-01-11',
            Status: 'DRAFT',
            LineAmountTypes: 'NoTax',
            JournalLines: [
              { LineAmount: 740.74, AccountCode: '310', Description: 'Cost of stock sold', TaxType: 'NONE' },
              {
                LineAmount: -740.74,
                AccountCode: '630',
                Description: 'Transfer from stock',
                TaxType: 'NONE',
              },
            ],
          },
        ],
      };
      const created = await check<{ ManualJournals: { ManualJournalID: string }[] }>(
        'PUT',
        '/ManualJournals',
        '/ManualJournals',
        { body },
      );
      const id = created.ManualJournals[0]?.ManualJournalID;
      await check('POST', '/ManualJournals/{ManualJournalID}', `/ManualJournals/${id}`, {
        body: { ManualJournals: [{ Narration: body.ManualJournals[0]?.Narration ?? '', Status: 'POSTED' }] },
      });
      await check('POST', '/ManualJournals', '/ManualJournals', { body });
      await check('GET', '/ManualJournals', '/ManualJournals?page=1');
      await check('GET', '/ManualJournals/{ManualJournalID}', `/ManualJournals/${id}`);
      await check('PUT', '/ManualJournals', '/ManualJournals', {
        body: { ManualJournals: [{ ...body.ManualJournals[0], JournalLines: [] }] },
        status: 400,
      });
    });
  },
);
