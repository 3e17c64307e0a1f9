import { PayInvoicesPage } from '@/client/features/pay-invoices/components/pay-invoices-page';
import { useLiveEvents } from '@/client/lib/live-events';
import { useDocumentTitle } from '@/client/lib/document-title';

/**
 * Pay Invoices (docs/product/features.md §2). The route already checks sign-in, the Xero connection and the
 * feature flag; the screen itself lives in `src/client/features/pay-invoices` and is composed here.
 */
export default function PayInvoicesRoute() {
  useDocumentTitle('Pay Invoices', { organization: true });
  // Changes made in Xero or another browser update the screen in place (issue 18).
  useLiveEvents();
  return <PayInvoicesPage />;
}
