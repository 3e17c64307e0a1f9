import { describe, expect, it } from 'vitest';
import {
  CONNECTION_LOSS_TEXTS,
  describeConnectionLoss,
  describeNotIncluded,
  getConnectionState,
  normalizeConnectionStatus,
  NEVER_CONNECTED_ERROR,
  NO_CONNECTED_ORGANIZATION_ERROR,
} from './connection-rules';

const NOW = Date.parse('2026-03-02T09:00:00Z');
const inMinutes = (m: number) => new Date(NOW + m * 60_000).toISOString();

describe('the connection in one state (issue 45 item 2)', () => {
  it('connected, with the token state of docs/product/shell.md §4', () => {
    expect(getConnectionState({ connected: true, tokenExpiry: inMinutes(20) }, NOW)).toEqual({
      kind: 'connected',
      token: 'valid',
    });
    expect(getConnectionState({ connected: true, tokenExpiry: inMinutes(3) }, NOW)).toEqual({
      kind: 'connected',
      token: 'expiring',
    });
    expect(getConnectionState({ connected: true, tokenExpiry: inMinutes(-1) }, NOW)).toEqual({
      kind: 'connected',
      token: 'expired',
    });
  });

  it('lost, with the reason the server found; before it says, still lost', () => {
    const revoked = { connected: false, error: 'Token refresh failed', lostReason: 'revoked' as const };
    expect(getConnectionState(revoked)).toEqual({ kind: 'lost', reason: 'revoked' });
    expect(getConnectionState({ connected: false, error: 'Token refresh failed' })).toEqual({
      kind: 'lost',
      reason: null,
    });
    expect(
      getConnectionState({
        connected: false,
        error: 'No refresh token, reconnection required',
        lostReason: 'expired',
      }),
    ).toEqual({ kind: 'lost', reason: 'expired' });
    expect(
      getConnectionState({ connected: false, error: NO_CONNECTED_ORGANIZATION_ERROR, lostReason: 'removed' }),
    ).toEqual({ kind: 'lost', reason: 'removed' });
  });

  it('none, never and unknown are told apart', () => {
    expect(getConnectionState({ connected: false, error: NO_CONNECTED_ORGANIZATION_ERROR })).toEqual({
      kind: 'none',
    });
    expect(getConnectionState({ connected: false, error: NEVER_CONNECTED_ERROR })).toEqual({ kind: 'never' });
    expect(
      getConnectionState({ connected: false, error: 'Unknown error getting connection status' }),
    ).toEqual({
      kind: 'unknown',
    });
    expect(getConnectionState(undefined)).toEqual({ kind: 'unknown' });
  });

  it('a normalised status keeps the reason only while not connected, and only a known one', () => {
    expect(normalizeConnectionStatus({ connected: false, lostReason: 'revoked' }).lostReason).toBe('revoked');
    expect(normalizeConnectionStatus({ connected: true, lostReason: 'revoked' }).lostReason).toBeNull();
    expect(
      normalizeConnectionStatus({ connected: false, lostReason: 'stolen' as unknown as 'revoked' })
        .lostReason,
    ).toBeNull();
  });

  it('one wording, saying what happened', () => {
    expect(describeConnectionLoss('expired').title).toBe('Xero connection expired');
    expect(describeConnectionLoss('revoked').title).toBe('Xero access revoked');
    expect(describeConnectionLoss('removed').title).toBe('Removed in Xero');
    expect(describeConnectionLoss(null).title).toBe('Xero connection lost');
    for (const text of Object.values(CONNECTION_LOSS_TEXTS)) expect(text.explanation).toMatch(/[.]$/);
  });

  it('names what a consent left out', () => {
    expect(describeNotIncluded(['Demo Builders Ltd'])).toBe(
      'Demo Builders Ltd was not included in what you allowed in Xero',
    );
    expect(describeNotIncluded(['A Ltd', 'B Ltd', 'C Ltd'])).toBe(
      'A Ltd, B Ltd and C Ltd were not included in what you allowed in Xero',
    );
  });
});
