import { useEffect } from 'react';
import { useConnection } from './connection';

/** The product's name, last in every tab title and the title before any page has set one. */
export const APP_TITLE = 'Ledgerlink';

/**
 * A browser tab's title (issue 45 item 4): the screen, the organisation where the screen works on one, then
 * the product, e.g. "Pay Invoices · Demo Shop Ltd · Ledgerlink".
 */
export function formatDocumentTitle(screen: string, organization?: string | null): string {
  return [screen, organization?.trim() || null, APP_TITLE].filter(Boolean).join(' · ');
}

/**
 * Names the screen in the browser tab while the calling page is shown. `organization: true` adds the active
 * organisation once the connection says which it is (nothing while it is not connected). Back to "Ledgerlink"
 * when the page goes.
 */
export function useDocumentTitle(screen: string, options: { organization?: boolean } = {}): void {
  const { data: connection } = useConnection();
  const organization = options.organization && connection?.connected ? connection.tenantName : null;
  const title = formatDocumentTitle(screen, organization);
  useEffect(() => {
    document.title = title;
    return () => {
      document.title = APP_TITLE;
    };
  }, [title]);
}
