import { isTokenAboutToExpireError, type UserMessage } from '@/shared/cis-bills';
import type { Connection } from '@/client/lib/connection';

/**
 * Before a write (docs/product/features.md §8): not connected or no tenant is a 'Connection Error'; a
 * connection error mentioning 'Not authenticated' or 'expire' is 'Session Expired', except "token is about to
 * expire", which is still usable.
 */
export function checkConnectionForWrite(connection: Connection): UserMessage | null {
  const error = connection.error ?? '';
  if (!isTokenAboutToExpireError(error) && /Not authenticated|expire/i.test(error)) {
    return { title: 'Session Expired', description: error };
  }
  if ((!connection.connected && !isTokenAboutToExpireError(error)) || !connection.tenantId) {
    return { title: 'Connection Error', description: 'Not connected to Xero. Connect again and retry.' };
  }
  return null;
}
