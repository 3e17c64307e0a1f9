import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useDeferredElement } from '@/client/lib/deferred-component';
import { whenIdle } from '@/client/lib/idle';
import { watchSessionEnded } from '@/client/lib/auth';
import { watchXeroAccessLost } from '@/client/lib/connection';
import { createQueryClient } from '@/client/lib/query-client';
import { getToasts, subscribeToasts } from '@/client/lib/toast';
import { ErrorBoundary } from '@/client/components/errors/error-boundary';
import { AppErrorScreen } from '@/client/components/errors/error-screens';

const loadToaster = () => import('@/client/components/ui/toaster').then((module) => module.Toaster);

/**
 * The toast area (Radix Toast) is not part of the first screen's download (bench/results.md §3): it loads
 * once the browser is idle, behind the page's own requests, or at once when a toast is raised before that;
 * the toast waits in the store meanwhile.
 */
function DeferredToaster() {
  const [wanted, setWanted] = useState(false);
  const hasToast = useSyncExternalStore(
    subscribeToasts,
    () => getToasts().length > 0,
    () => false,
  );
  useEffect(() => whenIdle(() => setWanted(true)), []);
  // Once there, it stays: a toast closing must not unmount its own area mid-animation.
  if (hasToast && !wanted) setWanted(true);
  return useDeferredElement(loadToaster, wanted, {}, null);
}

/**
 * QueryClient with the cache policies of docs/product/shell.md §9, the toast area and the outer error
 * boundary (tooltips bring their own provider).
 */
export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  useEffect(() => watchXeroAccessLost(client), [client]);
  useEffect(() => watchSessionEnded(client), [client]);
  return (
    <ErrorBoundary fallback={() => <AppErrorScreen />}>
      <QueryClientProvider client={client}>
        {children}
        <DeferredToaster />
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
