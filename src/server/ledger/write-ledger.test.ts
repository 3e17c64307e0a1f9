import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, ledgerInstances, organizations, users, xeroWrites } from '../db/schema/index';
import { createTestDatabase, type TestDatabase } from '../test/database';
import { AppError } from '../lib/app-error';
import { createWriteLedger, HEARTBEAT_STALE_MS, type WriteLedger, type WriteSpec } from './index';

/**
 * Two server instances on one database (issue 28 item 5): a write the first one sent when it died is
 * settled by the second at once, by asking Xero, as soon as the first one's heartbeat is stale, whatever
 * the kind of write.
 */
describe('the write ledger across instances', () => {
  let database: TestDatabase;
  let orgId: number;
  let userId: number;
  let dying: WriteLedger;
  let survivor: WriteLedger;
  /** What "Xero" holds: the ids the finder finds, by idempotency key. */
  const inXero = new Map<string, string>();

  beforeAll(async () => {
    database = await createTestDatabase();
    const [user] = await database.db.insert(users).values({ username: 'dana' }).returning();
    const [org] = await database.db.insert(organizations).values({ tenantId: 'tenant-crash' }).returning();
    if (!user || !org) throw new Error('seed failed');
    [orgId, userId] = [org.id, user.id];
    dying = createWriteLedger({ db: database.db });
    survivor = createWriteLedger({ db: database.db });
    await dying.start();
    await survivor.start();
    for (const kind of ['bill.create', 'journal.create'] as const)
      survivor.registerFinder(
        kind,
        async (_ctx, row) => {
          const id = inXero.get(row.idempotencyKey);
          return id ? { xeroId: id, response: { id } } : null;
        },
        'find',
      );
  });
  afterAll(async () => {
    await survivor.stop();
    await database.destroy();
  });

  const spec = (key: string, kind: 'bill.create' | 'journal.create', send: WriteSpec<unknown>['send']) => ({
    organizationId: orgId,
    tenantId: 'tenant-crash',
    userId,
    kind,
    targetId: `target-${key}`,
    amountPence: 444,
    idempotencyKey: key,
    request: { key },
    audit: { action: `${kind}.test`, username: 'dana' },
    send,
  });

  /** The dying instance sends a write and is killed (kill -9) while Xero applies it: no answer ever comes. */
  async function sendAndDie(key: string, kind: 'bill.create' | 'journal.create') {
    let sent = 0;
    void dying.execute(
      spec(key, kind, () => {
        sent += 1;
        inXero.set(key, `xero-${key}`);
        return new Promise(() => undefined);
      }),
    );
    await expect.poll(() => sent).toBe(1);
    return () => sent;
  }

  /** Its heartbeat stops where it was: kill -9 deletes nothing. */
  async function heartbeatAge(instanceId: string, ageMs: number) {
    await database.db
      .update(ledgerInstances)
      .set({ beatAt: sql`now() - make_interval(secs => ${ageMs / 1000})` })
      .where(eq(ledgerInstances.id, instanceId));
  }

  it('answers a same-key retry with the settled write once the dead instance misses its heartbeats', async () => {
    const sentByDying = await sendAndDie('crash-bill', 'bill.create');
    await dying.stop().catch(() => undefined);
    // kill -9: the instance's row stays, its heartbeat a moment old.
    await database.db.insert(ledgerInstances).values({ id: dying.instanceId }).onConflictDoNothing();
    await heartbeatAge(dying.instanceId, 1_000);
    let resent = 0;
    const retry = () =>
      survivor.execute(
        spec('crash-bill', 'bill.create', async () => {
          resent += 1;
          return { xeroId: 'second', response: {} };
        }),
      );

    // While the heartbeat is fresh the write may still be answered: "being processed", and when to ask again.
    const busy = await retry().catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(AppError);
    expect((busy as AppError).code).toBe('CONFLICT');
    const wait = Number((busy as AppError).extra?.retryAfterSeconds);
    expect(wait).toBeGreaterThan(0);
    expect(wait * 1000).toBeLessThanOrEqual(HEARTBEAT_STALE_MS);

    // That long later the heartbeat is stale: Xero is asked, and its payment is the answer.
    await heartbeatAge(dying.instanceId, 1_000 + wait * 1000);
    const answer = await retry();
    expect(answer).toMatchObject({ xeroId: 'xero-crash-bill', replayed: true });
    expect(resent).toBe(0);
    expect(sentByDying()).toBe(1);
    const lines = await database.db.select().from(auditLog).where(eq(auditLog.action, 'bill.create.test'));
    expect(lines.map((l) => l.result)).toEqual(['success']);
  });

  it('the reconciler settles a dead instance’s writes at once and leaves a live one’s in flight', async () => {
    const other = createWriteLedger({ db: database.db });
    await other.start();
    let liveSent = false;
    void other.execute(
      spec('live-journal', 'journal.create', () => {
        liveSent = true;
        return new Promise(() => undefined);
      }),
    );
    await expect.poll(() => liveSent).toBe(true);
    // A journal the dead instance sent that Xero never got, and one it never sent at all.
    const [row] = await database.db
      .select()
      .from(xeroWrites)
      .where(eq(xeroWrites.idempotencyKey, 'live-journal'));
    await database.db.insert(xeroWrites).values([
      { ...row!, id: undefined, idempotencyKey: 'dead-journal', instanceId: dying.instanceId },
      {
        ...row!,
        id: undefined,
        idempotencyKey: 'dead-pending',
        instanceId: dying.instanceId,
        state: 'pending',
        sentAt: null,
      },
    ]);
    await heartbeatAge(dying.instanceId, HEARTBEAT_STALE_MS + 1);

    const counts = await survivor.reconcile();
    expect(counts.failed).toBe(2);
    const states = Object.fromEntries(
      (await database.db.select().from(xeroWrites)).map((w) => [w.idempotencyKey, [w.state, w.error]]),
    );
    expect(states['dead-journal']).toEqual(['failed', 'Xero does not have this change: it was not applied.']);
    expect(states['dead-pending']).toEqual([
      'failed',
      'Not sent: Ledgerlink stopped before sending it to Xero.',
    ]);
    expect(states['live-journal']?.[0]).toBe('sent');
    await other.stop();
  });

  it('corrects a write a look-up failed too early once Xero answers after all, with one success line', async () => {
    const late = createWriteLedger({ db: database.db });
    await late.start();
    let answer: (outcome: { xeroId: string; response: unknown }) => void = () => undefined;
    const sending = late.execute(
      spec('late-bill', 'bill.create', () => new Promise((resolve) => (answer = resolve))),
    );
    await expect.poll(async () => (await survivor.findByKey(orgId, 'late-bill'))?.state).toBe('sent');
    // Taken for dead while Xero still applies it: the look-up finds nothing yet, so the write fails.
    await late.stop();
    await survivor.reconcile();
    expect((await survivor.findByKey(orgId, 'late-bill'))?.state).toBe('failed');

    answer({ xeroId: 'xero-late', response: { id: 'xero-late' } });
    await expect(sending).resolves.toMatchObject({ xeroId: 'xero-late', replayed: false });
    expect(await survivor.findByKey(orgId, 'late-bill')).toMatchObject({
      state: 'confirmed',
      xeroId: 'xero-late',
      error: null,
    });
    const lines = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.target, 'target-late-bill'))
      .orderBy(auditLog.id);
    expect(lines.map((l) => [l.result, l.detail])).toEqual([
      ['failure', expect.objectContaining({ error: 'Xero does not have this change: it was not applied.' })],
      ['success', expect.objectContaining({ xeroId: 'xero-late', corrected: true })],
    ]);
  });
});
