import { PageHeader } from '@/client/components/layouts/page-header';
import { TwoStepSettings } from '@/client/features/auth/components/two-step-settings';
import { useDocumentTitle } from '@/client/lib/document-title';

/** /account/security (not in the spec): two-step sign-in for accounts with a password. */
export default function AccountSecurityRoute() {
  useDocumentTitle('Two-step sign-in');
  return (
    <div>
      <PageHeader
        title="Two-step sign-in"
        description="Protect your Ledgerlink account with a code from your phone."
      />
      <TwoStepSettings />
    </div>
  );
}
