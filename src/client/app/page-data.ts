import type { QueryClient } from '@tanstack/react-query';
import { resolveFeatureFlags, type FeatureKey } from '@/shared/feature-flags-rules';
import { paths } from '@/client/config/paths';
import { currentUserQueryOptions } from '@/client/lib/auth';
import { connectionQueryOptions } from '@/client/lib/connection';
import { userOrganizationsQueryOptions } from '@/client/lib/organizations';
import { pagePathOf } from './page-chunks';

/** A page whose own data is asked for at start-up: its feature, and the request it makes first. */
interface PageData {
  feature: FeatureKey;
  /** Loads the feature's request (a small chunk of its own, fetched beside the page's) and starts it. */
  load: () => Promise<{ prefetch: (queryClient: QueryClient, orgId: number) => Promise<void> }>;
}

const PAGE_DATA: Record<string, PageData> = {
  [paths.invoices.path]: {
    feature: 'pay-invoices',
    load: () =>
      import('@/client/features/pay-invoices/api/get-invoices').then((m) => ({
        prefetch: m.prefetchInvoices,
      })),
  },
};

/**
 * Starts the first request of the page in the address bar at start-up (issue 32, first invoice on screen in
 * ≤ 2 s on a first visit). Left to the page, it would go only once the page's chunk had arrived and the shell's
 * guards had rendered and asked who is signed in, the connection and the organisation's features, one after
 * the other; a first visit's list waits for Xero besides, so every round trip before it is time on screen.
 * Here the same questions go as soon as each answer allows (who is signed in; then the connection and the
 * organisations together; then the page's request), with the same query keys, so the page and its guards
 * find the answers in the cache or on their way. Nothing is asked that the page would not ask: no request
 * for a visitor who is signed out, an organisation not connected or a feature that is off.
 *
 * Resolves once the page's request has gone (or is known not to go; at once for a page without data of its
 * own), not when it is answered. The page's chunk downloads meanwhile (src/client/main.tsx): the server began
 * reading a first visit's list from Xero as it sent the page, so these questions have until Xero answers.
 */
export async function prefetchPageData(path: string, queryClient: QueryClient): Promise<void> {
  const page = PAGE_DATA[pagePathOf(path)];
  if (!page) return;
  const request = page.load();
  // A chunk that fails to load here is loaded (or reported) by the page itself.
  request.catch(() => undefined);
  try {
    const user = await queryClient.fetchQuery(currentUserQueryOptions());
    if (!user) return;
    const [connection, organizations] = await Promise.all([
      queryClient.fetchQuery(connectionQueryOptions()),
      queryClient.fetchQuery(userOrganizationsQueryOptions()),
    ]);
    const orgId = connection.organizationId;
    if (!connection.connected || orgId === null) return;
    const active = organizations.find((org) => org.isActive);
    if (!resolveFeatureFlags(active, connection)[page.feature]) return;
    void (await request).prefetch(queryClient, orgId);
  } catch {
    // Only a head start: the page asks for itself, and says what went wrong.
  }
}
