import { queryOptions, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import {
  CONNECTION_ERRORS,
  getConnectionState,
  isReconnectionRequired,
  isTokenRefreshPending,
  normalizeConnectionStatus,
  type ConnectionState,
  type NormalizedConnectionStatus,
} from '@/shared/connection-rules';
import { apiPaths } from '@/client/config/paths';
import { api, getMessage } from './api-client';
import { lazySchema } from './lazy-schema';
import { CONNECTION_QUERY_OPTIONS, queryKeys } from './query-client';
import { markSessionExpired } from './session';
import { LOCAL_KEYS, readStorage, writeStorage } from './storage';
import { useUser } from './auth';
import { onXeroAccessLost } from './xero-access';

export type Connection = NormalizedConnectionStatus;

/**
 * The saved defaults of docs/product/shell.md §3/§4: kept in local storage and restored when the connection
 * fails.
 */
export interface SavedDefaults {
  defaultBillAccountId: string;
  defaultBillVatRateId: string;
  defaultStockJournalContactId: string;
  defaultStockJournalMarginRate: number;
}

export function saveDefaults(connection: Connection): void {
  const saved: SavedDefaults = {
    defaultBillAccountId: connection.defaultBillAccountId,
    defaultBillVatRateId: connection.defaultBillVatRateId,
    defaultStockJournalContactId: connection.defaultStockJournalContactId,
    defaultStockJournalMarginRate: connection.defaultStockJournalMarginRate,
  };
  writeStorage('local', LOCAL_KEYS.savedDefaults, JSON.stringify(saved));
}

export function readSavedDefaults(): Partial<SavedDefaults> {
  const raw = readStorage('local', LOCAL_KEYS.savedDefaults);
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw);
    if (!value || typeof value !== 'object') return {};
    const record = value as Record<string, unknown>;
    const text = (key: keyof SavedDefaults) =>
      typeof record[key] === 'string' ? (record[key] as string) : undefined;
    const margin = record.defaultStockJournalMarginRate;
    const out: Partial<SavedDefaults> = {};
    const bill = text('defaultBillAccountId');
    const vat = text('defaultBillVatRateId');
    const contact = text('defaultStockJournalContactId');
    if (bill !== undefined) out.defaultBillAccountId = bill;
    if (vat !== undefined) out.defaultBillVatRateId = vat;
    if (contact !== undefined) out.defaultStockJournalContactId = contact;
    if (typeof margin === 'number' && Number.isFinite(margin) && margin >= 1)
      out.defaultStockJournalMarginRate = margin;
    return out;
  } catch {
    return {};
  }
}

function disconnected(error: string): Connection {
  return normalizeConnectionStatus({ connected: false, error });
}

/** Applies the saved-defaults rule and the session-expired flag to a fetched status. */
function finish(connection: Connection): Connection {
  if (connection.error?.includes(CONNECTION_ERRORS.notAuthenticated)) markSessionExpired();
  if (connection.connected) {
    saveDefaults(connection);
    return connection;
  }
  if (connection.error) return { ...connection, ...readSavedDefaults() };
  return connection;
}

export interface GetConnectionOptions {
  /** During an organisation switch: cache-busting parameters and no-cache headers. */
  bustCacheForOrg?: string | number;
  signal?: AbortSignal;
}

/**
 * GET /api/xero/connection. Never throws: a failed call reports connected false with an error text
 * (docs/product/shell.md §4 Connection).
 */
export async function getConnection(options: GetConnectionOptions = {}): Promise<Connection> {
  const bust = options.bustCacheForOrg !== undefined;
  try {
    const raw = await api.get(
      bust
        ? apiPaths.xeroConnection({ t: Date.now(), org: options.bustCacheForOrg })
        : apiPaths.xeroConnection(),
      {
        schema: lazySchema('connectionStatusSchema'),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(bust ? { noCache: true, headers: { 'Cache-Control': 'no-cache', Pragma: 'no-cache' } } : {}),
      },
    );
    return finish(normalizeConnectionStatus(raw));
  } catch (error) {
    // The status's error text is also read by the rules (reconnect, session expired): those stay as sent.
    const raw = error instanceof Error ? error.message : '';
    const ruled = isReconnectionRequired(raw) || raw.includes(CONNECTION_ERRORS.notAuthenticated);
    return finish(disconnected(ruled ? raw : getMessage(error, CONNECTION_ERRORS.unknown)));
  }
}

export const connectionQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.connection,
    queryFn: ({ signal }) => getConnection({ signal }),
    ...CONNECTION_QUERY_OPTIONS,
  });

/** Minimum time between two automatic re-fetches after "Token is about to expire" / "Token has expired". */
const AUTO_REFETCH_GAP_MS = 15_000;

/**
 * The connection status of the signed-in user. On "Token is about to expire" or "Token has expired" the
 * connection and organisation data are re-fetched automatically (docs/product/shell.md §4).
 */
export function useConnection() {
  const { data: user } = useUser();
  const queryClient = useQueryClient();
  const query = useQuery({ ...connectionQueryOptions(), enabled: Boolean(user) });
  const lastAutoRefetch = useRef(0);
  const error = query.data?.error;
  const updatedAt = query.dataUpdatedAt;
  useEffect(() => {
    if (!isTokenRefreshPending(error)) return;
    const now = Date.now();
    if (now - lastAutoRefetch.current < AUTO_REFETCH_GAP_MS) return;
    lastAutoRefetch.current = now;
    void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
    void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
  }, [error, updatedAt, queryClient]);
  return query;
}

/**
 * An answer saying the Xero connection is gone moves the cached status to "reconnection required" at once (the
 * header shows Reconnect, the feature pages their reconnect states); the organisation cards are read again.
 */
export function markConnectionLost(queryClient: QueryClient): void {
  const current = queryClient.getQueryData<Connection>(queryKeys.connection);
  if (current && !current.connected && isReconnectionRequired(current.error)) return;
  queryClient.setQueryData<Connection>(queryKeys.connection, {
    ...disconnected(CONNECTION_ERRORS.noRefreshToken),
    ...readSavedDefaults(),
    ...(current ? { tenantName: current.tenantName, organizationId: current.organizationId } : {}),
  });
  void queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations });
  // The server knows why (expired, revoked, removed in Xero: issue 45 item 2): read it, so every screen says
  // it. Only a status that agrees the connection is gone replaces this one; otherwise the usual re-read decides.
  void getConnection().then((fresh) => {
    if (!fresh.connected) queryClient.setQueryData<Connection>(queryKeys.connection, fresh);
  });
}

/** Wires the "Xero access lost" answers of the fetch wrapper to the connection status; returns the unsubscribe. */
export function watchXeroAccessLost(queryClient: QueryClient): () => void {
  return onXeroAccessLost(() => markConnectionLost(queryClient));
}

/**
 * Xero no longer accepts the user's tokens (expired or revoked, issue 45 item 2): nothing of any organisation can
 * be read until a reconnect, and the screens say why in the one wording (`describeConnectionLoss`). An
 * organisation removed in Xero is not this: its card says so, and the others carry on.
 */
export function needsReconnection(connection: Connection | undefined): boolean {
  const state = getConnectionState(connection);
  return state.kind === 'lost' && state.reason !== 'removed';
}

/** The connection in one state (src/shared/connection-rules.ts `getConnectionState`): what every screen reads. */
export function useConnectionState(): ConnectionState {
  const { data } = useConnection();
  return getConnectionState(data);
}
