import { CisReturnsPage } from '@/client/features/cis-returns/components/cis-returns-page';
import { useLiveEvents } from '@/client/lib/live-events';
import { useDocumentTitle } from '@/client/lib/document-title';

/** CIS Returns (issue 29): the screen lives in `src/client/features/cis-returns`. */
export default function CisReturnsRoute() {
  useDocumentTitle('CIS Returns', { organization: true });
  // A bill paid in Xero shows on the open return within seconds (Xero's webhooks, issue 18).
  useLiveEvents();
  return <CisReturnsPage />;
}
