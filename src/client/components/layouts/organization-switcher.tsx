import { confirmDiscardUnsaved } from '@/client/lib/unsaved-changes';
import { Building2, ChevronDown, RefreshCw } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { UserOrganization } from '@/shared/organizations';
import { getOrganizationName, sortOrganizationsByName } from '@/shared/organizations-rules';
import { useDeferredElement } from '@/client/lib/deferred-component';
import { whenIdle } from '@/client/lib/idle';
import { queryKeys } from '@/client/lib/query-client';
import { useSwitchOrganization, useUserOrganizations } from '@/client/lib/organizations';
import { cn } from '@/client/lib/utils';
import { SELECT_TRIGGER_CLASS } from '@/client/components/ui/select-trigger-class';
import { Spinner } from '@/client/components/ui/spinner';
import type { OrganizationSelectProps } from './organization-select';

const loadOrganizationSelect = () => import('./organization-select').then((module) => module.default);

/** The spinner of a manual refresh shows at least this long (docs/product/shell.md §9 Refresh spinner). */
const REFRESH_SPINNER_MS = 500;

/**
 * The header's organisation switcher (docs/product/shell.md §2): connected organisations only, sorted by
 * name, the active one emphasised; disabled during a change or refresh.
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
      <DeferredOrganizationSelect
        connected={connected}
        active={active}
        changing={changing}
        disabled={changing || refreshing}
        onChoose={(organizationId) => {
          // Unsaved changes (Settings) are not dropped by a switch without asking (issue 17 item 11).
          if (confirmDiscardUnsaved()) switchOrganization.mutate({ organizations: all, organizationId });
        }}
      />
    </div>
  );
}

/**
 * Radix Select is a separate chunk (bench/results.md §3: first screen). It downloads once the browser is
 * idle, so it does not queue in front of the page's requests, or at once when the placeholder is pressed,
 * which then opens the list as soon as it arrives.
 */
function DeferredOrganizationSelect(props: Omit<OrganizationSelectProps, 'defaultOpen'>) {
  const [wanted, setWanted] = useState(false);
  const [openRequested, setOpenRequested] = useState(false);
  useEffect(() => whenIdle(() => setWanted(true)), []);
  const placeholder = (
    <OrganizationSelectPlaceholder
      active={props.active}
      disabled={props.disabled}
      onPress={() => {
        setOpenRequested(true);
        setWanted(true);
      }}
    />
  );
  return useDeferredElement(
    loadOrganizationSelect,
    wanted,
    { ...props, defaultOpen: openRequested },
    placeholder,
  );
}

function SelectShell({ text, busy = false }: { text: string; busy?: boolean }) {
  return (
    <div
      aria-disabled="true"
      className="flex h-9 min-w-0 flex-1 items-center gap-2 rounded-lg border border-input bg-muted/50 px-3 text-sm text-muted-foreground"
    >
      {busy ? (
        <Spinner className="size-4" label={text} />
      ) : (
        <Building2 aria-hidden className="size-4 shrink-0" />
      )}
      <span className="truncate">{text}</span>
    </div>
  );
}

/** The Select's closed trigger, drawn the same way, until its chunk is there; a press opens the list then. */
function OrganizationSelectPlaceholder({
  active,
  disabled,
  onPress,
}: {
  active: UserOrganization | undefined;
  disabled: boolean;
  onPress: () => void;
}) {
  return (
    <button
      type="button"
      role="combobox"
      aria-expanded="false"
      aria-label="Organization"
      disabled={disabled}
      data-placeholder={active ? undefined : ''}
      className={cn(SELECT_TRIGGER_CLASS, 'min-w-0 flex-1')}
      onClick={onPress}
    >
      <span className="flex min-w-0 items-center gap-2">
        <Building2 aria-hidden className="size-4 shrink-0 text-muted-foreground" />
        <span className="truncate">{active ? getOrganizationName(active) : 'Select organization'}</span>
      </span>
      <ChevronDown aria-hidden className="size-4 shrink-0 opacity-60" />
    </button>
  );
}
