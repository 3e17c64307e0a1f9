import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  organizations,
  userOrganizations,
  xeroInvoices,
  xeroTokens,
  xeroWebhookEvents,
  xeroWrites,
} from '../../db/schema/index';
import type { LiveEvents } from '../../lib/live-events';
import type { XeroSync } from '../sync/sync.service';
import type { XeroWebhookPayload } from './payload';
import { findNewPayments, type KnownPayment } from '../../../shared/invoice-payments';

/** How long an instance holds the events it works on; a crash frees them after this. */
const CLAIM_MS = 60_000;
const BATCH = 500;
const MAX_ATTEMPTS = 8;
/**
 * Xero can deliver the event of one of Ledgerlink's own writes before Xero's answer to that write has reached
 * Ledgerlink (the write is still `sent`): the delivery waits this long at most for the answer, so the change is
 * known as our own and not read again (decision 018, "Our own changes").
 */
export const OWN_ANSWER_WAIT_MS = 3_000;
const OWN_ANSWER_POLL_MS = 50;
/**
 * Processed events are kept two days, then forgotten: Xero retries a delivery for up to a day, and a repeat
 * within that time is dropped by the unique key (one arriving later is applied again, harmlessly: processing
 * reads Xero's current state).
 */
export const PROCESSED_KEEP_MS = 2 * 24 * 60 * 60_000;

/**
 * Whether the cached invoice already holds what its webhook events announce, because each event is a change
 * Ledgerlink wrote itself (issue 32): Xero stamps an invoice's event with the invoice's UpdatedDateUTC after the
 * change, and each of our confirmed writes on the invoice recorded the UpdatedDateUTC Xero's answer gave
 * (`ownChangeTimes`). Every event must match one of them exactly; a person's change in Xero, before or after
 * ours, carries another time and is read. The cache must hold that answer or a later state (its UpdatedDateUTC
 * no earlier than any event) and not be marked stale (a payment on its way, or an answer the cache could not
 * take). Where Xero's event times are not the UpdatedDateUTC its answers give, nothing matches and every event
 * is read, as before.
 */
export function isOwnChangeKnown(
  cached: { updatedUtc: Date | null; syncedAt: Date } | undefined,
  eventTimes: readonly Date[],
  ownChangeTimes: ReadonlySet<number> | undefined,
): boolean {
  if (!cached?.updatedUtc || cached.syncedAt.getTime() <= 0 || !ownChangeTimes) return false;
  if (eventTimes.length === 0) return false;
  const held = cached.updatedUtc.getTime();
  return eventTimes.every((at) => ownChangeTimes.has(at.getTime()) && at.getTime() <= held);
}

/**
 * Whether the events about an invoice are Ledgerlink's own writes still on their way into the cache (issue 32):
 * the row is marked stale because the intent that wrote them is still running (an approval with cash: its steps
 * are on their way, and Xero's delivery can come first), and each event matches one of its confirmed writes
 * exactly, as in `isOwnChangeKnown`. Xero's answers are in the write ledger, so nothing needs reading: the
 * screens are told from them, and the row keeps its stale mark until the intent stores them (if it never does,
 * the next refresh or payment reads Xero, as for any stale row). A person's change carries another time and is
 * read.
 */
export function isOwnChangeInFlight(
  cached: { updatedUtc: Date | null; syncedAt: Date } | undefined,
  eventTimes: readonly Date[],
  ownChangeTimes: ReadonlySet<number> | undefined,
): boolean {
  if (!cached || cached.syncedAt.getTime() > 0 || !ownChangeTimes || eventTimes.length === 0) return false;
  return eventTimes.every((at) => ownChangeTimes.has(at.getTime()));
}

/** One of Ledgerlink's confirmed writes on an invoice: Xero's UpdatedDateUTC in its answer, and the balance it gave. */
interface OwnChange {
  at: number;
  status: string | null;
  amountDuePence: number | null;
  amountPaidPence: number | null;
}

/** One invoice as a screen shows it, before and after a change Xero reported. */
export interface InvoiceChangeFacts {
  invoiceId: string;
  invoiceNumber: string | null;
  type: string;
  before: { status: string; amountDuePence: number; amountPaidPence: number } | null;
  after: { status: string; amountDuePence: number; amountPaidPence: number; totalPence: number };
  /** Payments Xero lists on the invoice now that the cache did not have (id, pence). */
  newPayments: Array<{ paymentId: string; amountPence: number; reference: string | null }>;
}

/** A cached invoice, or what Xero says of it now, as far as a change told to the screens needs it. */
interface InvoiceFigures {
  invoiceId: string;
  invoiceNumber?: string | null;
  type: string;
  status: string;
  amountDuePence?: number | null;
  amountPaidPence?: number | null;
  totalPence?: number | null;
  payments?: unknown;
}

/**
 * One invoice's change as the open screens are told it (live events, decision 018): the cached figures before
 * (`old`, null when the cache did not have it) and Xero's now, with the payments Xero lists that the cache did not.
 */
export function describeInvoiceChange(
  old: InvoiceFigures | undefined,
  now: InvoiceFigures,
): InvoiceChangeFacts {
  const payments = (now.payments ?? []) as Array<KnownPayment & { reference?: string | null }>;
  return {
    invoiceId: now.invoiceId,
    invoiceNumber: now.invoiceNumber ?? null,
    type: now.type,
    before: old
      ? {
          status: old.status,
          amountDuePence: old.amountDuePence ?? 0,
          amountPaidPence: old.amountPaidPence ?? 0,
        }
      : null,
    after: {
      status: now.status,
      amountDuePence: now.amountDuePence ?? 0,
      amountPaidPence: now.amountPaidPence ?? 0,
      totalPence: now.totalPence ?? 0,
    },
    newPayments: old
      ? findNewPayments(
          { payments: (old.payments ?? []) as KnownPayment[], amountPaidPence: old.amountPaidPence ?? 0 },
          payments,
        ).map((p) => ({ paymentId: p.paymentId, amountPence: p.amountPence, reference: p.reference ?? null }))
      : [],
  };
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * Stores Xero's webhook deliveries and, after the receiver has answered, applies them: per organisation and
 * claim, the changed invoices are read in one call (`GET /Invoices?IDs=…`) and the changed contacts in another,
 * written with the cache's newest-wins rule, and the open screens are told (live events). An organisation no
 * user has connected is ignored; events whose processing fails are tried again later (the claim lapses).
 */
export function createWebhookProcessor(deps: {
  db: Db;
  sync: XeroSync;
  live: LiveEvents;
  log: Logger;
  /** Seconds from an applied event's eventDateUtc to now (the webhook-lag metric). */
  onApplied?: (lagSeconds: number) => void;
}) {
  const { db, sync, live, log } = deps;
  let running: Promise<void> | null = null;
  let again = false;

  /** Keeps the delivery's events; a repeated event (Xero retried, or sent it twice) is dropped. Returns how many were new. */
  async function store(payload: XeroWebhookPayload): Promise<number> {
    const rows = payload.events
      .filter(
        (e) =>
          e.tenantType === 'ORGANISATION' && (e.eventCategory === 'INVOICE' || e.eventCategory === 'CONTACT'),
      )
      .map((e) => ({
        tenantId: e.tenantId.toLowerCase(),
        category: e.eventCategory,
        eventType: e.eventType,
        resourceId: e.resourceId.toLowerCase(),
        eventAt: e.eventDateUtc,
        sequence: payload.lastEventSequence,
      }));
    if (rows.length === 0) return 0;
    const inserted = await db
      .insert(xeroWebhookEvents)
      .values(rows)
      .onConflictDoNothing()
      .returning({ id: xeroWebhookEvents.id });
    return inserted.length;
  }

  async function claim() {
    const now = new Date();
    const pending = db
      .select({ id: xeroWebhookEvents.id })
      .from(xeroWebhookEvents)
      .where(
        and(
          isNull(xeroWebhookEvents.processedAt),
          or(isNull(xeroWebhookEvents.claimedUntil), lt(xeroWebhookEvents.claimedUntil, now)),
        ),
      )
      .orderBy(asc(xeroWebhookEvents.id))
      .limit(BATCH)
      .for('update', { skipLocked: true });
    return db
      .update(xeroWebhookEvents)
      .set({
        claimedUntil: new Date(now.getTime() + CLAIM_MS),
        attempts: sql`${xeroWebhookEvents.attempts} + 1`,
      })
      .where(inArray(xeroWebhookEvents.id, pending))
      .returning();
  }

  async function finish(ids: number[], outcome: string) {
    if (ids.length === 0) return;
    await db
      .update(xeroWebhookEvents)
      .set({ processedAt: new Date(), claimedUntil: null, outcome })
      .where(inArray(xeroWebhookEvents.id, ids));
  }

  /** The organisation of a tenant and a user whose Xero token reads it, or null when nobody connected it. */
  async function findReader(tenantId: string) {
    const [row] = await db
      .select({
        organizationId: organizations.id,
        tenantId: organizations.tenantId,
        userId: userOrganizations.userId,
      })
      .from(organizations)
      .innerJoin(
        userOrganizations,
        and(eq(userOrganizations.organizationId, organizations.id), eq(userOrganizations.connected, true)),
      )
      .innerJoin(
        xeroTokens,
        and(eq(xeroTokens.userId, userOrganizations.userId), eq(xeroTokens.status, 'active')),
      )
      .where(sql`lower(${organizations.tenantId}) = ${tenantId}`)
      .orderBy(desc(xeroTokens.updatedAt))
      .limit(1);
    return row ?? null;
  }

  /**
   * The Xero times (UpdatedDateUTC, as Xero's answers reported them) of this organisation's own confirmed
   * writes on each of these invoices, lower-case id → times in ms.
   */
  async function findOwnChanges(organizationId: number, invoiceIds: readonly string[]) {
    const answer = (field: string) =>
      sql<
        string | null
      >`coalesce(${xeroWrites.response}->'invoice'->>${field}, ${xeroWrites.response}->'cacheRow'->>${field})`;
    const rows = await db
      .select({
        targetId: xeroWrites.targetId,
        status: answer('status'),
        amountDuePence: answer('amountDuePence'),
        amountPaidPence: answer('amountPaidPence'),
        // A payment's answer keeps Xero's UpdatedDateUTC at the top; an approval's inside the cache row it wrote.
        updatedUtc: sql<
          string | null
        >`coalesce(${xeroWrites.response}->>'updatedUtc', ${xeroWrites.response}->'cacheRow'->>'updatedUtc')`,
      })
      .from(xeroWrites)
      .where(
        and(
          eq(xeroWrites.organizationId, organizationId),
          eq(xeroWrites.state, 'confirmed'),
          inArray(sql`lower(${xeroWrites.targetId})`, [...invoiceIds]),
        ),
      );
    const changes = new Map<string, OwnChange[]>();
    const pence = (v: string | null) => (v === null || !Number.isFinite(Number(v)) ? null : Number(v));
    for (const row of rows) {
      const at = row.updatedUtc ? Date.parse(row.updatedUtc) : NaN;
      if (!row.targetId || !Number.isFinite(at)) continue;
      const id = row.targetId.toLowerCase();
      changes.set(id, [
        ...(changes.get(id) ?? []),
        {
          at,
          status: row.status,
          amountDuePence: pence(row.amountDuePence),
          amountPaidPence: pence(row.amountPaidPence),
        },
      ]);
    }
    return changes;
  }

  /**
   * Waits (OWN_ANSWER_WAIT_MS at most) while a write of ours on one of these invoices is on its way to Xero
   * (`sent`, its answer not in yet). Whether there was one: the caller then looks at its own changes again.
   */
  async function awaitOwnAnswers(organizationId: number, invoiceIds: readonly string[]): Promise<boolean> {
    const sending = () =>
      db
        .select({ id: xeroWrites.id })
        .from(xeroWrites)
        .where(
          and(
            eq(xeroWrites.organizationId, organizationId),
            eq(xeroWrites.state, 'sent'),
            inArray(sql`lower(${xeroWrites.targetId})`, [...invoiceIds]),
          ),
        )
        .limit(1);
    if ((await sending()).length === 0) return false;
    const deadline = Date.now() + OWN_ANSWER_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, OWN_ANSWER_POLL_MS));
      if ((await sending()).length === 0) break;
    }
    return true;
  }

  async function applyTenant(tenantId: string, events: Array<typeof xeroWebhookEvents.$inferSelect>) {
    const ids = events.map((e) => e.id);
    const reader = await findReader(tenantId);
    if (!reader) {
      await finish(ids, 'ignored');
      return;
    }
    const ctx = { organizationId: reader.organizationId, tenantId: reader.tenantId, userId: reader.userId };
    const invoiceIds = [...new Set(events.filter((e) => e.category === 'INVOICE').map((e) => e.resourceId))];
    const contactIds = [...new Set(events.filter((e) => e.category === 'CONTACT').map((e) => e.resourceId))];
    try {
      if (invoiceIds.length > 0) {
        /** The cache's rows of these invoices, by lower-case id. */
        const readCached = async () =>
          new Map(
            (
              await db
                .select()
                .from(xeroInvoices)
                .where(
                  and(
                    eq(xeroInvoices.organizationId, ctx.organizationId),
                    inArray(sql`lower(${xeroInvoices.invoiceId})`, invoiceIds),
                  ),
                )
            ).map((r) => [r.invoiceId.toLowerCase(), r]),
          );
        let beforeById = await readCached();
        let own = await findOwnChanges(ctx.organizationId, invoiceIds);
        const ownTimes = (id: string) => new Set((own.get(id) ?? []).map((c) => c.at));
        const eventTimes = (id: string) =>
          events.filter((e) => e.category === 'INVOICE' && e.resourceId === id).map((e) => e.eventAt);
        // Issue 32: an invoice whose every event is a change Ledgerlink itself wrote, with the cache holding that
        // write's answer or later, is not read again (decision 018, "Our own changes"); nor is one whose answers
        // are confirmed in the ledger and still on their way into the cache.
        const classify = () => {
          const known = invoiceIds.filter((id) =>
            isOwnChangeKnown(beforeById.get(id), eventTimes(id), ownTimes(id)),
          );
          const inFlight = invoiceIds.filter(
            (id) =>
              !known.includes(id) && isOwnChangeInFlight(beforeById.get(id), eventTimes(id), ownTimes(id)),
          );
          return {
            known,
            inFlight,
            toRead: invoiceIds.filter((id) => !known.includes(id) && !inFlight.includes(id)),
          };
        };
        let { known, inFlight, toRead } = classify();
        // Xero's delivery came before its answer to a write of ours on one of them: that answer, not a read.
        if (toRead.length > 0 && (await awaitOwnAnswers(ctx.organizationId, toRead))) {
          beforeById = await readCached();
          own = await findOwnChanges(ctx.organizationId, invoiceIds);
          ({ known, inFlight, toRead } = classify());
        }
        const read = toRead.length > 0 ? (await sync.refreshInvoicesByIds(ctx, toRead)).rows : [];
        // An own change on its way into the cache is told as Xero's answer to the newest of its events gave it.
        const answered = inFlight.flatMap((id) => {
          const cached = beforeById.get(id);
          const newest = Math.max(...eventTimes(id).map((at) => at.getTime()));
          const change = own.get(id)?.find((c) => c.at === newest);
          if (!cached || !change) return [];
          return [
            {
              ...cached,
              status: change.status ?? cached.status,
              amountDuePence: change.amountDuePence ?? cached.amountDuePence,
              amountPaidPence: change.amountPaidPence ?? cached.amountPaidPence,
            },
          ];
        });
        const rows = [...read, ...known.flatMap((id) => beforeById.get(id) ?? []), ...answered];
        const changes = rows.map((r) => describeInvoiceChange(beforeById.get(r.invoiceId.toLowerCase()), r));
        if (changes.length > 0) await live.publish(ctx.organizationId, 'invoices', { invoices: changes });
      }
      if (contactIds.length > 0) {
        const { rows } = await sync.refreshContactsByIds(ctx, contactIds);
        if (rows.length > 0)
          await live.publish(ctx.organizationId, 'contacts', { contactIds: rows.map((r) => r.contactId) });
      }
      await finish(ids, 'applied');
      const appliedAt = Date.now();
      for (const e of events) deps.onApplied?.(Math.max(0, (appliedAt - e.eventAt.getTime()) / 1000));
    } catch (error) {
      log.warn({ err: error, tenantId }, 'webhook events not applied yet');
      const spent = events.filter((e) => e.attempts >= MAX_ATTEMPTS).map((e) => e.id);
      await finish(
        spent,
        `failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`,
      );
    }
  }

  async function drainOnce(): Promise<void> {
    for (;;) {
      const claimed = await claim();
      if (claimed.length === 0) return;
      const byTenant = new Map<string, typeof claimed>();
      for (const e of claimed) byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
      await Promise.all([...byTenant].map(([tenantId, events]) => applyTenant(tenantId, events)));
      if (claimed.length < BATCH) return;
    }
  }

  /** Applies every stored event not yet applied; one run at a time per instance (a call during a run queues one more). */
  function drain(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await drainOnce();
      } while (again);
    })()
      .catch((error: unknown) => log.warn({ err: error }, 'webhook processing failed'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  /** Forgets events processed longer than `keepMs` ago; events not yet processed are always kept. */
  async function purgeProcessed(keepMs = PROCESSED_KEEP_MS): Promise<number> {
    const gone = await db
      .delete(xeroWebhookEvents)
      .where(
        and(
          isNotNull(xeroWebhookEvents.processedAt),
          lt(xeroWebhookEvents.processedAt, new Date(Date.now() - keepMs)),
        ),
      )
      .returning({ id: xeroWebhookEvents.id });
    return gone.length;
  }

  return { store, drain, purgeProcessed };
}
export type WebhookProcessor = ReturnType<typeof createWebhookProcessor>;
