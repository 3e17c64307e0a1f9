import { CisBillsPage } from '@/client/features/cis-bills/components/cis-bills-page';
import { useLiveEvents } from '@/client/lib/live-events';
import { useDocumentTitle } from '@/client/lib/document-title';

/** CIS Bills (docs/product/features.md §2): the screen lives in `src/client/features/cis-bills`. */
export default function CISBillsRoute() {
  useDocumentTitle('CIS Bills', { organization: true });
  // Changes made in Xero or another browser update the screen in place (issue 18).
  useLiveEvents();
  return <CisBillsPage />;
}
