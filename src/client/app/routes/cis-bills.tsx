import { PageHeader } from '@/client/components/layouts/page-header';

/**
 * CIS Bills (spec 001 §2). The route already checks sign-in, the Xero connection and the feature flag; the
 * screen itself lives in `src/client/features/cis-bills` and is composed here.
 */
export default function CISBillsRoute() {
  return <PageHeader title="CIS Bills" description="Create Construction Industry Scheme subcontractor bills and manage drafts." />;
}
