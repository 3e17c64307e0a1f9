import { eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getUkToday } from '../../shared/dates';
import type { Invoice } from '../../shared/pay-invoices';
import { REDO_CONFIRM_HEADER, redoSuspectsOf } from '../../shared/redo-warning';
import { DEMO_CIS_SETTINGS } from '../demo';
import { organizations, xeroAccounts, xeroContacts, xeroWrites } from '../db/schema/index';
import { TEST_ORIGIN } from '../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';

/**
 * Issue 44 item 4: after a restore, the redo a person makes when the screen lost their work (a new key) is
 * warned about before it is sent when Xero already has the same change, and goes on only once they confirm.
 * The restore is played as the ledger meets it: the writes made after the backup are gone from its records,
 * and `db:restore` recorded itself.
 */
describe('the redo warning after a restore (issue 44)', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let shopId: number;
  let buildersId: number;

  const post = (url: string, payload: unknown, key: string, confirm = false) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: owner.cookie,
        origin: TEST_ORIGIN,
        'idempotency-key': key,
        ...(confirm ? { [REDO_CONFIRM_HEADER]: 'yes' } : {}),
      },
      payload: payload as Record<string, unknown>,
    });

  /** The backup was taken before the writes under these keys: the restored ledger does not know them. */
  async function restoreForgetting(keyPrefix: string) {
    await t.database.db.delete(xeroWrites).where(like(xeroWrites.idempotencyKey, `${keyPrefix}%`));
    await t.parts.ledger.recordRestore('backup-before-the-redo.tar.gz');
  }

  const inXero = (orgName: string) => {
    const org = t.sandbox.state.orgs.find((o) => o.Name === orgName);
    if (!org) throw new Error(`no ${orgName}`);
    return org;
  };

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
    const shop = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd');
    const builders = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd');
    if (!shop || !builders) throw new Error('the demo organisations are not connected');
    [shopId, buildersId] = [shop.organizationId, builders.organizationId];
    await enableFeatures(t, shopId);
    await enableFeatures(t, buildersId);
    // Issue 42: a bill with a deduction books it to the deductions account the contractor chose in Settings →
    // CIS month-end; the builder chooses what the demo's careful contractor chose.
    const cisSettings = await owner.call('PUT', `/api/xero/cis/settings?org=${buildersId}`, {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      ...DEMO_CIS_SETTINGS['Demo Builders Ltd'],
    });
    expect(cisSettings.statusCode, cisSettings.body).toBe(200);
    const ctx = { organizationId: shopId, tenantId: shop.tenantId, userId: owner.user.id };
    await t.parts.sync.syncAccounts(ctx);
    await t.parts.sync.syncContacts(ctx);
    const accounts = await t.database.db
      .select()
      .from(xeroAccounts)
      .where(eq(xeroAccounts.organizationId, shopId));
    const contacts = await t.database.db
      .select()
      .from(xeroContacts)
      .where(eq(xeroContacts.organizationId, shopId));
    const cash = accounts.find((a) => a.name === 'Cash');
    const sales = accounts.find((a) => a.code === '200');
    const contact = contacts.find((c) => c.name === 'Daily Sales');
    if (!cash || !sales || !contact)
      throw new Error('the seed lacks the cash account, sales account or contact');
    await t.database.db
      .update(organizations)
      .set({
        defaultCashAccountId: cash.accountId,
        defaultSalesAccountId: sales.accountId,
        defaultContactId: contact.contactId,
        defaultVatRateId: 'OUTPUT2',
        defaultTaxStatus: 'Tax inclusive',
      })
      .where(eq(organizations.id, shopId));
  });
  afterAll(() => t?.close());

  it('a CIS bill Xero already has: warned, named with its subcontractor, reference, amount and age; made once confirmed; its old key answered as it', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: buildersId });
    const contacts = (await owner.call('GET', '/api/xero/cis-contacts')).json() as Array<{
      id: string;
      name: string;
    }>;
    const accounts = (await owner.call('GET', '/api/xero/direct-costs-accounts')).json() as Array<{
      code: string;
    }>;
    // A. Patel Plastering: 20 %, no VAT, so the bill as entered (£500) and Xero's total after the deduction
    // line (£400) differ, and the warning must name the one the person entered.
    const contact = contacts.find((c) => c.name === 'A. Patel Plastering');
    const [account] = accounts;
    if (!contact || !account) throw new Error('no subcontractor or account');
    const bill = {
      contactId: contact.id,
      date: getUkToday(),
      reference: 'R-4826',
      status: 'DRAFT',
      lineItems: [{ description: 'Tiling', quantity: 1, unitAmount: 500, accountCode: account.code }],
    };
    const bills = () =>
      inXero('Demo Builders Ltd').invoices.filter((i) => i.Type === 'ACCPAY' && i.InvoiceNumber === 'R-4826');
    expect((await post('/api/xero/create-bill', bill, 'redo-bill-first')).statusCode).toBe(200);
    expect(bills()).toHaveLength(1);
    await restoreForgetting('redo-bill-first');

    const warned = await post(
      '/api/xero/create-bills',
      { bills: [{ id: 'b1', ...bill }] },
      'redo-bill-again',
    );
    expect(warned.statusCode).toBe(409);
    const suspects = redoSuspectsOf(warned.json());
    expect(suspects.map((s) => s.message)).toEqual([
      `Xero already has a bill from ${contact.name} with reference R-4826 for £500.00 (£400.00 after the CIS deduction), created just now`,
    ]);
    expect(suspects[0]?.xeroId).toBe(bills()[0]?.InvoiceID);
    expect(bills()).toHaveLength(1);

    // The browser's resend of the first request (its old key) is the same bill: answered, not warned.
    const resent = await post('/api/xero/create-bill', bill, 'redo-bill-first');
    expect(resent.statusCode, resent.body).toBe(200);
    expect(bills()).toHaveLength(1);

    // The person chooses to go on: the same request, confirmed.
    const confirmed = await post(
      '/api/xero/create-bills',
      { bills: [{ id: 'b1', ...bill }] },
      'redo-bill-again',
      true,
    );
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(bills()).toHaveLength(2);
    // Its resend with the same key sends nothing more, confirmed or not.
    expect(
      (await post('/api/xero/create-bills', { bills: [{ id: 'b1', ...bill }] }, 'redo-bill-again'))
        .statusCode,
    ).toBe(200);
    expect(bills()).toHaveLength(2);
  });

  it('a batch of two alike bills the restore forgot, resent with its key, is answered and never warned (the soak)', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: buildersId });
    const contacts = (await owner.call('GET', '/api/xero/cis-contacts')).json() as Array<{
      id: string;
      name: string;
    }>;
    const accounts = (await owner.call('GET', '/api/xero/direct-costs-accounts')).json() as Array<{
      code: string;
    }>;
    const contact = contacts.find((c) => c.name === 'Hughes Groundworks Ltd');
    const [account] = accounts;
    if (!contact || !account) throw new Error('no subcontractor or account');
    const alike = (id: string) => ({
      id,
      contactId: contact.id,
      date: getUkToday(),
      reference: 'R-5511',
      status: 'DRAFT',
      lineItems: [{ description: 'Labour', quantity: 1, unitAmount: 300, accountCode: account.code }],
    });
    const batch = { bills: [alike('one'), alike('two')] };
    const bills = () =>
      inXero('Demo Builders Ltd').invoices.filter((i) => i.Type === 'ACCPAY' && i.InvoiceNumber === 'R-5511');
    expect((await post('/api/xero/create-bills', batch, 'redo-batch')).statusCode).toBe(200);
    expect(bills()).toHaveLength(2);
    await restoreForgetting('redo-batch');
    const resent = await post('/api/xero/create-bills', batch, 'redo-batch');
    expect(resent.statusCode, resent.body).toBe(200);
    expect((resent.json() as { created: number }).created).toBe(2);
    expect(bills()).toHaveLength(2);
  });

  it('a payment Xero already has: warned naming its amount and invoice, paid once confirmed', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const invoices = ((await owner.call('GET', '/api/xero/invoices')).json() as Invoice[]).filter(
      (i) => i.amountDue > 10,
    );
    const invoice = invoices[0];
    const accounts = (await owner.call('GET', '/api/xero/bank-accounts')).json() as {
      cashAccounts: Array<{ accountId: string }>;
    };
    const cash = accounts.cashAccounts[0];
    if (!invoice || !cash) throw new Error('no invoice or account');
    const payment = {
      invoiceId: invoice.invoiceId,
      invoiceNumber: invoice.invoiceNumber,
      accountId: cash.accountId,
      amount: 1.23,
      reference: `Cash payment for ${invoice.invoiceNumber}`,
      isCard: false,
      date: getUkToday(),
    };
    const paid = () =>
      inXero('Demo Shop Ltd').payments.filter(
        (p) => p.InvoiceID === invoice.invoiceId && p.Status === 'AUTHORISED' && p.amount === 123,
      );
    const before = paid().length;
    expect((await post('/api/xero/payments', payment, 'redo-pay-first')).statusCode).toBe(200);
    await restoreForgetting('redo-pay-first');

    const warned = await post('/api/xero/payments', payment, 'redo-pay-again');
    expect(warned.statusCode).toBe(409);
    expect(redoSuspectsOf(warned.json()).map((s) => s.message)).toEqual([
      `Xero already has a payment of £1.23 on ${invoice.invoiceNumber}, created just now`,
    ]);
    expect(paid()).toHaveLength(before + 1);
    const confirmed = await post('/api/xero/payments', payment, 'redo-pay-again', true);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(paid()).toHaveLength(before + 2);
  });

  it('a new invoice with cash Xero already has: warned naming it and its cash, made once confirmed', async () => {
    await owner.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const body = { date: getUkToday(), totalAmount: 41.5, cashAmount: 5, approve: true };
    const made = () =>
      inXero('Demo Shop Ltd').invoices.filter(
        (i) => i.Type === 'ACCREC' && i.total === 4150 && i.Date === body.date,
      );
    expect((await post('/api/xero/draft-invoices/create', body, 'redo-new-first')).statusCode).toBe(200);
    expect(made()).toHaveLength(1);
    const number = made()[0]?.InvoiceNumber;
    await restoreForgetting('redo-new-first');

    const warned = await post('/api/xero/draft-invoices/create', body, 'redo-new-again');
    expect(warned.statusCode).toBe(409);
    const [suspect] = redoSuspectsOf(warned.json());
    const dated = new Date(`${body.date}T12:00:00Z`).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      timeZone: 'UTC',
    });
    expect(suspect?.message).toBe(
      `Xero already has invoice ${number} to Daily Sales dated ${dated} for £41.50 (£5.00 paid), created just now`,
    );
    expect(made()).toHaveLength(1);
    const confirmed = await post('/api/xero/draft-invoices/create', body, 'redo-new-again', true);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(made()).toHaveLength(2);
  });
});
