import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import {
  checkActiveOrganizationChoice,
  getOrganizationName,
  type UserOrganization,
} from '@/shared/organizations';
import { paths } from '@/client/config/paths';
import { getMessage } from '@/client/lib/api-client';
import { invalidateOrganizationData, switchOrganization } from '@/client/lib/organizations';
import { queryKeys } from '@/client/lib/query-client';
import { toast } from '@/client/lib/toast';
import { sleep } from '@/client/lib/utils';
import { disconnectOrganization } from '../api/disconnect-organization';

/**
 * After activating from a card the app navigates after 0.5 s (docs/product/shell.md §9 Post-select
 * navigation).
 */
export const POST_SELECT_NAVIGATION_MS = 500;

/**
 * Card actions of docs/product/shell.md §4 (Organization): Activate, a feature button and Settings.
 * Activating uses the same switch protocol as the header, so the next page sees the chosen organisation.
 */
export function useOrganizationActions(organizations: readonly UserOrganization[]) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [pendingId, setPendingId] = useState<number | null>(null);

  async function activate(org: UserOrganization): Promise<boolean> {
    const check = checkActiveOrganizationChoice(organizations, org.organizationId);
    if (!check.ok) {
      toast({ title: 'Selection Error', description: check.message, variant: 'destructive' });
      return false;
    }
    setPendingId(org.organizationId);
    try {
      const result = await switchOrganization(queryClient, organizations, org.organizationId);
      toast({
        title: 'Organization Changed',
        description: `Now working with: ${result.connection?.tenantName || getOrganizationName(org)}`,
        variant: 'success',
      });
      return true;
    } catch (error) {
      toast({
        title: 'Activation Error',
        description: getMessage(error, `Could not activate ${getOrganizationName(org)}`),
        variant: 'destructive',
      });
      return false;
    } finally {
      setPendingId(null);
    }
  }

  async function activateOnly(org: UserOrganization): Promise<void> {
    if (org.isActive) {
      toast({
        title: 'Already Active',
        description: `${getOrganizationName(org)} is already the active organization.`,
      });
      return;
    }
    await activate(org);
  }

  function go(href: string): void {
    try {
      navigate(href);
    } catch (error) {
      toast({
        title: 'Navigation Error',
        description: getMessage(error, `Could not open ${href}`),
        variant: 'destructive',
      });
    }
  }

  async function openPage(org: UserOrganization, href: string): Promise<void> {
    if (org.isActive) {
      go(href);
      return;
    }
    if (!(await activate(org))) return;
    await sleep(POST_SELECT_NAVIGATION_MS);
    go(href);
  }

  /** Disconnect (issue 33 item 4): the card turns to "Not connected"; another organisation may become active. */
  async function disconnect(org: UserOrganization): Promise<boolean> {
    const name = getOrganizationName(org);
    setPendingId(org.organizationId);
    try {
      await disconnectOrganization(org.organizationId);
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.userOrganizations }),
        invalidateOrganizationData(queryClient),
      ]);
      toast({
        title: 'Disconnected from Xero',
        description: `${name} is no longer connected. Its history is kept; Connect on its card brings it back.`,
        variant: 'success',
      });
      return true;
    } catch (error) {
      toast({
        title: 'Disconnect Error',
        description: getMessage(error, `Could not disconnect ${name}`),
        variant: 'destructive',
      });
      return false;
    } finally {
      setPendingId(null);
    }
  }

  return {
    pendingId,
    disconnect,
    activate: activateOnly,
    openFeature: openPage,
    openSettings: async (org: UserOrganization) => {
      if (!org.isActive && !(await activate(org))) return;
      go(paths.settings.getHref(org.organizationId));
    },
  };
}
