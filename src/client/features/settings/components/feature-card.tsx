import { RefreshCw } from 'lucide-react';
import type { ComponentType, ReactNode } from 'react';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { SwitchOnInAdmin, useIsAdministrator } from '@/client/components/switch-on-in-admin';
import { cn } from '@/client/lib/utils';

export const FEATURE_DISABLED_TEXT =
  'This feature is currently disabled for this organization. Please contact an administrator to enable it.';
/** What an administrator reads instead, followed by the link to the switch. */
export const FEATURE_DISABLED_ADMIN_TEXT = 'This feature is currently disabled for this organization.';

export interface FeatureCardProps {
  title: string;
  description: string;
  icon: ComponentType<{ 'aria-hidden'?: boolean; className?: string }>;
  /**
   * The organisation's flag for this feature (docs/product/shell.md §2: a card whose flag is off is dimmed
   * and locked).
   */
  enabled: boolean;
  refreshLabel: string;
  onRefresh: () => void;
  refreshing: boolean;
  /** Refresh buttons are also disabled while loading (docs/product/shell.md §2). */
  loading: boolean;
  children: ReactNode;
}

/** One feature's defaults: title, the refresh button, and its controls, all disabled when the feature is off. */
export function FeatureCard({
  title,
  description,
  icon: Icon,
  enabled,
  refreshLabel,
  onRefresh,
  refreshing,
  loading,
  children,
}: FeatureCardProps) {
  const administrator = useIsAdministrator();
  return (
    // A card whose feature is off is marked by its dashed border, badge and notice, not by fading the whole card:
    // faded text fell to 2.4–2.6:1 contrast (issue 17 item 17). Its controls are disabled (and dimmed) as such.
    <Card
      role="region"
      aria-label={title}
      className={cn('flex min-w-0 flex-col', !enabled && 'border-dashed bg-muted/30 shadow-none')}
    >
      <CardHeader className="flex-col items-stretch gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="flex min-w-0 items-start gap-3">
          <span
            className={cn(
              'mt-0.5 flex size-9 shrink-0 items-center justify-center rounded-lg',
              enabled ? 'bg-accent text-accent-foreground' : 'bg-muted text-muted-foreground',
            )}
          >
            <Icon aria-hidden className="size-4" />
          </span>
          <div className="min-w-0">
            <div className="flex flex-wrap items-center gap-2">
              <CardTitle>{title}</CardTitle>
              {!enabled ? <Badge variant="secondary">Feature disabled</Badge> : null}
            </div>
            <CardDescription className="mt-1">{description}</CardDescription>
          </div>
        </div>
        <Button
          variant="outline"
          size="sm"
          className="shrink-0 self-start"
          onClick={onRefresh}
          disabled={!enabled || loading || refreshing}
        >
          {refreshing ? (
            <Spinner className="size-4" label={`${refreshLabel} in progress`} />
          ) : (
            <RefreshCw aria-hidden />
          )}
          {refreshLabel}
        </Button>
      </CardHeader>
      <CardContent className="flex flex-1 flex-col gap-4">
        {!enabled ? (
          <p className="rounded-lg bg-muted px-3 py-2 text-sm text-muted-foreground">
            {administrator ? FEATURE_DISABLED_ADMIN_TEXT : FEATURE_DISABLED_TEXT} <SwitchOnInAdmin />
          </p>
        ) : null}
        <fieldset disabled={!enabled} className="grid min-w-0 items-start gap-4 sm:grid-cols-2">
          <legend className="sr-only">{title} defaults</legend>
          {children}
        </fieldset>
      </CardContent>
    </Card>
  );
}
