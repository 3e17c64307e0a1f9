import { describe, expect, it } from 'vitest';
import {
  HEARTBEAT_STALE_MS,
  isOpenWriteState,
  isSenderAlive,
  isWriteStale,
  MAX_IN_FLIGHT_MS,
  hasWriteMark,
  msUntilStale,
  withoutWriteMark,
  withWriteMark,
  writeMarkOf,
  type XeroWriteState,
} from './rules';

const T0 = Date.parse('2026-11-27T09:00:00Z');
const row = (state: XeroWriteState, sentAgoMs: number | null, createdAgoMs = sentAgoMs ?? 0) => ({
  state,
  sentAt: sentAgoMs === null ? null : new Date(T0 - sentAgoMs),
  createdAt: new Date(T0 - createdAgoMs),
});

describe('the staleness rule (one for every write kind)', () => {
  it('settles at once a write whose instance stopped beating, sent a moment ago or never sent', () => {
    expect(isWriteStale(row('sent', 1_000), false, T0)).toBe(true);
    expect(isWriteStale(row('pending', null, 500), false, T0)).toBe(true);
  });

  it('leaves a write alone while its live instance waits for the answer, up to the in-flight limit', () => {
    expect(isWriteStale(row('sent', 1_000), true, T0)).toBe(false);
    expect(isWriteStale(row('sent', MAX_IN_FLIGHT_MS - 1), true, T0)).toBe(false);
    expect(isWriteStale(row('sent', MAX_IN_FLIGHT_MS + 1), true, T0)).toBe(true);
  });

  it('looks up a write whose answer was lost at once, and never touches a settled one', () => {
    expect(isWriteStale(row('unknown', 10), true, T0)).toBe(true);
    for (const state of ['confirmed', 'failed', 'needs_review'] as const)
      expect(isWriteStale(row(state, MAX_IN_FLIGHT_MS * 10), false, T0)).toBe(false);
  });

  it('calls an instance dead after four missed heartbeats, and one that never beat dead too', () => {
    expect(isSenderAlive(0)).toBe(true);
    expect(isSenderAlive(HEARTBEAT_STALE_MS - 1)).toBe(true);
    expect(isSenderAlive(HEARTBEAT_STALE_MS)).toBe(false);
    expect(isSenderAlive(null)).toBe(false);
    // A retry after a kill -9 is answered within 10 s of the restart (issue 28 item 5).
    expect(HEARTBEAT_STALE_MS).toBeLessThanOrEqual(10_000);
  });

  it("tells a retry to come back when the sender's heartbeat would have gone stale", () => {
    const sent = row('sent', 1_000);
    expect(msUntilStale(sent, { alive: true, beatAgeMs: 1_500 }, T0)).toBe(HEARTBEAT_STALE_MS - 1_500);
    expect(msUntilStale(sent, { alive: false, beatAgeMs: HEARTBEAT_STALE_MS + 1 }, T0)).toBe(0);
    // A write recorded before heartbeats: only the in-flight limit.
    expect(msUntilStale(sent, { alive: true, beatAgeMs: null }, T0)).toBe(MAX_IN_FLIGHT_MS - 1_000);
  });

  it('names the open states once', () => {
    expect(['pending', 'sent', 'unknown'].every(isOpenWriteState)).toBe(true);
    expect(['confirmed', 'failed', 'needs_review', 'other'].some(isOpenWriteState)).toBe(false);
  });
});

describe('the mark a write leaves in Xero', () => {
  it('keeps what a person wrote, adds a short mark of the key, and stays within the field', () => {
    const key = '0190f0c4-7a5e-7c3b-9f1e-2b3c4d5e6f70';
    const marked = withWriteMark('Cash payment for INV-0042', key);
    expect(marked).toMatch(/^Cash payment for INV-0042 \[LL-[0-9a-f]{10}\]$/);
    expect(hasWriteMark(marked, key)).toBe(true);
    expect(hasWriteMark(marked, `${key}x`)).toBe(false);
    const long = withWriteMark('x'.repeat(300), key);
    expect(long).toHaveLength(255);
    expect(hasWriteMark(long, key)).toBe(true);
    expect(withWriteMark('', key)).toBe(`[${writeMarkOf(key)}]`);
  });

  it('comes off again for the screens and the activity log, leaving what people read', () => {
    const key = 'journal-key-1';
    const reference = 'Stock Transfer Journal - 3 Nov 2025 to 9 Nov 2025';
    expect(withoutWriteMark(withWriteMark(reference, key))).toBe(reference);
    expect(withoutWriteMark(withWriteMark('', key))).toBe('');
    expect(withoutWriteMark(`${reference} [not a mark]`)).toBe(`${reference} [not a mark]`);
  });
});
