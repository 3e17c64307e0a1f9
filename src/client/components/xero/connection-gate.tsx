import { useEffect, useRef, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import type { FeatureKey } from '@/shared/feature-flags-rules';
import { paths } from '@/client/config/paths';
import { useConnection } from '@/client/lib/connection';
import { useFeatureFlags } from '@/client/lib/feature-access';
import { toast } from '@/client/lib/toast';
import { PageSpinner } from '@/client/components/ui/spinner';
import { ConnectPanel } from './connect-panel';

/**
 * If not connected, a protected page shows the connect page instead of its content
 * (docs/product/shell.md §2).
 */
export function RequireXeroConnection({ children }: { children: ReactNode }) {
  const { data: connection, isLoading } = useConnection();
  if (isLoading || !connection) return <PageSpinner label="Checking the Xero connection" />;
  if (!connection.connected) return <ConnectPanel />;
  return <>{children}</>;
}

/** After the "Feature not available" toast the user goes to /organizations (docs/product/shell.md §9). */
export const FEATURE_REDIRECT_DELAY_MS = 500;

/**
 * The feature-route guard (docs/product/shell.md §4 Organization): when the active organisation lacks the
 * page's feature on entry, toast "Feature not available", keep the organisation, and go to /organizations
 * after 500 ms. The page itself stays on screen meanwhile, so where 000's guard and 001's page states overlap
 * the user reads 001's words; a feature switched off while the page is open keeps the page and its 001
 * notice, with no redirect (issue 17 item 14).
 */
export function FeatureGuard({ feature, children }: { feature: FeatureKey; children: ReactNode }) {
  const { flags, isLoading } = useFeatureFlags();
  const { data: connection } = useConnection();
  const [, navigate] = useLocation();
  const warned = useRef(false);
  /** Whether the feature was off when the page was entered (null until the flags are known). */
  const offOnEntry = useRef<boolean | null>(null);
  const enabled = flags[feature];
  const connected = Boolean(connection?.connected);

  useEffect(() => {
    if (isLoading || !connection) return;
    // A page whose organisation is not connected shows its own not-connected state instead
    // (docs/product/features.md §2).
    offOnEntry.current ??= connected && !enabled;
    if (!offOnEntry.current || enabled) return;
    if (!warned.current) {
      warned.current = true;
      toast({
        title: 'Feature not available',
        description:
          'The selected organization does not have access to this feature. Redirecting to organization page.',
        variant: 'destructive',
      });
    }
    const timer = setTimeout(() => navigate(paths.organizations.getHref()), FEATURE_REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [connected, connection, enabled, isLoading, navigate]);

  if (isLoading) return <PageSpinner />;
  return <>{children}</>;
}
