import { OutboxPage } from '@/client/features/cis-returns/components/outbox-page';

/** Demo mode's outbox (issue 43): the screen lives in `src/client/features/cis-returns`. */
export default function OutboxRoute() {
  return <OutboxPage />;
}
