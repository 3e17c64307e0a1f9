import { apiPaths } from '@/client/config/paths';
import { api } from '@/client/lib/api-client';

/**
 * POST /api/xero/connections/refresh: the server reads Xero's list of connections again, so an organisation
 * disconnected in Xero's own web app shows as not connected (issue 33 item 4). Answers the names of those
 * newly found disconnected. No zod here: the Organizations page is the first screen after sign-in
 * (decision 022).
 */
export async function refreshConnections(): Promise<string[]> {
  const answer: unknown = await api.post(apiPaths.xeroConnectionsRefresh);
  const names =
    answer && typeof answer === 'object' && 'disconnectedInXero' in answer
      ? (answer as { disconnectedInXero: unknown }).disconnectedInXero
      : [];
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
}
