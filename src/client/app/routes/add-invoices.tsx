import { AddInvoicesPage } from '@/client/features/add-invoices/components/add-invoices-page';
import { useLiveEvents } from '@/client/lib/live-events';
import { useDocumentTitle } from '@/client/lib/document-title';

/** Add Invoices (docs/product/features.md §2): the screen lives in `src/client/features/add-invoices`. */
export default function AddInvoicesRoute() {
  useDocumentTitle('Add Invoices', { organization: true });
  // Changes made in Xero or another browser update the screen in place (issue 18).
  useLiveEvents();
  return <AddInvoicesPage />;
}
