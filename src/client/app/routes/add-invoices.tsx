import { AddInvoicesPage } from '@/client/features/add-invoices/components/add-invoices-page';
import { useLiveEvents } from '@/client/lib/live-events';

/** Add Invoices (docs/product/features.md §2): the screen lives in `src/client/features/add-invoices`. */
export default function AddInvoicesRoute() {
  // Changes made in Xero or another browser update the screen in place (issue 18).
  useLiveEvents();
  return <AddInvoicesPage />;
}
