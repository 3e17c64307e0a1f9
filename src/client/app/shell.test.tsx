import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { inMinutes, makeConnection, makeOrganization } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server, signedOutHandlers } from '@/client/testing/server';
import { clickDeferredTrigger, userMenuButton } from '@/client/testing/deferred';

describe('routes (spec 000 §2)', () => {
  it('/ redirects to /organizations for someone with one organisation', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([{ ...makeOrganization(), organizationId: 1 }]),
      ),
    );
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Your Xero Organizations' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/organizations');
  });

  it('/ redirects to /today for someone with more than one organisation (issue 47)', async () => {
    server.use(http.get('*/api/practice/today', () => HttpResponse.json([])));
    renderApp('/');
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/today');
  });

  it('a protected route sends a signed-out visitor to /auth', async () => {
    server.use(...signedOutHandlers);
    renderApp('/invoices');
    expect(await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/auth');
    expect(screen.getByRole('link', { name: /Login/ })).toHaveAttribute('href', '/auth');
  });

  it('shows a spinner while the user loads', async () => {
    let release: () => void = () => {};
    server.use(
      http.get('*/api/auth/current-user', async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return HttpResponse.json({ message: 'Not authenticated' }, { status: 401 });
      }),
    );
    renderApp('/organizations');
    expect(await screen.findByRole('status', { name: 'Loading your account' })).toBeInTheDocument();
    release();
    await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' });
  });

  it('an unknown path shows the 404 page', async () => {
    renderApp('/no-such-page');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });

  it('a feature page shows the connect page when not connected', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'No active connection' }),
      ),
    );
    renderApp('/invoices');
    expect(await screen.findByRole('heading', { name: 'Connect to Xero' })).toBeInTheDocument();
    expect(
      screen.getByText('If you encounter connection issues, try using the Force Reconnect option.'),
    ).toBeInTheDocument();
  });

  it('a feature page shows its title when connected and the feature is on', async () => {
    server.use(
      http.get('*/api/xero/invoices', () => HttpResponse.json([])),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
      ),
    );
    renderApp('/invoices');
    // The page is a lazily loaded chunk: on a busy machine its first import takes a while.
    expect(
      await screen.findByRole('heading', { name: 'Pay Invoices' }, { timeout: 15_000 }),
    ).toBeInTheDocument();
  });
});

describe('header', () => {
  it('the logo links to /organizations when signed in', async () => {
    renderApp('/organizations');
    await screen.findByRole('heading', { name: 'Your Xero Organizations' });
    expect(screen.getByRole('link', { name: 'Ledgerlink' })).toHaveAttribute('href', '/organizations');
  });

  it('the logo links to /auth when signed out', async () => {
    server.use(...signedOutHandlers);
    renderApp('/auth');
    await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' });
    expect(screen.getByRole('link', { name: 'Ledgerlink' })).toHaveAttribute('href', '/auth');
  });

  it.each([
    ['green when valid', inMinutes(25), 'Connected to Xero', 'valid'],
    ['yellow under 5 minutes', inMinutes(3), 'Token expires in <5 min', 'expiring'],
    ['red when expired', inMinutes(-1), 'Connection needs refresh', 'expired'],
    ['red when no expiry is known', null, 'Connection needs refresh', 'expired'],
  ])('connection indicator: %s', async (_name, tokenExpiry, text, status) => {
    server.use(http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ tokenExpiry }))));
    renderApp('/organizations');
    const indicators = await screen.findAllByText(text);
    expect(indicators[0]?.closest('[data-status]')).toHaveAttribute('data-status', status);
  });

  it('shows Reconnect going to /connect when not connected', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'No refresh token, reconnection required' }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    const header = screen.getByRole('banner');
    await user.click(await within(header).findByRole('button', { name: 'Reconnect' }));
    expect(window.location.pathname).toBe('/connect');
    expect(await screen.findByRole('heading', { name: 'Reconnect to Xero' })).toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Organization' })).not.toBeInTheDocument();
  });

  it.each([
    ['revoked', 'Xero access revoked'],
    ['expired', 'Xero connection expired'],
  ] as const)(
    'a connection %s says so in one wording: header, connect page, one Reconnect (issue 45 item 2)',
    async (lostReason, title) => {
      server.use(
        http.get('*/api/xero/connection', () =>
          HttpResponse.json({ connected: false, error: 'Token refresh failed', lostReason }),
        ),
        http.get('*/api/xero/invoices', () => HttpResponse.json([])),
      );
      renderApp('/invoices');
      const header = screen.getByRole('banner');
      // The wide and the compact pill (one shows per screen width): both say it.
      const pills = await within(header).findAllByRole('status');
      for (const pill of pills) {
        expect(pill).toHaveAttribute('data-status', 'lost');
        expect(pill).toHaveTextContent(title);
      }
      expect(await screen.findByRole('heading', { name: 'Reconnect to Xero' })).toBeInTheDocument();
      const main = screen.getByRole('main');
      expect(within(main).getByText(title)).toBeInTheDocument();
      expect(within(main).queryByText(/has expired/)).not.toBeInTheDocument();
      expect(within(main).getAllByRole('button', { name: /Reconnect/ })).toHaveLength(1);
      expect(within(main).queryByText(/Force Reconnect/)).not.toBeInTheDocument();
      await waitFor(() => expect(document.title).toBe('Reconnect to Xero · Ledgerlink'));
    },
  );

  it('the user menu greys out features that are off', async () => {
    const user = userEvent.setup();
    renderApp('/organizations');
    await clickDeferredTrigger(user, userMenuButton('sam'));
    const menu = await screen.findByRole('menu');
    for (const name of [
      'Organizations',
      'Pay Invoices',
      'Add Invoices',
      'Stock Journal',
      'Settings',
      'Logout',
    ]) {
      expect(within(menu).getByRole('menuitem', { name })).not.toHaveAttribute('data-disabled');
    }
    expect(within(menu).getByRole('menuitem', { name: 'CIS Bills' })).toHaveAttribute('data-disabled');
  });

  it('Logout calls the server, toasts "Logged out" and goes to /auth', async () => {
    let signedIn = true;
    server.use(
      http.post('*/api/logout', () => {
        signedIn = false;
        return HttpResponse.json({ ok: true });
      }),
      http.get('*/api/auth/current-user', () =>
        signedIn
          ? HttpResponse.json({ id: 1, username: 'sam', email: null, isAdmin: false, isXeroUser: false })
          : HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    await clickDeferredTrigger(user, userMenuButton('sam'));
    await user.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByText('Logged out')).toBeInTheDocument();
    await waitFor(() => expect(window.location.pathname).toBe('/auth'));
    expect(await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeInTheDocument();
  });

  it('a failed logout says so', async () => {
    server.use(http.post('*/api/logout', () => HttpResponse.json({ message: 'nope' }, { status: 500 })));
    const user = userEvent.setup();
    renderApp('/organizations');
    await clickDeferredTrigger(user, userMenuButton('sam'));
    await user.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByText('Failed to log out. Please try again.')).toBeInTheDocument();
  });

  it('the theme toggle switches the class and stores it under "theme"', async () => {
    const user = userEvent.setup();
    renderApp('/organizations');
    await user.click(await screen.findByRole('button', { name: 'Switch to dark theme' }));
    expect(document.documentElement).toHaveClass('dark');
    expect(localStorage.getItem('theme')).toBe('dark');
    await user.click(screen.getByRole('button', { name: 'Switch to light theme' }));
    expect(document.documentElement).not.toHaveClass('dark');
    expect(localStorage.getItem('theme')).toBe('light');
  });

  it('the footer shows the copyright line and a Settings button', async () => {
    renderApp('/organizations');
    await screen.findByRole('heading', { name: 'Your Xero Organizations' });
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText(/© \d{4} Ledgerlink/)).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
  });

  it('the footer offers Settings only once someone has signed in (issue 45 item 4)', async () => {
    server.use(...signedOutHandlers);
    renderApp('/auth');
    await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' });
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText(/© \d{4} Ledgerlink/)).toBeInTheDocument();
    expect(within(footer).queryByRole('link', { name: 'Settings' })).not.toBeInTheDocument();
  });
});

describe('browser tab titles (issue 45 item 4)', () => {
  it('names the screen', async () => {
    renderApp('/organizations');
    await screen.findByRole('heading', { name: 'Your Xero Organizations' });
    await waitFor(() => expect(document.title).toBe('Your Xero Organizations · Ledgerlink'));
  });

  it('adds the active organisation where the screen works on one', async () => {
    server.use(
      http.get('*/api/xero/invoices', () => HttpResponse.json([])),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
      ),
    );
    renderApp('/invoices');
    await waitFor(() => expect(document.title).toBe('Pay Invoices · Corner Shop Ltd · Ledgerlink'), {
      timeout: 15_000,
    });
  });

  it('names the sign-in page', async () => {
    server.use(...signedOutHandlers);
    renderApp('/auth');
    await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' });
    await waitFor(() => expect(document.title).toBe('Sign in · Ledgerlink'));
  });

  it('names the Today page, which spans every organisation (issue 47)', async () => {
    renderApp('/today');
    await screen.findByRole('heading', { name: 'Today' });
    await waitFor(() => expect(document.title).toBe('Today · Ledgerlink'));
  });

  it("names demo mode's Outbox and its organisation (issue 43)", async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({ tenantName: 'Acme Builders', organizationId: 2, featureCisBills: true }),
        ),
      ),
      http.get('*/api/xero/cis/outbox', () => HttpResponse.json({ messages: [] })),
    );
    renderApp('/outbox');
    expect(await screen.findByText('No email yet')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Outbox · Acme Builders · Ledgerlink'));
  });

  it('names the 404', async () => {
    renderApp('/no-such-page');
    await screen.findByRole('heading', { name: 'Page not found' });
    await waitFor(() => expect(document.title).toBe('Page not found · Ledgerlink'));
  });
});
