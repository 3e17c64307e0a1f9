import { Building2, ChevronDown, RefreshCw } from 'lucide-react';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { UserOrganization } from '@/shared/organizations';
import { getOrganizationName, sortOrganizationsByName } from '@/shared/organizations-rules';
import { queryKeys } from '@/client/lib/query-client';
import { useSwitchOrganization, useUserOrganizations } from '@/client/lib/organizations';
import { cn } from '@/client/lib/utils';
import { SELECT_TRIGGER_CLASS } from '@/client/components/ui/select-trigger-class';
import { Spinner } from '@/client/components/ui/spinner';

const loadOrganizationSelect = () => import('./organization-select');
const OrganizationSelect = lazy(loadOrganizationSelect);

/** The spinner of a manual refresh shows at least this long (spec 000 §9 Refresh spinner). */
const REFRESH_SPINNER_MS = 500;

/**
 * The header's organisation switcher (spec 000 §2): connected organisations only, sorted by name, the active
 * one emphasised; disabled during a change or refresh.
 */
export function OrganizationSwitcher({ className }: { className?: string }) {
  const queryClient = useQueryClient();
  const organizationsQuery = useUserOrganizations();
  const switchOrganization = useSwitchOrganization();
  const [refreshing, setRefreshing] = useState(false);
  const all = organizationsQuery.data;
  const connected = useMemo(() => sortOrganizationsByName((all ?? []).filter((org) => org.connected)), [all]);
  const active = connected.find((org) => org.isActive);
  const changing = switchOrganization.isPending;

  // The Select chunk downloads beside the organisation list, not after it.
  useEffect(() => {
    loadOrganizationSelect().catch(() => undefined);
  }, []);

  async function refresh() {
    setRefreshing(true);
    const started = Date.now();
    await Promise.all([
      queryClient.refetchQueries({ queryKey: queryKeys.connection }),
      queryClient.refetchQueries({ queryKey: queryKeys.userOrganizations }),
    ]);
    const left = REFRESH_SPINNER_MS - (Date.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    setRefreshing(false);
  }

  const box = cn('w-full sm:w-[300px] lg:w-[340px]', className);

  if (organizationsQuery.isLoading) {
    return (
      <div className={box}>
        <SelectShell text="Loading organizations..." busy />
      </div>
    );
  }
  if (!all || all.length === 0) {
    return (
      <div className={box}>
        <SelectShell text="No organizations available" />
      </div>
    );
  }
  if (connected.length === 0) {
    return (
      <div className={cn(box, 'flex items-center gap-2')}>
        <SelectShell text="No connected organizations available" />
        <button
          type="button"
          onClick={() => void refresh()}
          disabled={refreshing}
          className="inline-flex shrink-0 items-center gap-1 text-sm font-medium text-primary hover:underline disabled:opacity-60"
        >
          <RefreshCw aria-hidden className={cn('size-3.5', refreshing && 'animate-spin')} /> Refresh
        </button>
      </div>
    );
  }

  return (
    <div className={cn(box, 'flex items-center gap-2')}>
      <Suspense fallback={<OrganizationSelectPlaceholder active={active} />}>
        <OrganizationSelect
          connected={connected}
          active={active}
          changing={changing}
          disabled={changing || refreshing}
          onChoose={(organizationId) => switchOrganization.mutate({ organizations: all, organizationId })}
        />
      </Suspense>
    </div>
  );
}

function SelectShell({ text, busy = false }: { text: string; busy?: boolean }) {
  return (
    <div
      aria-disabled="true"
      className="flex h-9 min-w-0 flex-1 items-center gap-2 rounded-lg border border-input bg-muted/50 px-3 text-sm text-muted-foreground"
    >
      {busy ? <Spinner className="size-4" label={text} /> : <Building2 aria-hidden className="size-4 shrink-0" />}
      <span className="truncate">{text}</span>
    </div>
  );
}

/** The Select's closed trigger, drawn the same way, for the moment its chunk is still on its way. */
function OrganizationSelectPlaceholder({ active }: { active: UserOrganization | undefined }) {
  return (
    <div aria-hidden data-placeholder={active ? undefined : ''} className={cn(SELECT_TRIGGER_CLASS, 'min-w-0 flex-1')}>
      <span className="flex min-w-0 items-center gap-2">
        <Building2 aria-hidden className="size-4 shrink-0 text-muted-foreground" />
        <span className="truncate">{active ? getOrganizationName(active) : 'Select organization'}</span>
      </span>
      <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
    </div>
  );
}
