import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { beforeAll } from 'vitest';
import { loadPage } from '@/client/app/page-chunks';
import { AppProvider } from '@/client/app/provider';
import { AppRouter } from '@/client/app/router';
import { createQueryClient } from '@/client/lib/query-client';

// Sign-in and the organisation list are lazy chunks, as in the browser (the browser starts fetching them at
// startup): loaded before the tests so a first import on a busy machine does not eat a findBy's 1 s.
// The toast area loads after the first paint the same way.
beforeAll(
  () =>
    Promise.all([loadPage('/auth'), loadPage('/organizations'), import('@/client/components/ui/toaster')]),
  60_000,
);

/** Renders the whole app (real providers and router) at the given URL. */
export function renderApp(url = '/') {
  window.history.replaceState(null, '', url);
  const queryClient = createQueryClient();
  const result = render(
    <AppProvider queryClient={queryClient}>
      <AppRouter />
    </AppProvider>,
  );
  return { ...result, queryClient };
}

/** Renders one element inside the app's providers. */
export function renderWithProviders(ui: ReactElement) {
  const queryClient = createQueryClient();
  return { ...render(<AppProvider queryClient={queryClient}>{ui}</AppProvider>), queryClient };
}
