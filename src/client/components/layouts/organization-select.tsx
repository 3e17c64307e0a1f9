import { Building2 } from 'lucide-react';
import type { UserOrganization } from '@/shared/organizations';
import { getOrganizationName } from '@/shared/organizations-rules';
import { cn } from '@/client/lib/utils';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { Spinner } from '@/client/components/ui/spinner';

export interface OrganizationSelectProps {
  /** Connected organisations, sorted by name. */
  connected: readonly UserOrganization[];
  active: UserOrganization | undefined;
  changing: boolean;
  disabled: boolean;
  /** Open at once: the placeholder was pressed while this chunk was on its way. */
  defaultOpen?: boolean;
  onChoose: (organizationId: string) => void;
}

/**
 * The switcher's Radix Select, in its own chunk: the header draws `OrganizationSelectPlaceholder` (same look)
 * until it arrives, so Radix Select is not part of the first screen's download (bench/results.md §3).
 */
export default function OrganizationSelect({
  connected,
  active,
  changing,
  disabled,
  defaultOpen = false,
  onChoose,
}: OrganizationSelectProps) {
  const activeValue = active ? String(active.organizationId) : '';
  return (
    <Select
      defaultOpen={defaultOpen}
      value={activeValue}
      disabled={disabled}
      onValueChange={(value) => {
        if (value !== activeValue) onChoose(value);
      }}
    >
      <SelectTrigger aria-label="Organization" className="min-w-0 flex-1">
        <span className="flex min-w-0 items-center gap-2">
          {changing ? (
            <Spinner className="size-4" label="Changing organization" />
          ) : (
            <Building2 aria-hidden className="size-4 shrink-0 text-muted-foreground" />
          )}
          <span className="truncate">
            <SelectValue placeholder="Select organization" />
          </span>
        </span>
      </SelectTrigger>
      <SelectContent>
        {connected.map((org) => (
          <SelectItem
            key={org.organizationId}
            value={String(org.organizationId)}
            className={cn(org.isActive && 'font-semibold text-foreground')}
          >
            {getOrganizationName(org)}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}
