import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { makeConnection, makeOrganization } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

describe('feature-route guard (spec 000 §4)', () => {
  it('toasts "Feature not available" and goes to /organizations after 500 ms', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const posted = vi.fn();
    server.use(http.post('*/api/xero/set-active-organization', posted));
    renderApp('/cis-invoices');
    expect(
      await screen.findByText(
        'The selected organization does not have access to this feature. Redirecting to organization page.',
      ),
    ).toBeInTheDocument();
    expect(screen.getAllByText('Feature not available').length).toBeGreaterThan(0);
    // Until the redirect the page says it in 001's words, not the guard's (issue 17 item 14).
    expect(await screen.findByText('This feature is not enabled for your organization.')).toBeInTheDocument();
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
        HttpResponse.json({
          connected: true,
          organizationId: 1,
          tokenExpiry: new Date(Date.now() + 3_600_000).toISOString(),
          featureCisBills: false,
        }),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          {
            organizationId: 1,
            tenantId: 't',
            tenantName: 'Shop',
            connected: true,
            hasValidToken: true,
            isActive: true,
            featureCisBills: true,
          },
        ]),
      ),
      // What the CIS Bills page itself loads is that page's business, not the guard's.
      http.get('*/api/xero/*', () => HttpResponse.json({ message: 'Not found' }, { status: 404 })),
    );
    renderApp('/cis-invoices');
    // The page loads on demand: findBy waits for its chunk (the 15 s ceiling of src/client/testing/setup.ts).
    expect(await screen.findByRole('heading', { name: 'CIS Bills' })).toBeInTheDocument();
  });
});

describe("001's page states on the feature pages (issue 17 item 14)", () => {
  const orgList = (overrides: Record<string, unknown> = {}) =>
    http.get('*/api/user-organizations', () =>
      HttpResponse.json([makeOrganization({ featureCisBills: true, ...overrides })]),
    );

  it('CIS Bills without a connection: "Not connected to Xero" with Back to Home and Connect to Xero', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json({ connected: false })),
      orgList({ connected: false, hasValidToken: false }),
    );
    renderApp('/cis-invoices');
    expect(await screen.findByRole('heading', { name: 'Not connected to Xero' })).toBeInTheDocument();
    expect(screen.getByText('Please connect to Xero first to manage CIS bills.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Connect to Xero' })).toHaveAttribute('href', '/connect');
    expect(screen.getByRole('link', { name: 'Back to Home' })).toBeInTheDocument();
  });

  it('CIS Bills with a "token is about to expire" error is still usable: the main view, not a connect page', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({ connected: false, featureCisBills: true, error: 'Token is about to expire' }),
        ),
      ),
      orgList(),
      http.get('*/api/xero/*', () => HttpResponse.json([])),
    );
    renderApp('/cis-invoices');
    expect(await screen.findByText('Draft CIS Bills')).toBeInTheDocument();
    expect(screen.queryByText('Not connected to Xero')).toBeNull();
  });

  it('Add Invoices without a connection: "You need to connect to Xero before managing draft invoices."', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json({ connected: false })),
      orgList({ connected: false, hasValidToken: false }),
    );
    renderApp('/add-invoices');
    expect(
      await screen.findByText('You need to connect to Xero before managing draft invoices.'),
    ).toBeInTheDocument();
  });

  it('a feature switched off while its page is open shows the 001 notice and stays on the page', async () => {
    let on = true;
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ featureCisBills: on }))),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ featureCisBills: on })]),
      ),
      http.get('*/api/xero/*', () => HttpResponse.json([])),
    );
    const { queryClient } = renderApp('/cis-invoices');
    expect(await screen.findByText('Draft CIS Bills')).toBeInTheDocument();
    on = false;
    await act(async () => {
      await queryClient.invalidateQueries();
    });
    expect(await screen.findByText('This feature is not enabled for your organization.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'CIS Bills is not enabled' })).toBeInTheDocument();
    await act(async () => {
      await new Promise((r) => setTimeout(r, 800));
    });
    expect(window.location.pathname).toBe('/cis-invoices');
    expect(
      screen.queryByText(
        'The selected organization does not have access to this feature. Redirecting to organization page.',
      ),
    ).toBeNull();
  });
});

describe('banners', () => {
  it('shows the connection-trouble banner after more than 5 server errors', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json({ message: 'down' }, { status: 503 })),
    );
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
