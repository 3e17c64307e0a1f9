import { OrganizationsPage } from '@/client/features/organizations/components/organizations-page';

export default function OrganizationsRoute() {
  return <OrganizationsPage />;
}
