import { describe, expect, it } from 'vitest';
import {
  decideRefresh,
  evaluateWebhookHealth,
  WEBHOOK_GAP_GRACE_MS,
  WEBHOOK_SILENCE_MS,
  type WebhookHealthFacts,
} from './webhook-health';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const healthy: WebhookHealthFacts = {
  keyConfigured: true,
  firstDeliveryAt: NOW - 3_600_000,
  gapSeenAt: null,
  awaitingSince: null,
  now: NOW,
};

describe('evaluateWebhookHealth', () => {
  it('is live with a key, deliveries arriving, no gap and nothing awaited for long', () => {
    expect(evaluateWebhookHealth(healthy)).toEqual({ state: 'live' });
    expect(evaluateWebhookHealth({ ...healthy, awaitingSince: NOW - WEBHOOK_SILENCE_MS + 1 })).toEqual({
      state: 'live',
    });
  });

  it('falls back without a key, whatever else is known', () => {
    const health = evaluateWebhookHealth({ ...healthy, keyConfigured: false, gapSeenAt: NOW - 1e6 });
    expect(health).toEqual({ state: 'fallback', reason: 'no-key', since: null });
  });

  it('falls back while Xero has never sent a delivery (not registered yet)', () => {
    expect(evaluateWebhookHealth({ ...healthy, firstDeliveryAt: null })).toMatchObject({
      state: 'fallback',
      reason: 'not-started',
    });
  });

  it('waits a short while for a sequence gap to fill before falling back', () => {
    expect(evaluateWebhookHealth({ ...healthy, gapSeenAt: NOW - WEBHOOK_GAP_GRACE_MS + 1000 })).toEqual({
      state: 'live',
    });
    const gap = evaluateWebhookHealth({ ...healthy, gapSeenAt: NOW - WEBHOOK_GAP_GRACE_MS });
    expect(gap).toEqual({ state: 'fallback', reason: 'gap', since: new Date(NOW).toISOString() });
  });

  it('falls back when a delivery awaited for the organisation has not come for a while', () => {
    const silent = evaluateWebhookHealth({ ...healthy, awaitingSince: NOW - WEBHOOK_SILENCE_MS - 5000 });
    expect(silent).toEqual({
      state: 'fallback',
      reason: 'silent',
      since: new Date(NOW - 5000).toISOString(),
    });
  });
});

describe('decideRefresh', () => {
  const live = { state: 'live' } as const;
  const base = {
    health: live,
    viewSyncedAt: NOW - 60_000,
    firstDeliveryAt: NOW - 3_600_000,
    suspectSince: null,
    staleRows: false,
  };

  it('trusts the cache while live and the view was read from Xero since webhooks began', () => {
    expect(decideRefresh(base)).toEqual({ useCache: true });
  });

  it('asks Xero in fallback, naming the reason', () => {
    expect(decideRefresh({ ...base, health: { state: 'fallback', reason: 'gap', since: null } })).toEqual({
      useCache: false,
      reason: 'gap',
    });
  });

  it('asks Xero once to catch up: never read, read before webhooks began, before trouble, or a stale row', () => {
    expect(decideRefresh({ ...base, viewSyncedAt: null })).toEqual({ useCache: false, reason: 'catch-up' });
    expect(decideRefresh({ ...base, firstDeliveryAt: NOW - 1000 })).toEqual({
      useCache: false,
      reason: 'catch-up',
    });
    expect(decideRefresh({ ...base, suspectSince: NOW - 1000 })).toEqual({
      useCache: false,
      reason: 'catch-up',
    });
    expect(decideRefresh({ ...base, staleRows: true })).toEqual({ useCache: false, reason: 'catch-up' });
    // The refresh that caught up is newer than the trouble: trusted again.
    expect(decideRefresh({ ...base, suspectSince: NOW - 120_000 })).toEqual({ useCache: true });
  });
});
