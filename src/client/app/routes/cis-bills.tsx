import { CisBillsPage } from '@/client/features/cis-bills/components/cis-bills-page';

/** CIS Bills (spec 001 §2): the screen lives in `src/client/features/cis-bills`. */
export default function CISBillsRoute() {
  return <CisBillsPage />;
}
