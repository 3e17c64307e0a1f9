import { OrganizationsPage } from '@/client/features/organisations/components/organizations-page';

export default function OrganizationsRoute() {
  return <OrganizationsPage />;
}
