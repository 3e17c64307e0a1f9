import { z } from 'zod';

/**
 * Whether Ledgerlink can trust Xero's webhooks for an organisation, or falls back to asking Xero on each refresh
 * (If-Modified-Since) — the rule of docs/decisions/018-webhooks.md, "Fallback". Pure: the server gathers the
 * facts (what the receiver saw, what Ledgerlink did in Xero) and the organisation card shows the words.
 */

/** A missing delivery (sequence gap) may still come: Xero retries a failed one. After this long it counts. */
export const WEBHOOK_GAP_GRACE_MS = 60_000;
/**
 * Ledgerlink changed something in Xero for an organisation (or read a change there) and no delivery for that
 * organisation has come for this long: deliveries have stopped. Xero usually delivers within seconds.
 */
export const WEBHOOK_SILENCE_MS = 120_000;

/** `connection-lost`: Xero no longer accepts the connection, so nothing of this organisation is read (issue 45). */
export const WEBHOOK_FALLBACK_REASONS = [
  'no-key',
  'not-started',
  'gap',
  'silent',
  'connection-lost',
] as const;
type WebhookFallbackReason = (typeof WEBHOOK_FALLBACK_REASONS)[number];

/** GET /api/user-organizations, `liveUpdates`: the organisation's live updates from Xero. */
export const webhookHealthSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('live') }),
  z.object({
    state: z.literal('fallback'),
    reason: z.enum(WEBHOOK_FALLBACK_REASONS),
    /** ISO 8601: since when (the gap was seen, the awaited delivery was due); null when always so. */
    since: z.string().nullable(),
  }),
]);
export type WebhookHealth = z.infer<typeof webhookHealthSchema>;

export interface WebhookHealthFacts {
  /** XERO_WEBHOOK_KEY is set on this server. */
  keyConfigured: boolean;
  /** Epoch ms of the first signed delivery this deployment accepted (intent-to-receive included), or null. */
  firstDeliveryAt: number | null;
  /** Epoch ms at which the oldest delivery still missing (a sequence gap) was first noticed, or null. */
  gapSeenAt: number | null;
  /**
   * Epoch ms since which a delivery for this organisation is awaited (Ledgerlink wrote to Xero for it, or read
   * a change there) and none has come, or null.
   */
  awaitingSince: number | null;
  now: number;
}

/**
 * The rule. In order: no key → fallback `no-key`; a key but no delivery ever → `not-started` (the webhook is
 * not registered in Xero's developer portal, or Xero has not checked it yet); a sequence gap open longer than
 * WEBHOOK_GAP_GRACE_MS → `gap` (every organisation: a sequence numbers all of the app's deliveries, so the
 * missing one may be anybody's); a delivery awaited longer than WEBHOOK_SILENCE_MS → `silent` (this
 * organisation). Otherwise live.
 */
export function evaluateWebhookHealth(facts: WebhookHealthFacts): WebhookHealth {
  const iso = (ms: number) => new Date(ms).toISOString();
  if (!facts.keyConfigured) return { state: 'fallback', reason: 'no-key', since: null };
  if (facts.firstDeliveryAt === null) return { state: 'fallback', reason: 'not-started', since: null };
  if (facts.gapSeenAt !== null && facts.now - facts.gapSeenAt >= WEBHOOK_GAP_GRACE_MS)
    return { state: 'fallback', reason: 'gap', since: iso(facts.gapSeenAt + WEBHOOK_GAP_GRACE_MS) };
  if (facts.awaitingSince !== null && facts.now - facts.awaitingSince >= WEBHOOK_SILENCE_MS)
    return { state: 'fallback', reason: 'silent', since: iso(facts.awaitingSince + WEBHOOK_SILENCE_MS) };
  return { state: 'live' };
}

export type RefreshDecision =
  { useCache: true } | { useCache: false; reason: WebhookFallbackReason | 'catch-up' };

/**
 * May a standard refresh of a cached view skip Xero (0 calls)? Only when live updates are on, the view was
 * read from Xero before (`viewSyncedAt`), after webhooks began to arrive (`firstDeliveryAt`) and after the
 * last trouble that may have lost deliveries (`suspectSince`: a gap given up, deliveries that resumed after
 * stopping), and no cached row of it is marked stale (a payment on its way to Xero). Otherwise the refresh
 * asks Xero with If-Modified-Since, as without webhooks; `catch-up` is the one refresh after trouble.
 */
export function decideRefresh(input: {
  health: WebhookHealth;
  viewSyncedAt: number | null;
  firstDeliveryAt: number | null;
  suspectSince: number | null;
  staleRows: boolean;
}): RefreshDecision {
  if (input.health.state === 'fallback') return { useCache: false, reason: input.health.reason };
  const trustedFrom = Math.max(input.firstDeliveryAt ?? Infinity, input.suspectSince ?? -Infinity);
  if (input.viewSyncedAt === null || input.viewSyncedAt < trustedFrom || input.staleRows)
    return { useCache: false, reason: 'catch-up' };
  return { useCache: true };
}
