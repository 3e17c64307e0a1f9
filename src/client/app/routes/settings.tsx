import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { getOrganizationName } from '@/shared/organizations';
import { paths } from '@/client/config/paths';
import { getMessage } from '@/client/lib/api-client';
import { needsReconnection, useConnection, type Connection } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { switchOrganization, useUserOrganizations } from '@/client/lib/organizations';
import { toast } from '@/client/lib/toast';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Button } from '@/client/components/ui/button';
import { PageSpinner } from '@/client/components/ui/spinner';
import { ReconnectNeeded } from '@/client/components/xero/reconnect-needed';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/client/components/ui/tabs';
import { AdminPanel } from '@/client/features/admin/components/admin-panel';
import { CisSettingsCard } from '@/client/features/cis-returns/components/cis-settings-card';
import { HmrcSettingsCard } from '@/client/features/cis-returns/components/hmrc-settings-card';
import { SettingsGeneral } from '@/client/features/settings/components/settings-general';
import { confirmDiscardUnsaved } from '@/client/lib/unsaved-changes';
import { useDocumentTitle } from '@/client/lib/document-title';

/**
 * `/settings?org={id}` (docs/product/shell.md §2, §4): the card's Settings button activates the organisation
 * before coming here; someone arriving with another organisation in the link gets it activated the same way
 * (the header's switch protocol), and "Selection Error" when it cannot be chosen.
 */
function useOrganizationFromLink(connection: Connection | undefined): boolean {
  const search = useSearch();
  const queryClient = useQueryClient();
  const organizations = useUserOrganizations();
  const requested = new URLSearchParams(search).get('org');
  const [switching, setSwitching] = useState(false);
  const tried = useRef<string | null>(null);

  useEffect(() => {
    if (!requested || !connection || !organizations.data || tried.current === requested) return;
    // Xero refuses the tokens: a switch would poll for a connection that cannot come (issue 33 item 3).
    if (needsReconnection(connection)) return;
    if (connection.connected && String(connection.organizationId) === requested) return;
    tried.current = requested;
    const list = organizations.data;
    setSwitching(true);
    switchOrganization(queryClient, list, requested)
      .then((result) =>
        toast({
          title: 'Organization Changed',
          description: `Now working with: ${result.connection?.tenantName || getOrganizationName(result.organization)}`,
          variant: 'success',
        }),
      )
      .catch((error: unknown) =>
        toast({
          title: 'Selection Error',
          description: getMessage(error, 'Could not select the organization'),
          variant: 'destructive',
        }),
      )
      .finally(() => setSwitching(false));
  }, [requested, connection, organizations.data, queryClient]);

  return switching;
}

/**
 * /settings (docs/product/shell.md §2): Back, and the General and Admin tabs composed from the settings and
 * admin features.
 */
export default function SettingsRoute() {
  const [, navigate] = useLocation();
  const search = useSearch();
  const { data: connection, isLoading } = useConnection();
  const { flags, isLoading: flagsLoading } = useFeatureFlags();
  const switching = useOrganizationFromLink(connection);
  const initialTab = new URLSearchParams(search).get('tab') === 'admin' ? 'admin' : 'general';
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
          <AdminPanel />
        </TabsContent>
      </Tabs>
    </div>
  );
}
