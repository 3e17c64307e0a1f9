import { describe, expect, it } from 'vitest';
import { normalizeConnectionStatus } from '@/shared/connection';
import { checkConnectionForWrite } from './check-connection';

const connection = (raw: Parameters<typeof normalizeConnectionStatus>[0]) => normalizeConnectionStatus(raw);

describe('connection checks before a CIS write (001 §8)', () => {
  it('lets a live connection through, and a token about to expire too', () => {
    expect(checkConnectionForWrite(connection({ connected: true, tenantId: 't' }))).toBeNull();
    expect(
      checkConnectionForWrite(
        connection({ connected: false, tenantId: 't', error: 'Token is about to expire' }),
      ),
    ).toBeNull();
  });

  it('stops on an expired session or a missing connection', () => {
    expect(checkConnectionForWrite(connection({ connected: false, error: 'Not authenticated' }))?.title).toBe(
      'Session Expired',
    );
    expect(
      checkConnectionForWrite(connection({ connected: false, tenantId: 't', error: 'Token has expired' }))
        ?.title,
    ).toBe('Session Expired');
    expect(checkConnectionForWrite(connection({ connected: false }))?.title).toBe('Connection Error');
    expect(checkConnectionForWrite(connection({ connected: true }))?.title).toBe('Connection Error');
  });
});
