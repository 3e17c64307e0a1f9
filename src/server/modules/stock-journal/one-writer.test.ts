import crypto from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, getUkToday } from '../../../shared/dates';
import {
  getJournalPeriodLabel,
  getStockJournalReference,
  parseStockJournalReference,
  splitSalesPeriod,
  type JournalPeriod,
  type SalesPeriod,
} from '../../../shared/stock-journal';
import { organizations, xeroWrites } from '../../db/schema/index';
import { TEST_ORIGIN } from '../../test/app';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';
import { JOURNAL_MESSAGES, JOURNAL_WRITE_KIND } from './stock-journal.service';

type User = Awaited<ReturnType<typeof createConnectedUser>>;

/**
 * One writer per journal period (issue 28), from the outside: two people posting one week's stock journal at
 * the same moment on two app instances sharing one database, with Xero slow to answer so the posts overlap.
 * One journal reaches Xero; the other person is told at once who is posting the week, with a 409, and nothing
 * of theirs is sent. Once the first is settled, the week is one Xero holds: the spec's "already exists".
 */
describe('Stock Journal when two people post one week at once (issue 28)', () => {
  let t: XeroTestApp;
  /** A second instance of the app on the same database and the same Xero. */
  let other: XeroTestApp;
  let owner: User;
  let carol: User;
  let shopId = 0;
  const ids = { dailySales: '', stock: '', cost: '' };
  let periods: JournalPeriod[] = [];

  const post = (app: FastifyInstance, user: User, period: JournalPeriod) =>
    app.inject({
      method: 'POST',
      url: '/api/xero/stock-journal',
      headers: { cookie: user.cookie, origin: TEST_ORIGIN, 'idempotency-key': crypto.randomUUID() },
      payload: {
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        netAmount: period.netTotal,
        contactId: ids.dailySales,
        stockAccountId: ids.stock,
        costAccountId: ids.cost,
        marginRate: 1.35,
        reference: getStockJournalReference(period.periodStart, period.periodEnd),
      },
    });

  /** Journals Xero created for the period, as the sandbox applied them. */
  const journalsInXero = (period: JournalPeriod) =>
    t.sandbox.ledger().writes.filter((w) => {
      if (w.kind !== 'journal' || w.action !== 'create') return false;
      const found = parseStockJournalReference(String(w.summary.narration ?? ''));
      return found?.periodStart === period.periodStart && found.periodEnd === period.periodEnd;
    });

  /** The states of the journal writes recorded for the period, in the database both instances share. */
  const writeStates = async (period: JournalPeriod) =>
    (
      await t.database.db
        .select({ state: xeroWrites.state })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.kind, JOURNAL_WRITE_KIND),
            eq(xeroWrites.targetId, `${period.periodStart}_${period.periodEnd}`),
          ),
        )
    ).map((w) => w.state);

  function takePeriod(): JournalPeriod {
    const period = periods.shift();
    if (!period) throw new Error('no journal period left to post');
    return period;
  }

  beforeAll(async () => {
    t = await createXeroTestApp();
    other = await createXeroTestApp({ database: t.database, sandboxInstance: t.sandbox });
    owner = await createConnectedUser(t, 'owner');
    carol = await createConnectedUser(t, 'carol');
    shopId = owner.orgs.find((o) => o.tenantName === 'Demo Shop Ltd')?.organizationId ?? 0;
    const shop = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Shop Ltd');
    ids.dailySales = shop?.contacts.find((c) => c.Name === 'Daily Sales')?.ContactID ?? '';
    ids.stock = shop?.accounts.find((a) => a.Code === '630')?.AccountID ?? '';
    ids.cost = shop?.accounts.find((a) => a.Code === '310')?.AccountID ?? '';
    if (!shopId || !ids.dailySales || !ids.stock || !ids.cost)
      throw new Error('no Demo Shop, Daily Sales or stock and cost accounts');
    await enableFeatures(t, shopId);
    await t.database.db
      .update(organizations)
      .set({
        defaultStockJournalContactId: ids.dailySales,
        defaultStockJournalStockAccountId: ids.stock,
        defaultStockJournalCostAccountId: ids.cost,
        defaultStockJournalMarginRate: '1.35',
        defaultStockJournalPostingStatus: 'draft',
      })
      .where(eq(organizations.id, shopId));
    for (const who of [owner, carol])
      await who.call('POST', '/api/xero/set-active-organization', { organizationId: shopId });
    const today = getUkToday();
    const res = await owner.call(
      'GET',
      `/api/xero/sales?customerId=${ids.dailySales}&fromDate=${addDays(today, -120)}&toDate=${addDays(today, -14)}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    periods = (res.json() as SalesPeriod[]).flatMap((p) => splitSalesPeriod(p)).filter((p) => p.netTotal > 0);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  it("a second person's post while the first is on its way to Xero is refused at once, naming who is posting the week", async () => {
    const period = takePeriod();
    // Xero slow to answer the create, so the owner's post is still open when carol's arrives.
    t.sandbox.setFaults({ answerDelayMs: 1500, pathPrefix: '/api.xro/2.0/ManualJournals' });
    let ownerAnswered = false;
    const byOwner = post(t.app, owner, period).then((res) => {
      ownerAnswered = true;
      return res;
    });
    // Carol posts once the owner's journal is on its way to Xero (recorded and sent, its answer not back).
    await expect.poll(() => writeStates(period)).toContain('sent');
    const byCarol = await post(other.app, carol, period);
    // Refused at once: not queued behind the owner's post, whose answer is still on its way.
    expect(ownerAnswered).toBe(false);
    expect(await writeStates(period)).toEqual(['sent']);
    expect(byCarol.statusCode, byCarol.body).toBe(409);
    expect(byCarol.json().message).toBe(
      `${getJournalPeriodLabel(period.periodStart, period.periodEnd)} is being posted by owner; try again in a moment.`,
    );
    const first = await byOwner;
    t.sandbox.clearFaults();
    expect(first.statusCode, first.body).toBe(201);
    expect(journalsInXero(period)).toHaveLength(1);
    // Once the first is settled the week is one Xero holds: the spec's refusal, and still one journal.
    const after = await post(other.app, carol, period);
    expect(after.statusCode, after.body).toBe(409);
    expect(after.json().message).toBe(JOURNAL_MESSAGES.alreadyExists);
    expect(journalsInXero(period)).toHaveLength(1);
  });

  it('two people post one week at the same moment on two instances: one journal in Xero; the other is told who', async () => {
    const period = takePeriod();
    t.sandbox.setFaults({ answerDelayMs: 400, pathPrefix: '/api.xro/2.0/ManualJournals' });
    const [byOwner, byCarol] = await Promise.all([
      post(t.app, owner, period),
      post(other.app, carol, period),
    ]);
    t.sandbox.clearFaults();
    expect([byOwner.statusCode, byCarol.statusCode].sort()).toEqual([201, 409]);
    const [lost, winner] = byOwner.statusCode === 201 ? [byCarol, 'owner'] : [byOwner, 'carol'];
    expect(lost.json().message).toBe(
      `${getJournalPeriodLabel(period.periodStart, period.periodEnd)} is being posted by ${winner}; try again in a moment.`,
    );
    expect(journalsInXero(period)).toHaveLength(1);
    // The week shows the one journal on both instances.
    const entries = (await carol.call('GET', '/api/xero/stock-journal/entries')).json() as Array<{
      periodStart: string;
      periodEnd: string;
      journalId: string | null;
    }>;
    const entry = entries.find(
      (e) => e.periodStart === period.periodStart && e.periodEnd === period.periodEnd,
    );
    expect(entry?.journalId?.toLowerCase()).toBe(journalsInXero(period)[0]?.id.toLowerCase());
  });
});
