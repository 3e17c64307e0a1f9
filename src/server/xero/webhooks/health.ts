import { and, eq, inArray, lt, max, min, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroInvoices, xeroWebhookFeed, xeroWebhookHealth, xeroWebhookRanges } from '../../db/schema/index';
import {
  decideRefresh,
  evaluateWebhookHealth,
  WEBHOOK_SILENCE_MS,
  type RefreshDecision,
  type WebhookHealth,
} from '../../../shared/webhook-health';
import type { XeroWebhookPayload } from './payload';

/** Xero retries a failed delivery for up to 24 hours; a gap still open after this is given up. */
export const GAP_GIVE_UP_MS = 25 * 3_600_000;
const FEED_ID = 1;
/** Writes Xero announces with an INVOICE or CONTACT event (a payment changes its invoice). */
const ANNOUNCED_WRITE =
  /^\/api\.xro\/2\.0\/(Invoices|Payments|BatchPayments|Contacts|CreditNotes|Overpayments|Prepayments)(\/|$)/i;

export type FallbackReason = Extract<RefreshDecision, { useCache: false }>['reason'];
/** What the cache is asked for: a standard refresh of a view, or one invoice's balance before a payment. */
export type CacheCheck = 'refresh' | 'payment';

/**
 * The facts behind the live-updates rule (src/shared/webhook-health.ts; docs/decisions/018-webhooks.md,
 * "Fallback"), kept in the database so every instance sees the same: the app's delivery stream (when it
 * began, up to which sequence it is whole, what arrived past a gap) and, per organisation, whether a delivery
 * is awaited. Answers the organisation cards and whether a standard refresh may skip Xero.
 */
export function createWebhookHealth(deps: {
  db: Db;
  keyConfigured: boolean;
  now?: () => Date;
  /** A refresh went to Xero instead of the cache, and why (metrics). */
  onFallback?: (reason: FallbackReason) => void;
}) {
  const { db, keyConfigured } = deps;
  const now = deps.now ?? (() => new Date());

  /** Advances the stream's sequence: a delivery past a missing one is kept aside until the gap fills. */
  async function recordSequence(first: number, last: number, at: Date) {
    await db.transaction(async (tx) => {
      const [feed] = await tx
        .select()
        .from(xeroWebhookFeed)
        .where(eq(xeroWebhookFeed.id, FEED_ID))
        .for('update');
      let done = feed?.sequenceDone ?? null;
      if (done === null || first <= done + 1) done = Math.max(done ?? last, last);
      else
        await tx
          .insert(xeroWebhookRanges)
          .values({ firstSequence: first, lastSequence: last, receivedAt: at });
      // Deliveries kept aside that now join the whole part are absorbed.
      for (;;) {
        const [joined] = await tx
          .select({ last: max(xeroWebhookRanges.lastSequence) })
          .from(xeroWebhookRanges)
          .where(lt(xeroWebhookRanges.firstSequence, done + 2));
        if (joined?.last == null) break;
        await tx.delete(xeroWebhookRanges).where(lt(xeroWebhookRanges.firstSequence, done + 2));
        done = Math.max(done, Number(joined.last));
      }
      await tx.update(xeroWebhookFeed).set({ sequenceDone: done }).where(eq(xeroWebhookFeed.id, FEED_ID));
    });
  }

  return {
    /**
     * A correctly signed delivery arrived (the intent-to-receive check included): webhooks have begun; its
     * sequence joins the stream; each organisation it names is no longer awaiting one. Deliveries that come
     * back after they had stopped mark the organisation suspect: its cached views are read from Xero once.
     */
    async recordDelivery(payload: XeroWebhookPayload): Promise<void> {
      const at = now();
      await db.insert(xeroWebhookFeed).values({ id: FEED_ID, firstDeliveryAt: at }).onConflictDoNothing();
      await db
        .update(xeroWebhookFeed)
        .set({
          firstDeliveryAt: sql`coalesce(${xeroWebhookFeed.firstDeliveryAt}, ${at.toISOString()}::timestamptz)`,
        })
        .where(eq(xeroWebhookFeed.id, FEED_ID));
      if (payload.events.length === 0 || payload.lastEventSequence <= 0) return;
      await recordSequence(payload.firstEventSequence, payload.lastEventSequence, at);
      const tenants = [...new Set(payload.events.map((e) => e.tenantId.toLowerCase()))];
      const stoppedBefore = new Date(at.getTime() - WEBHOOK_SILENCE_MS).toISOString();
      for (const tenantId of tenants) {
        await db
          .insert(xeroWebhookHealth)
          .values({ tenantId, lastDeliveryAt: at })
          .onConflictDoUpdate({
            target: xeroWebhookHealth.tenantId,
            set: {
              lastDeliveryAt: at,
              awaitingSince: null,
              suspectSince: sql`case when ${xeroWebhookHealth.awaitingSince} <= ${stoppedBefore}::timestamptz then ${at.toISOString()}::timestamptz else ${xeroWebhookHealth.suspectSince} end`,
            },
          });
      }
    },

    /**
     * Ledgerlink changed something in Xero for the organisation (or read a change made there at `at`): a
     * delivery naming it is due. Kept as the earliest such moment not yet followed by a delivery.
     */
    async expectDelivery(tenantId: string, at: Date = now()): Promise<void> {
      if (!keyConfigured) return;
      // Xero announces only what happens after it began sending: a change read that was made before then (or
      // anything before the first delivery) is owed no delivery.
      const [feed] = await db.select().from(xeroWebhookFeed).where(eq(xeroWebhookFeed.id, FEED_ID));
      if (!feed?.firstDeliveryAt || feed.firstDeliveryAt > at) return;
      const tenant = tenantId.toLowerCase();
      await db
        .insert(xeroWebhookHealth)
        .values({ tenantId: tenant, awaitingSince: at })
        .onConflictDoUpdate({
          target: xeroWebhookHealth.tenantId,
          set: { awaitingSince: sql`least(${xeroWebhookHealth.awaitingSince}, excluded.awaiting_since)` },
          setWhere: sql`${xeroWebhookHealth.lastDeliveryAt} is null or ${xeroWebhookHealth.lastDeliveryAt} < excluded.awaiting_since`,
        });
    },

    /** Feed of the Xero client: a successful write Xero announces with a webhook. */
    onXeroCall(event: { tenantId: string | null; method: string; path: string; status: number }): void {
      if (!keyConfigured || !event.tenantId || event.method === 'GET') return;
      if (event.status < 200 || event.status >= 300 || !ANNOUNCED_WRITE.test(event.path)) return;
      void this.expectDelivery(event.tenantId).catch(() => undefined);
    },

    /** Each organisation's live updates, for the organisation cards. */
    async healthOf(tenantIds: readonly string[]): Promise<Map<string, WebhookHealth>> {
      const lower = [...new Set(tenantIds.map((t) => t.toLowerCase()))];
      const [feed, gap, rows] = await Promise.all([
        db.select().from(xeroWebhookFeed).where(eq(xeroWebhookFeed.id, FEED_ID)),
        db.select({ seenAt: min(xeroWebhookRanges.receivedAt) }).from(xeroWebhookRanges),
        lower.length > 0
          ? db.select().from(xeroWebhookHealth).where(inArray(xeroWebhookHealth.tenantId, lower))
          : Promise.resolve([]),
      ]);
      const byTenant = new Map(rows.map((r) => [r.tenantId, r]));
      const at = now().getTime();
      const result = new Map<string, WebhookHealth>();
      for (const tenantId of tenantIds) {
        const row = byTenant.get(tenantId.toLowerCase());
        result.set(
          tenantId,
          evaluateWebhookHealth({
            keyConfigured,
            firstDeliveryAt: feed[0]?.firstDeliveryAt?.getTime() ?? null,
            gapSeenAt: gap[0]?.seenAt ? new Date(gap[0].seenAt).getTime() : null,
            awaitingSince: row?.awaitingSince?.getTime() ?? null,
            now: at,
          }),
        );
      }
      return result;
    },

    /**
     * May a standard refresh of a view last read from Xero at `viewSyncedAt` be answered from the cache?
     * Yes only while live updates are on and nothing since may have been missed (decideRefresh). The same
     * question is asked of one cached invoice before a payment (`check: 'payment'`); only a refresh's
     * fallback is counted (`onFallback`, the refreshes that asked Xero instead of the cache).
     */
    async mayUseCache(
      ctx: { organizationId: number; tenantId: string },
      viewSyncedAt: Date | null,
      check: CacheCheck = 'refresh',
    ): Promise<boolean> {
      const fallBack = (reason: FallbackReason) => {
        if (check === 'refresh') deps.onFallback?.(reason);
      };
      if (!keyConfigured) {
        fallBack('no-key');
        return false;
      }
      const [health, feed, row, stale] = await Promise.all([
        this.healthOf([ctx.tenantId]),
        db.select().from(xeroWebhookFeed).where(eq(xeroWebhookFeed.id, FEED_ID)),
        db.select().from(xeroWebhookHealth).where(eq(xeroWebhookHealth.tenantId, ctx.tenantId.toLowerCase())),
        db
          .select({ id: xeroInvoices.invoiceId })
          .from(xeroInvoices)
          .where(
            and(
              eq(xeroInvoices.organizationId, ctx.organizationId),
              lt(xeroInvoices.syncedAt, new Date(86_400_000)),
            ),
          )
          .limit(1),
      ]);
      const decision = decideRefresh({
        health: health.get(ctx.tenantId) ?? { state: 'fallback', reason: 'not-started', since: null },
        viewSyncedAt: viewSyncedAt?.getTime() ?? null,
        firstDeliveryAt: feed[0]?.firstDeliveryAt?.getTime() ?? null,
        suspectSince: row[0]?.suspectSince?.getTime() ?? null,
        staleRows: stale.length > 0,
      });
      if (!decision.useCache) fallBack(decision.reason);
      return decision.useCache;
    },

    /**
     * A gap Xero will no longer fill (it retries for a day): the missing deliveries are lost, so the stream
     * starts again whole from here and every cached view is read from Xero once. Run by the sweep.
     */
    async giveUpOldGaps(): Promise<boolean> {
      const at = now();
      const [oldest] = await db.select({ seenAt: min(xeroWebhookRanges.receivedAt) }).from(xeroWebhookRanges);
      if (!oldest?.seenAt || at.getTime() - new Date(oldest.seenAt).getTime() < GAP_GIVE_UP_MS) return false;
      await db.transaction(async (tx) => {
        const [top] = await tx.select({ last: max(xeroWebhookRanges.lastSequence) }).from(xeroWebhookRanges);
        await tx.delete(xeroWebhookRanges);
        await tx
          .update(xeroWebhookFeed)
          .set({
            sequenceDone: sql`greatest(${xeroWebhookFeed.sequenceDone}, ${Number(top?.last ?? 0)})`,
            firstDeliveryAt: at,
          })
          .where(eq(xeroWebhookFeed.id, FEED_ID));
      });
      return true;
    },
  };
}
export type WebhookHealthService = ReturnType<typeof createWebhookHealth>;
