import { RefreshCw } from 'lucide-react';
import { useState } from 'react';
import type { AdminOrganization } from '@/shared/admin';
import { FEATURE_FLAG_FIELDS, FEATURE_KEYS, FEATURE_LABELS, type FeatureKey } from '@/shared/feature-flags';
import { getOrganizationName } from '@/shared/organizations';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { sleep } from '@/client/lib/utils';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { Switch } from '@/client/components/ui/switch';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useAdminOrganizations } from '../api/get-admin-organizations';
import { useUpdateOrganizationFeatures } from '../api/update-organization-features';

/** The refresh spinner shows at least 500 ms (docs/product/shell.md §9). */
const REFRESH_SPINNER_MS = 500;

function organizationName(org: AdminOrganization): string {
  return getOrganizationName({ tenantName: org.tenantName });
}

/**
 * Organizations tab (docs/product/shell.md §2 Admin panel): one toggle per feature for each organisation, and
 * Refresh.
 */
export function OrganizationsTab() {
  const organizations = useAdminOrganizations(true);
  const toggle = useUpdateOrganizationFeatures();
  const [refreshing, setRefreshing] = useState(false);
  const rows = organizations.data ?? [];

  function change(org: AdminOrganization, feature: FeatureKey, enabled: boolean) {
    const field = FEATURE_FLAG_FIELDS[feature];
    toggle.mutate(
      { organizationId: org.id, field, enabled },
      {
        onSuccess: () =>
          toast({
            title: 'Features updated',
            description: `${FEATURE_LABELS[feature]} is now ${enabled ? 'on' : 'off'} for ${organizationName(org)}.`,
            variant: 'success',
          }),
        onError: (error) =>
          toast({
            title: 'Failed to update features',
            description: getMessage(error, 'The change was not saved.'),
            variant: 'destructive',
          }),
      },
    );
  }

  async function refresh() {
    setRefreshing(true);
    try {
      const [result] = await Promise.all([organizations.refetch(), sleep(REFRESH_SPINNER_MS)]);
      if (result.isError) throw result.error;
    } catch (error) {
      toast({
        title: 'Refresh failed',
        description: getMessage(error, 'Could not load the organizations.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(false);
    }
  }

  const switchFor = (org: AdminOrganization, feature: FeatureKey) => (
    <Switch
      checked={org[FEATURE_FLAG_FIELDS[feature]]}
      onCheckedChange={(checked) => change(org, feature, checked)}
      aria-label={`${FEATURE_LABELS[feature]} for ${organizationName(org)}`}
    />
  );

  return (
    <Card>
      <CardHeader className="flex-col items-stretch gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <CardTitle>Organization Feature Management</CardTitle>
          <CardDescription className="mt-1">
            Switch each feature on or off per organization. Changes apply to every user of that organization.
          </CardDescription>
        </div>
        <Button
          variant="outline"
          size="sm"
          className="shrink-0 self-start"
          onClick={() => void refresh()}
          disabled={refreshing}
        >
          {refreshing ? (
            <Spinner className="size-4" label="Refreshing organizations" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Refresh
        </Button>
      </CardHeader>
      <CardContent>
        {organizations.isLoading ? (
          <div className="flex justify-center py-10">
            <Spinner className="size-6" label="Loading organizations" />
          </div>
        ) : organizations.isError && rows.length === 0 ? (
          <p className="py-6 text-center text-sm text-destructive">
            {getMessage(organizations.error, 'Could not load the organizations.')}
          </p>
        ) : rows.length === 0 ? (
          <p className="py-6 text-center text-sm text-muted-foreground">
            No organizations have been connected yet.
          </p>
        ) : (
          <Table className="max-sm:block">
            <TableHeader className="max-sm:hidden">
              <TableRow>
                <TableHead className="whitespace-normal">Organization</TableHead>
                {FEATURE_KEYS.map((feature) => (
                  <TableHead key={feature} className="whitespace-normal text-center">
                    {FEATURE_LABELS[feature]}
                  </TableHead>
                ))}
              </TableRow>
            </TableHeader>
            <TableBody className="max-sm:block">
              {rows.map((org) => (
                <TableRow key={org.id} className="max-sm:block max-sm:py-2">
                  <TableCell className="font-medium max-sm:block max-sm:pb-1">
                    {organizationName(org)}
                  </TableCell>
                  {FEATURE_KEYS.map((feature) => (
                    <TableCell
                      key={feature}
                      className="text-center max-sm:flex max-sm:items-center max-sm:justify-between max-sm:py-1.5"
                    >
                      <span aria-hidden className="text-sm text-muted-foreground sm:hidden">
                        {FEATURE_LABELS[feature]}
                      </span>
                      {switchFor(org, feature)}
                    </TableCell>
                  ))}
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}
