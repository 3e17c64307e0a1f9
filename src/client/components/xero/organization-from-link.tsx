import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { useSearch } from 'wouter';
import { getOrganizationName } from '@/shared/organizations-rules';
import { getMessage } from '@/client/lib/api-client';
import { needsReconnection, useConnection } from '@/client/lib/connection';
import { switchOrganization, useUserOrganizations } from '@/client/lib/organizations';
import { toast } from '@/client/lib/toast';
import { PageSpinner } from '@/client/components/ui/spinner';

/**
 * A link that names an organisation (`?org={id}`: Settings' own link, docs/product/shell.md §2, and each figure
 * of the Today page, issue 47) opens its page on that organisation: when it is not the active one it is
 * activated first, by the header's switch protocol, with the header's "Organization Changed" toast, or
 * "Selection Error" when it cannot be chosen (the page then shows the active organisation). True while
 * switching.
 */
export function useOrganizationFromLink(): boolean {
  const search = useSearch();
  const queryClient = useQueryClient();
  const { data: connection } = useConnection();
  const organizations = useUserOrganizations();
  const requested = new URLSearchParams(search).get('org');
  const [switching, setSwitching] = useState(false);
  // The organisation a switch was tried for: once only per link, whatever came of it.
  const [tried, setTried] = useState<string | null>(null);

  useEffect(() => {
    if (!requested || !connection || !organizations.data || tried === requested) return;
    // Xero refuses the tokens: a switch would poll for a connection that cannot come (issue 33 item 3).
    if (needsReconnection(connection)) return;
    if (connection.connected && String(connection.organizationId) === requested) return;
    setTried(requested);
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
  }, [requested, connection, organizations.data, queryClient, tried]);

  // About to switch (the effect runs after this render): the page must not show the other organisation meanwhile.
  const aboutToSwitch = Boolean(
    requested &&
    connection &&
    organizations.data &&
    !needsReconnection(connection) &&
    !(connection.connected && String(connection.organizationId) === requested) &&
    tried !== requested,
  );
  return switching || aboutToSwitch;
}

/**
 * A feature page opened from a link naming an organisation: the page waits, behind "Selecting the
 * organization", until that organisation is the active one, so it never shows another organisation's figures
 * under the link that promised these.
 */
export function OrganizationFromLink({ children }: { children: ReactNode }) {
  const search = useSearch();
  const requested = new URLSearchParams(search).get('org');
  const { data: connection } = useConnection();
  const organizations = useUserOrganizations();
  const switching = useOrganizationFromLink();
  const waiting =
    Boolean(requested) &&
    (switching ||
      // The switch has not started yet: the lists it needs are on their way.
      ((!connection || !organizations.data) && !needsReconnection(connection)));
  if (waiting) return <PageSpinner label="Selecting the organization" />;
  return <>{children}</>;
}
