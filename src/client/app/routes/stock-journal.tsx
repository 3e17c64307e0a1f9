import { StockJournalPage } from '@/client/features/stock-journal/components/stock-journal-page';
import { useLiveEvents } from '@/client/lib/live-events';
import { useDocumentTitle } from '@/client/lib/document-title';

/**
 * Stock Journal (docs/product/features.md §2). The route already checks sign-in, the Xero connection and the
 * feature flag; the screen itself lives in `src/client/features/stock-journal` and is composed here.
 */
export default function StockJournalRoute() {
  useDocumentTitle('Stock Journal', { organization: true });
  // Changes made in Xero or another browser update the screen in place (issue 18).
  useLiveEvents();
  return <StockJournalPage />;
}
