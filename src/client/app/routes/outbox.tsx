import { OutboxPage } from '@/client/features/cis-returns/components/outbox-page';
import { useDocumentTitle } from '@/client/lib/document-title';

/** Demo mode's outbox (issue 43): the screen lives in `src/client/features/cis-returns`. */
export default function OutboxRoute() {
  useDocumentTitle('Outbox', { organization: true });
  return <OutboxPage />;
}
