import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../../db/schema/index';
import type { LedgerSnapshot } from '../../../sandbox/ledger';
import type { CisContactSetting, OrgRec } from '../../../sandbox/state';
import type { CisContact } from '../../../shared/cis-bills';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, type XeroTestApp } from '../../test/xero';

/**
 * Issue 19, CIS first day: the subcontractor list costs no CIS settings call; the screen checks the ones it
 * shows (POST /api/xero/cis-contacts/check), each once, and again only when the contact's UpdatedDateUTC moved.
 * Demo Builders is grown to 300 subcontractors, as the bench's scale has it.
 */

const CIS_SETTINGS = ['GET', '/api.xro/2.0/Contacts/:ContactID/CISSettings'] as const;
const SUBCONTRACTORS = 300;

function countCalls(ledger: LedgerSnapshot, method: string, endpoint: string): number {
  return ledger.calls
    .filter((c) => c.method === method && c.endpoint.toLowerCase() === endpoint.toLowerCase())
    .reduce((s, c) => s + c.count, 0);
}

/** What hasValidUTR must be for a sandbox contact: CIS enabled with a verified rate (0 or 20 %). */
function expectedUtr(setting: CisContactSetting | null): boolean {
  return setting?.enabled === true && (setting.rate === 0 || setting.rate === 20);
}

const SETTINGS: Array<CisContactSetting | null> = [
  { enabled: true, rate: 20 },
  { enabled: true, rate: 30 },
  { enabled: true, rate: 0 },
  { enabled: false },
  null,
];

describe('CIS subcontractors checked when shown (issue 19)', () => {
  let t: XeroTestApp;
  let builders: OrgRec;
  let shopId: number;
  let buildersId: number;
  type Reply = Awaited<ReturnType<XeroTestApp['app']['inject']>>;
  let call: (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => Promise<Reply>;
  let list: CisContact[] = [];
  const today = new Date().toISOString().slice(0, 10);

  const cisCalls = () => countCalls(t.sandbox.ledger(), ...CIS_SETTINGS);
  const sandboxContact = (id: string) => builders.contacts.find((c) => c.ContactID === id);
  async function listContacts(query = ''): Promise<CisContact[]> {
    const res = await call('GET', `/api/xero/cis-contacts${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CisContact[];
  }
  async function check(ids: string[]): Promise<CisContact[]> {
    const res = await call('POST', '/api/xero/cis-contacts/check', { contactIds: ids });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as CisContact[];
  }
  function billBody(contactId: string) {
    return {
      contactId,
      date: today,
      reference: '0126',
      lineItems: [{ description: 'Labour', quantity: 1, unitAmount: 100, accountCode: '321' }],
      status: 'DRAFT',
      // Whichever subcontractor is picked, CIS or not (issue 42: a contact not marked CIS needs the confirmation).
      withoutCisDeduction: true,
    };
  }

  beforeAll(async () => {
    t = await createXeroTestApp({
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    const owner = await createConnectedUser(t, 'owner');
    buildersId = owner.orgs.find((o) => o.tenantName === 'Demo Builders Ltd')?.organizationId ?? 0;
    shopId = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
    // CIS Bills on for the builder only: the shop answers 403.
    await t.database.db
      .update(organizations)
      .set({ featureCisBills: true })
      .where(eq(organizations.id, buildersId));
    const found = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!found) throw new Error('no Demo Builders in the sandbox');
    builders = found;
    const group = builders.contactGroups.find((g) => g.Name === 'CIS Subcontractors');
    if (!group) throw new Error('no CIS group');
    // Grow the group to 300 subcontractors, with every kind of CIS setting.
    const now = Date.now();
    for (let i = group.contactIds.length; i < SUBCONTRACTORS; i++) {
      const id = randomUUID();
      builders.contacts.push({
        ContactID: id,
        Name: `Bench Subcontractor ${String(i).padStart(3, '0')}`,
        ContactStatus: 'ACTIVE',
        IsSupplier: true,
        IsCustomer: false,
        cis: SETTINGS[i % SETTINGS.length] ?? null,
        updatedMs: now - 86_400_000,
      });
      group.contactIds.push(id);
    }
    await t.database.db
      .update(organizations)
      .set({ defaultCisSubcontractorsGroupId: group.ContactGroupID })
      .where(eq(organizations.id, buildersId));
    call = (method, url, body) =>
      t.app.inject({
        method,
        url,
        headers: { cookie: owner.cookie, origin: TEST_ORIGIN },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    const active = await call('POST', '/api/xero/set-active-organization', { organizationId: buildersId });
    expect(active.statusCode).toBe(200);
    // Issue 42: a bill with a deduction needs the deductions account.
    const settings = await call('PUT', '/api/xero/cis/settings', {
      contractorName: null,
      utr: null,
      employerReference: null,
      accountsOfficeReference: null,
      materialsAccountCodes: [],
      deductionAccountCode: '814',
    });
    expect(settings.statusCode, settings.body).toBe(200);
  });
  afterAll(() => t.close());

  it('lists 300 subcontractors at once from the contacts, without one CIS settings call', async () => {
    t.sandbox.clearLedger();
    list = await listContacts();
    expect(list).toHaveLength(SUBCONTRACTORS);
    expect(cisCalls()).toBe(0);
    // Contacts (one page) and the contact groups.
    expect(t.sandbox.ledger().totals.all).toBeLessThanOrEqual(3);
    expect(list.every((c) => c.cisChecked === false && c.isContractor)).toBe(true);
    // Unknown until read (issue 33 item 12): never a false that reads as "(No UTR)".
    expect(list.every((c) => c.hasValidUTR === null)).toBe(true);
  });

  it('checks the 20 rows on screen with 20 calls, each marked as Xero says; again costs nothing', async () => {
    const screenful = list.slice(0, 20).map((c) => c.id);
    t.sandbox.clearLedger();
    const checked = await check(screenful);
    expect(cisCalls()).toBe(20);
    expect(checked.map((c) => c.id)).toEqual(screenful);
    for (const contact of checked) {
      expect(contact.cisChecked, contact.name).toBe(true);
      expect(contact.hasValidUTR, contact.name).toBe(expectedUtr(sandboxContact(contact.id)?.cis ?? null));
    }
    // Both kinds are among them, so a wrong "(No UTR)" either way would show.
    expect(checked.some((c) => c.hasValidUTR)).toBe(true);
    expect(checked.some((c) => !c.hasValidUTR)).toBe(true);

    t.sandbox.clearLedger();
    expect(await check(screenful)).toEqual(checked);
    const again = await listContacts();
    expect(cisCalls()).toBe(0);
    const byId = new Map(again.map((c) => [c.id, c]));
    for (const contact of checked) expect(byId.get(contact.id)).toEqual(contact);
    expect(again.filter((c) => c.cisChecked).length).toBe(20);
  });

  it('checking the same contacts twice at once costs one call each', async () => {
    const next = list.slice(20, 30).map((c) => c.id);
    t.sandbox.clearLedger();
    const [a, b] = await Promise.all([check(next), check([...next].reverse())]);
    expect(cisCalls()).toBe(10);
    expect(a).toHaveLength(10);
    expect(new Set(b.map((c) => c.id))).toEqual(new Set(next));
  });

  it('checks a contact again once its UpdatedDateUTC moved, and only that one', async () => {
    const checked = (await listContacts()).filter((c) => c.cisChecked);
    const moved = checked.find((c) => c.hasValidUTR);
    if (!moved) throw new Error('no verified subcontractor among the checked');
    const record = sandboxContact(moved.id);
    if (!record) throw new Error('contact not in the sandbox');
    // HMRC could not verify them after all: their CIS rate goes to 30 %, and the contact changes in Xero.
    record.cis = { enabled: true, rate: 30 };
    t.sandbox.editContact(moved.id, { email: 'accounts@moved.example' });

    t.sandbox.clearLedger();
    const refreshed = await listContacts('?refresh=true');
    expect(cisCalls()).toBe(0);
    expect(refreshed.find((c) => c.id === moved.id)).toMatchObject({ cisChecked: false, hasValidUTR: null });
    expect(refreshed.filter((c) => c.cisChecked).map((c) => c.id)).toEqual(
      checked.filter((c) => c.id !== moved.id).map((c) => c.id),
    );

    t.sandbox.clearLedger();
    const [rechecked] = await check(checked.map((c) => c.id));
    expect(cisCalls()).toBe(1);
    expect(rechecked).toBeDefined();
    const after = (await listContacts()).find((c) => c.id === moved.id);
    expect(after).toMatchObject({ cisChecked: true, hasValidUTR: false });
  });

  it('creating a bill for an unchecked subcontractor checks it first; a checked one costs no check', async () => {
    const contacts = await listContacts();
    const unchecked = contacts.find((c) => !c.cisChecked);
    const checked = contacts.find((c) => c.cisChecked);
    if (!unchecked || !checked) throw new Error('need a checked and an unchecked subcontractor');

    t.sandbox.clearLedger();
    const first = await call('POST', '/api/xero/create-bill', billBody(unchecked.id));
    expect(first.statusCode, first.body).toBe(200);
    expect(cisCalls()).toBe(1);
    const ledger = t.sandbox.ledger();
    expect(countCalls(ledger, 'PUT', '/api.xro/2.0/Invoices')).toBe(1);
    expect((await listContacts()).find((c) => c.id === unchecked.id)).toMatchObject({
      cisChecked: true,
      hasValidUTR: expectedUtr(sandboxContact(unchecked.id)?.cis ?? null),
    });

    t.sandbox.clearLedger();
    const second = await call('POST', '/api/xero/create-bill', billBody(checked.id));
    expect(second.statusCode, second.body).toBe(200);
    expect(cisCalls()).toBe(0);
  });

  it('refuses bad input with a 400 that says why, ids it does not know cost nothing, and 403 without the feature', async () => {
    t.sandbox.clearLedger();
    const cases: Array<[unknown, RegExp]> = [
      [{ contactIds: [] }, /at least one contact id/],
      [{ contactIds: ['not-a-guid'] }, /Xero contact id \(a GUID\)/],
      [{ contactIds: Array.from({ length: 51 }, () => randomUUID()) }, /at most 50 contacts/],
      [{ contactIds: 'x' }, /list of Xero contact ids/],
      [{}, /contactIds/],
      [{ contactIds: [randomUUID()], extra: 1 }, /extra|Unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/api/xero/cis-contacts/check', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().message, JSON.stringify(body)).toMatch(message);
    }
    const unknown = await call('POST', '/api/xero/cis-contacts/check', { contactIds: [randomUUID()] });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual([]);
    expect(t.sandbox.ledger().totals.all).toBe(0);

    await call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    try {
      const off = await call('POST', '/api/xero/cis-contacts/check', { contactIds: [list[0]?.id] });
      expect(off.statusCode).toBe(403);
      expect(off.json().message).toMatch(/CIS Bills is disabled/);
    } finally {
      await call('POST', '/api/xero/set-active-organization', { organizationId: buildersId });
    }
  });
});
