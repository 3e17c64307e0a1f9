import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

describe('feature-route guard (spec 000 §4)', () => {
  it('toasts "Feature not available" and goes to /organizations after 500 ms', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const posted = vi.fn();
    server.use(http.post('*/api/xero/set-active-organization', posted));
    renderApp('/cis-invoices');
    expect(
      await screen.findByText('The selected organization does not have access to this feature. Redirecting to organization page.'),
    ).toBeInTheDocument();
    expect(screen.getAllByText('Feature not available').length).toBeGreaterThan(0);
    expect(window.location.pathname).toBe('/cis-invoices');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(500);
    });
    expect(window.location.pathname).toBe('/organizations');
    expect(posted).not.toHaveBeenCalled();
  });

  it('a flag on the active organisation takes precedence over the connection flag', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: true, organizationId: 1, tokenExpiry: new Date(Date.now() + 3_600_000).toISOString(), featureCisBills: false }),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          { organizationId: 1, tenantId: 't', tenantName: 'Shop', connected: true, hasValidToken: true, isActive: true, featureCisBills: true },
        ]),
      ),
      // What the CIS Bills page itself loads is that page's business, not the guard's.
      http.get('*/api/xero/*', () => HttpResponse.json({ message: 'Not found' }, { status: 404 })),
    );
    renderApp('/cis-invoices');
    // The page loads on demand: give its chunk time on a busy machine.
    expect(await screen.findByRole('heading', { name: 'CIS Bills' }, { timeout: 5000 })).toBeInTheDocument();
  });
});

describe('banners', () => {
  it('shows the connection-trouble banner after more than 5 server errors', async () => {
    server.use(http.get('*/api/xero/connection', () => HttpResponse.json({ message: 'down' }, { status: 503 })));
    const { queryClient } = renderApp('/organizations');
    await screen.findByRole('heading', { name: 'Your Xero Organizations' });
    for (let i = 0; i < 6; i += 1) {
      await act(async () => {
        await queryClient.refetchQueries({ queryKey: ['connection'] });
      });
    }
    expect(
      await screen.findByText('There seem to be some connection issues. Refreshing the page might help.'),
    ).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Refresh Page' })).toHaveLength(1);
  });
});
