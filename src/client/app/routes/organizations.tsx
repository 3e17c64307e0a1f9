import { OrganizationsPage } from '@/client/features/organizations/components/organizations-page';
import { useDocumentTitle } from '@/client/lib/document-title';

export default function OrganizationsRoute() {
  useDocumentTitle('Your Xero Organizations');
  return <OrganizationsPage />;
}
