import { PageHeader } from '@/client/components/layouts/page-header';

/**
 * Pay Invoices (spec 001 §2). The route already checks sign-in, the Xero connection and the feature flag; the
 * screen itself lives in `src/client/features/pay-invoices` and is composed here.
 */
export default function PayInvoicesRoute() {
  return <PageHeader title="Pay Invoices" description="Record card and cash payments against outstanding sales invoices." />;
}
