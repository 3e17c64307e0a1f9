import { AddInvoicesPage } from '@/client/features/add-invoices/components/add-invoices-page';

/** Add Invoices (spec 001 §2): the screen lives in `src/client/features/add-invoices`. */
export default function AddInvoicesRoute() {
  return <AddInvoicesPage />;
}
