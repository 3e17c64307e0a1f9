import { Lock } from 'lucide-react';
import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { FEATURE_LABELS, type FeatureKey } from '@/shared/feature-flags-rules';
import { paths } from '@/client/config/paths';
import { useConnection } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { toast } from '@/client/lib/toast';
import { PageSpinner } from '@/client/components/ui/spinner';
import { ConnectPanel } from './connect-panel';

/** If not connected, a protected page shows the connect page instead of its content (spec 000 §2). */
export function RequireXeroConnection({ children }: { children: ReactNode }) {
  const { data: connection, isLoading } = useConnection();
  if (isLoading || !connection) return <PageSpinner label="Checking the Xero connection" />;
  if (!connection.connected) return <ConnectPanel />;
  return <>{children}</>;
}

/** After the "Feature not available" toast the user goes to /organizations (spec 000 §9). */
export const FEATURE_REDIRECT_DELAY_MS = 500;

/**
 * The feature-route guard (spec 000 §4 Organization): when the active organisation lacks the page's feature,
 * toast "Feature not available", keep the organisation, and go to /organizations after 500 ms.
 */
export function FeatureGuard({ feature, children }: { feature: FeatureKey; children: ReactNode }) {
  const { flags, isLoading } = useFeatureFlags();
  const [, navigate] = useLocation();
  const warned = useRef(false);
  const enabled = flags[feature];

  useEffect(() => {
    if (isLoading || enabled) return;
    if (!warned.current) {
      warned.current = true;
      toast({
        title: 'Feature not available',
        description: 'The selected organization does not have access to this feature. Redirecting to organization page.',
        variant: 'destructive',
      });
    }
    const timer = setTimeout(() => navigate(paths.organizations.getHref()), FEATURE_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [enabled, isLoading, navigate]);

  if (isLoading) return <PageSpinner />;
  if (!enabled) {
    return (
      <div className="mx-auto flex max-w-md flex-col items-center gap-3 py-16 text-center">
        <div className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
          <Lock aria-hidden className="size-6" />
        </div>
        <h1 className="text-lg font-semibold">Feature not available</h1>
        <p className="text-sm text-muted-foreground">
          {FEATURE_LABELS[feature]} is not enabled for the selected organization. Redirecting to organization page.
        </p>
      </div>
    );
  }
  return <>{children}</>;
}
