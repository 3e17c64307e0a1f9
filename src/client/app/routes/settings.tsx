import { ArrowLeft } from 'lucide-react';
import { useLocation, useSearch } from 'wouter';
import { paths } from '@/client/config/paths';
import { needsReconnection, useConnection } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Button } from '@/client/components/ui/button';
import { PageSpinner } from '@/client/components/ui/spinner';
import { useOrganizationFromLink } from '@/client/components/xero/organization-from-link';
import { ReconnectNeeded } from '@/client/components/xero/reconnect-needed';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/client/components/ui/tabs';
import { AdminPanel } from '@/client/features/admin/components/admin-panel';
import { CisSettingsCard } from '@/client/features/cis-returns/components/cis-settings-card';
import { HmrcSettingsCard } from '@/client/features/cis-returns/components/hmrc-settings-card';
import { SettingsGeneral } from '@/client/features/settings/components/settings-general';
import { confirmDiscardUnsaved } from '@/client/lib/unsaved-changes';
import { useDocumentTitle } from '@/client/lib/document-title';

/**
 * /settings (docs/product/shell.md §2): Back, and the General and Admin tabs composed from the settings and
 * admin features.
 */
export default function SettingsRoute() {
  const [, navigate] = useLocation();
  const search = useSearch();
  const { data: connection, isLoading } = useConnection();
  const { flags, isLoading: flagsLoading } = useFeatureFlags();
  // `/settings?org={id}` (docs/product/shell.md §2, §4): the card's Settings button activates the organisation
  // before coming here; someone arriving with another organisation in the link gets it activated the same way.
  const switching = useOrganizationFromLink();
  const tab = new URLSearchParams(search).get('tab');
  const initialTab = tab === 'admin' || tab === 'review' ? 'admin' : 'general';
  useDocumentTitle('Settings', { organization: true });

  function goBack() {
    if (!confirmDiscardUnsaved()) return;
    if (window.history.length > 1) window.history.back();
    else navigate(paths.organizations.getHref());
  }

  return (
    <div>
      <Button variant="ghost" size="sm" className="-ml-2 mb-3" onClick={goBack}>
        <ArrowLeft aria-hidden /> Back
      </Button>
      <PageHeader
        title="Settings"
        description={
          connection?.connected && connection.tenantName
            ? `Defaults for ${connection.tenantName}`
            : 'Defaults used by each feature'
        }
      />
      {/* Keyed by the tab in the link, so "Switch it on in Admin" from the General tab opens Admin. */}
      <Tabs key={initialTab} defaultValue={initialTab}>
        <TabsList>
          <TabsTrigger value="general">General</TabsTrigger>
          <TabsTrigger value="admin">Admin</TabsTrigger>
        </TabsList>
        <TabsContent value="general">
          {needsReconnection(connection) ? (
            <ReconnectNeeded what="this organization's accounts, VAT rates and contacts" />
          ) : switching ? (
            <PageSpinner label="Selecting the organization" />
          ) : (
            <>
              <SettingsGeneral connection={connection} isLoading={isLoading || flagsLoading} flags={flags} />
              {connection?.connected && connection.organizationId !== null && flags['cis-bills'] ? (
                <>
                  <CisSettingsCard orgId={connection.organizationId} />
                  <HmrcSettingsCard orgId={connection.organizationId} />
                </>
              ) : null}
            </>
          )}
        </TabsContent>
        <TabsContent value="admin">
          <AdminPanel initialTab={tab === 'review' ? 'review' : undefined} />
        </TabsContent>
      </Tabs>
    </div>
  );
}
