import { describe, expect, it } from 'vitest';
import { describeWebhookHealth } from './live-updates';

describe("the organisation card's words for live updates (decision 018)", () => {
  it('says live updates are on, or why Ledgerlink is checking Xero on each refresh', () => {
    expect(describeWebhookHealth({ state: 'live' })).toBe(
      'On: changes made in Xero show here within seconds.',
    );
    expect(describeWebhookHealth({ state: 'fallback', reason: 'no-key', since: null })).toBe(
      'Live updates from Xero are off: changes made in Xero show on refresh.',
    );
    expect(describeWebhookHealth({ state: 'fallback', reason: 'not-started', since: null })).toBe(
      'Xero has not sent any updates yet; Ledgerlink is checking Xero on each refresh.',
    );
    for (const reason of ['gap', 'silent'] as const)
      expect(describeWebhookHealth({ state: 'fallback', reason, since: '2026-11-24T12:00:00.000Z' })).toBe(
        "Xero's updates have stopped arriving; Ledgerlink is checking Xero on each refresh.",
      );
  });
});
