import { useState } from 'react';
import { getCisPageState } from '@/shared/cis-bills';
import { PageHeader } from '@/client/components/layouts/page-header';
import { PageSpinner } from '@/client/components/ui/spinner';
import { MissingDefaultsNotice } from '@/client/components/xero/missing-defaults-notice';
import { useConnection, type Connection } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { CreateBillsCard } from './create-bills-card';
import { DraftBillsCard } from './draft-bills-card';
import { HmrcVerificationCard } from './hmrc-verification-card';
import { CisFeatureDisabledState, CisNotConnectedState, SessionExpiredState } from './cis-page-states';

/**
 * CIS Bills (docs/product/features.md §2): four states — session expired, not connected, feature disabled,
 * and the main view with the "Create CIS Bills" and "Draft CIS Bills" cards.
 */
export function CisBillsPage() {
  const { data: connection, isLoading } = useConnection();
  const { flags, isLoading: flagsLoading } = useFeatureFlags();
  // Set by an approve that met an authentication error (docs/product/features.md §8), on top of the
  // connection's own error.
  const [sessionExpired, setSessionExpired] = useState(false);

  if (isLoading || !connection) return <PageSpinner label="Checking the Xero connection" />;
  const state = sessionExpired
    ? 'session-expired'
    : getCisPageState({
        connected: connection.connected,
        error: connection.error,
        featureCisBills: flagsLoading || flags['cis-bills'],
      });
  if (state === 'session-expired') return <SessionExpiredState />;
  if (state === 'not-connected' || connection.organizationId === null) return <CisNotConnectedState />;
  if (state === 'disabled') return <CisFeatureDisabledState />;
  return (
    <CisBillsMain
      key={connection.organizationId}
      connection={connection}
      orgId={connection.organizationId}
      onSessionExpired={() => setSessionExpired(true)}
    />
  );
}

function CisBillsMain({
  connection,
  orgId,
  onSessionExpired,
}: {
  connection: Connection;
  orgId: number;
  onSessionExpired: () => void;
}) {
  return (
    <div>
      <PageHeader
        title="CIS Bills"
        description={`Create Construction Industry Scheme subcontractor bills and manage drafts${connection.tenantName ? ` for ${connection.tenantName}` : ''}.`}
      />
      <div className="grid grid-cols-1 gap-6">
        <MissingDefaultsNotice feature="cis-bills" defaults={connection} organizationId={orgId} />
        <CreateBillsCard connection={connection} orgId={orgId} />
        <DraftBillsCard connection={connection} orgId={orgId} onSessionExpired={onSessionExpired} />
        <HmrcVerificationCard orgId={orgId} />
      </div>
    </div>
  );
}
