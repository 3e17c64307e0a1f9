import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { AppProvider } from '@/client/app/provider';
import { AppRouter } from '@/client/app/router';
import { createQueryClient } from '@/client/lib/query-client';

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
