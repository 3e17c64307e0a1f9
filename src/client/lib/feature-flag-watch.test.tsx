import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { server } from '@/client/testing/server';
import { useFeatureFlagWatch } from './feature-flag-watch';
import { queryKeys } from './query-client';

describe('useFeatureFlagWatch', () => {
  it('re-reads the connection and organisations when an administrator switches a feature', async () => {
    let payOn = true;
    server.use(
      http.get('*/api/feature-flags', () =>
        HttpResponse.json([
          {
            organizationId: 1,
            featurePayInvoices: payOn,
            featureAddInvoices: false,
            featureCisBills: false,
            featureStockJournal: false,
          },
        ]),
      ),
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    );
    renderHook(() => useFeatureFlagWatch(true), { wrapper });
    await waitFor(() => expect(client.getQueryData(['feature-flags'])).toBeDefined());
    expect(invalidate).not.toHaveBeenCalled();
    payOn = false;
    await client.refetchQueries({ queryKey: ['feature-flags'] });
    await waitFor(() => expect(invalidate).toHaveBeenCalledWith({ queryKey: queryKeys.connection }));
    expect(invalidate).toHaveBeenCalledWith({ queryKey: queryKeys.userOrganizations });
  });
});
