import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { createQueryClient } from '@/client/lib/query-client';
import { ErrorBoundary } from '@/client/components/errors/error-boundary';
import { AppErrorScreen } from '@/client/components/errors/error-screens';

// Nothing is toasted before the first paint: the toast area (Radix Toast) loads after it, outside the first
// screen's download (bench §3). Toasts raised meanwhile wait in the store and show when it arrives.
const Toaster = lazy(() => import('@/client/components/ui/toaster').then((module) => ({ default: module.Toaster })));

/** QueryClient with the cache policies of spec 000 §9, the toast area and the outer error boundary (tooltips bring their own provider). */
export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <ErrorBoundary fallback={() => <AppErrorScreen />}>
      <QueryClientProvider client={client}>
        {children}
        <Suspense fallback={null}>
          <Toaster />
        </Suspense>
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
