import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DOCUMENT_DATE_RANGE_MESSAGE, getUkToday } from '../../shared/dates';
import { xeroWrites } from '../db/schema/index';
import { TEST_ORIGIN } from '../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';

/**
 * Dates and texts bounded as Xero bounds them (issue 28 item 7): a bill dated 9999-12-31 or a payment with a
 * 200,000-character invoice number is refused with a 400 that says why, before anything is recorded or sent.
 */

interface JsonNode {
  type?: unknown;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonNode>;
  items?: JsonNode;
  anyOf?: JsonNode[];
  oneOf?: JsonNode[];
  allOf?: JsonNode[];
}

/** A pattern that cannot match text of any length: anchored, with no `+`, `*` or open `{n,}`. */
const isBoundedPattern = (pattern: string) =>
  pattern.startsWith('^') && pattern.endsWith('$') && !/[+*]|\{\d+,\}/.test(pattern);

/** Every string in a JSON schema that has no upper bound on its length, by path. */
function findUnboundedStrings(node: JsonNode | undefined, path: string, found: string[]): void {
  if (!node || typeof node !== 'object') return;
  const isString = node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'));
  if (
    isString &&
    node.maxLength === undefined &&
    node.enum === undefined &&
    node.const === undefined &&
    !(node.pattern && isBoundedPattern(node.pattern))
  )
    found.push(path);
  for (const [key, child] of Object.entries(node.properties ?? {}))
    findUnboundedStrings(child, `${path}.${key}`, found);
  findUnboundedStrings(node.items, `${path}[]`, found);
  for (const child of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    findUnboundedStrings(child, path, found);
}

describe('dates and texts bounded as Xero bounds them', () => {
  let t: XeroTestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createXeroTestApp();
    const user = await createConnectedUser(t, 'bounds.user', { tenants: 'all' });
    cookie = user.cookie;
    for (const org of user.orgs) await enableFeatures(t, org.organizationId);
  }, 120_000);
  afterAll(() => t.close());

  const post = (url: string, payload: unknown, key: string) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { origin: TEST_ORIGIN, cookie, 'idempotency-key': key },
      payload: payload as Record<string, unknown>,
    });
  const ledgerRows = async () => (await t.database.db.select({ n: count() }).from(xeroWrites))[0]?.n ?? 0;

  it('bounds the length of every text a request body takes, on every route', () => {
    const unbounded: string[] = [];
    for (const route of t.parts.routeTable) {
      const body = route.schema.body;
      if (!body || typeof body !== 'object' || !('_zod' in body)) continue;
      const json = z.toJSONSchema(body as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonNode;
      const found: string[] = [];
      findUnboundedStrings(json, 'body', found);
      for (const path of found) unbounded.push(`${route.method} ${route.url} ${path}`);
    }
    expect(unbounded).toEqual([]);
  });

  it('refuses documents dated outside 1900–2099 with a 400 that says so, and sends nothing', async () => {
    const writesBefore = t.sandbox.ledger().writes.length;
    const rowsBefore = await ledgerRows();
    const bill = (date: string) => ({
      contactId: '00000000-0000-0000-0000-000000000001',
      date,
      reference: 'Week 1',
      lineItems: [{ description: 'Labour', quantity: 1, unitAmount: 100, accountCode: '321' }],
      status: 'DRAFT',
    });
    const cases: Array<[string, unknown]> = [
      ['/api/xero/create-bill', bill('9999-12-31')],
      ['/api/xero/create-bill', bill('1899-12-31')],
      ['/api/xero/create-bills', { bills: [{ id: 'bill-1', ...bill('2100-01-01') }] }],
      [
        '/api/xero/draft-invoices/create',
        { date: '9999-12-31', totalAmount: 10, cashAmount: 0, approve: false },
      ],
      [
        '/api/xero/payments',
        {
          invoiceId: 'inv',
          invoiceNumber: 'INV-1',
          accountId: 'acc',
          amount: 1,
          reference: '',
          isCard: true,
          date: '9999-12-31',
        },
      ],
      [
        '/api/xero/stock-journal',
        {
          periodStart: '9999-12-27',
          periodEnd: '9999-12-31',
          netAmount: 100,
          contactId: 'c',
          stockAccountId: 's',
          costAccountId: 'k',
          marginRate: 1.5,
          reference: 'Stock journal',
        },
      ],
    ];
    for (const [i, [url, payload]] of cases.entries()) {
      const res = await post(url, payload, `bounds-date-${i}`);
      expect(res.statusCode, `${url} ${res.body}`).toBe(400);
      expect(res.json().message, url).toContain(DOCUMENT_DATE_RANGE_MESSAGE);
    }
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
    expect(await ledgerRows()).toBe(rowsBefore);
  });

  it('refuses a payment whose invoice number is longer than Xero takes (255), and sends nothing', async () => {
    const writesBefore = t.sandbox.ledger().writes.length;
    const rowsBefore = await ledgerRows();
    const payment = {
      invoiceId: 'inv',
      invoiceNumber: 'x'.repeat(200_000),
      accountId: 'acc',
      amount: 1,
      reference: '',
      isCard: true,
      date: getUkToday(),
    };
    const res = await post('/api/xero/payments', payment, 'bounds-number');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('Invoice number must be 255 characters or fewer'),
    });
    const longId = await post(
      '/api/xero/payments',
      { ...payment, invoiceNumber: 'INV-1', invoiceId: 'i'.repeat(101) },
      'bounds-id',
    );
    expect(longId.statusCode).toBe(400);
    expect(longId.json().message).toContain('Invalid Xero ID');
    expect(t.sandbox.ledger().writes.length).toBe(writesBefore);
    expect(await ledgerRows()).toBe(rowsBefore);
  });
});
