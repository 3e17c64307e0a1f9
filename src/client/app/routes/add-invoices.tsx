import { PageHeader } from '@/client/components/layouts/page-header';

/**
 * Add Invoices (spec 001 §2). The route already checks sign-in, the Xero connection and the feature flag; the
 * screen itself lives in `src/client/features/add-invoices` and is composed here.
 */
export default function AddInvoicesRoute() {
  return <PageHeader title="Add Invoices" description="Add cash sales and approve draft invoices." />;
}
