import { PageHeader } from '@/client/components/layouts/page-header';

/**
 * Stock Journal (spec 001 §2). The route already checks sign-in, the Xero connection and the feature flag; the
 * screen itself lives in `src/client/features/stock-journal` and is composed here.
 */
export default function StockJournalRoute() {
  return <PageHeader title="Stock Journal" description="Review sales by week and post stock transfer journals." />;
}
