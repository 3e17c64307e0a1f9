import { describe, expect, it } from 'vitest';
import { isOwnChangeInFlight, isOwnChangeKnown } from './processor';

// Decision 018, "Our own changes": which webhook events about an invoice need no Xero read.
describe("a delivery about Ledgerlink's own writes", () => {
  const at = (iso: string) => new Date(iso);
  const approval = at('2026-11-27T17:53:28.841Z');
  const payment = at('2026-11-27T17:53:29.077Z');
  const own = new Set([approval.getTime(), payment.getTime()]);
  const stale = { updatedUtc: at('2026-11-26T17:26:19.666Z'), syncedAt: new Date(0) };
  const holding = { updatedUtc: payment, syncedAt: at('2026-11-27T17:53:29.200Z') };

  it('is applied from the cache when the cache holds the answers, and from the ledger while the intent still runs', () => {
    expect(isOwnChangeKnown(holding, [approval, payment], own)).toBe(true);
    expect(isOwnChangeInFlight(holding, [approval, payment], own)).toBe(false);
    // The approval-with-cash intent has not stored Xero's answers yet: its row is marked stale.
    expect(isOwnChangeKnown(stale, [approval], own)).toBe(false);
    expect(isOwnChangeInFlight(stale, [approval], own)).toBe(true);
    expect(isOwnChangeInFlight(stale, [approval, payment], own)).toBe(true);
  });

  it("is read from Xero when any event is not one of its confirmed writes (a person's change), or nothing is known", () => {
    const person = at('2026-11-27T17:53:29.500Z');
    expect(isOwnChangeInFlight(stale, [approval, person], own)).toBe(false);
    expect(isOwnChangeKnown(holding, [payment, person], own)).toBe(false);
    expect(isOwnChangeInFlight(stale, [], own)).toBe(false);
    expect(isOwnChangeInFlight(undefined, [approval], own)).toBe(false);
    expect(isOwnChangeInFlight(stale, [approval], undefined)).toBe(false);
  });
});
