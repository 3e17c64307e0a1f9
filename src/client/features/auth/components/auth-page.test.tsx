import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { shopOrg, testUser } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server, signedOutHandlers } from '@/client/testing/server';
import { api } from '@/client/lib/api-client';
import { browser } from '@/client/lib/xero-authorization';

describe('/auth (spec 000 §2)', () => {
  it('welcomes the visitor; Sign in with Xero navigates the browser to /api/auth/xero', async () => {
    server.use(...signedOutHandlers);
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {});
    const user = userEvent.setup();
    renderApp('/auth');
    expect(await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'About Ledgerlink' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign in with Xero' }));
    expect(assign).toHaveBeenCalledWith('/api/auth/xero');
    assign.mockRestore();
  });

  it('redirects a signed-in user to /, which is Today for someone with two organisations (issue 47)', async () => {
    renderApp('/auth');
    await waitFor(() => expect(window.location.pathname).toBe('/today'));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });

  it('redirects a signed-in user with one organisation to /, which is /organizations', async () => {
    server.use(http.get('*/api/user-organizations', () => HttpResponse.json([shopOrg])));
    renderApp('/auth');
    await waitFor(() => expect(window.location.pathname).toBe('/organizations'));
    expect(await screen.findByRole('heading', { name: 'Your Xero Organizations' })).toBeInTheDocument();
  });

  it('after Sign in with Xero (xero_callback=true) goes to /organizations after 1.5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp('/auth?xero_callback=true');
    expect(await screen.findByText(/Signed in with Xero/)).toBeInTheDocument();
    expect(window.location.search).toBe('');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1400);
    });
    expect(window.location.pathname).toBe('/auth');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(100);
    });
    expect(window.location.pathname).toBe('/organizations');
  });

  it.each([
    ['missing_code', 'The sign-in with Xero was cancelled or interrupted. Please try again.'],
    [
      'auth_configuration',
      'There is a configuration issue with the Xero integration. Please try again later.',
    ],
    ['authentication_failed', 'Authentication with Xero failed. Please try again.'],
    ['missing_token', 'No authentication token was received from Xero. Please try again.'],
    ['oauth_error&reason=access_denied', 'Xero returned an error: access_denied'],
  ])('error=%s gives an "Authentication Failed" toast', async (query, description) => {
    server.use(...signedOutHandlers);
    renderApp(`/auth?error=${query}`);
    expect(await screen.findByText(description)).toBeInTheDocument();
    expect(screen.getByText('Authentication Failed')).toBeInTheDocument();
    await waitFor(() => expect(window.location.search).toBe(''));
  });

  it.each(['no_tenants', 'connection_issue'])(
    'warning=%s gives the Xero Connection Warning for 6 s',
    async (code) => {
      server.use(...signedOutHandlers);
      renderApp(`/auth?warning=${code}`);
      const title = await screen.findByText('Xero Connection Warning');
      expect(title.closest('[data-variant]')).toHaveAttribute('data-variant', 'warning');
    },
  );
});

describe('password sign-in and registration', () => {
  it('shows validation messages', async () => {
    server.use(...signedOutHandlers);
    const user = userEvent.setup();
    renderApp('/auth');
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Username is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');
  });

  it('a wrong password shows the "Login failed" toast with the server message', async () => {
    server.use(
      ...signedOutHandlers,
      http.post('*/api/login', () =>
        HttpResponse.json({ message: 'Invalid username or password' }, { status: 401 }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await user.type(await screen.findByLabelText('Username'), 'sam');
    await user.type(screen.getByLabelText('Password'), 'wrong-password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Invalid username or password')).toBeInTheDocument();
    expect(screen.getByText('Login failed')).toBeInTheDocument();
  });

  it('signs in and lands on / (Today: the test user has two organisations, issue 47)', async () => {
    let signedIn = false;
    server.use(
      http.get('*/api/auth/current-user', () =>
        signedIn
          ? HttpResponse.json(testUser)
          : HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
      ),
      http.post('*/api/login', async ({ request }) => {
        expect(await request.json()).toEqual({ username: 'sam', password: 'correct-horse' });
        signedIn = true;
        return HttpResponse.json(testUser);
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await user.type(await screen.findByLabelText('Username'), 'sam');
    await user.type(screen.getByLabelText('Password'), 'correct-horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });

  it('registration checks the password rules and the confirmation', async () => {
    server.use(...signedOutHandlers);
    const user = userEvent.setup();
    renderApp('/auth');
    await user.click(await screen.findByRole('tab', { name: 'Create account' }));
    await user.type(screen.getByLabelText('Username'), 'al');
    await user.type(screen.getByLabelText('Email (optional)'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'short');
    await user.type(screen.getByLabelText('Confirm password'), 'different');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Username must be at least 3 characters')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument();
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
  });

  it('registration failure shows the server message under "Registration failed"', async () => {
    server.use(
      ...signedOutHandlers,
      http.post('*/api/register', async ({ request }) => {
        expect(await request.json()).toEqual({ username: 'newbie', password: 'long-enough-1' });
        return HttpResponse.json({ message: 'Username already taken' }, { status: 409 });
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await user.click(await screen.findByRole('tab', { name: 'Create account' }));
    await user.type(screen.getByLabelText('Username'), 'newbie');
    await user.type(screen.getByLabelText('Password'), 'long-enough-1');
    await user.type(screen.getByLabelText('Confirm password'), 'long-enough-1');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Username already taken')).toBeInTheDocument();
    expect(screen.getByText('Registration failed')).toBeInTheDocument();
  });

  it('in demo mode "Try the demo" signs in with the demo credentials', async () => {
    let signedIn = false;
    server.use(
      http.get('*/api/config', () => HttpResponse.json({ mode: 'demo', demoLogin: true })),
      http.get('*/api/auth/current-user', () =>
        signedIn
          ? HttpResponse.json(testUser)
          : HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
      ),
      http.get('*/api/auth/dev-credentials', () =>
        HttpResponse.json({ username: 'admin', password: 'demo-pass-123' }),
      ),
      http.post('*/api/auth/login', async ({ request }) => {
        expect(await request.json()).toEqual({ username: 'admin', password: 'demo-pass-123' });
        signedIn = true;
        return HttpResponse.json(testUser);
      }),
    );
    const user = userEvent.setup();
    renderApp('/auth');
    await user.click(await screen.findByRole('button', { name: 'Try the demo' }));
    expect(await screen.findByRole('heading', { name: 'Today' })).toBeInTheDocument();
  });

  it('in live mode there is no demo button', async () => {
    server.use(
      ...signedOutHandlers,
      http.get('*/api/config', () => HttpResponse.json({ mode: 'live', demoLogin: false })),
    );
    renderApp('/auth');
    await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' });
    expect(screen.queryByRole('button', { name: 'Try the demo' })).not.toBeInTheDocument();
  });
});

describe('/xero-cancel', () => {
  it('clears the auth markers and goes to /auth after 1.5 s when signed out', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    server.use(...signedOutHandlers);
    sessionStorage.setItem('xero_auth_in_progress', 'true');
    sessionStorage.setItem('xero_auth_timestamp', '1');
    sessionStorage.setItem('xero_cancel_url', '/x');
    renderApp('/xero-cancel');
    expect(await screen.findByRole('heading', { name: 'Xero Authentication Process' })).toBeInTheDocument();
    expect(screen.getByText('Returning to application...')).toBeInTheDocument();
    // The page clears the markers in an effect just after its first paint.
    await waitFor(() => expect(sessionStorage.getItem('xero_auth_in_progress')).toBeNull());
    expect(sessionStorage.getItem('xero_cancel_url')).toBeNull();
    expect(await screen.findByRole('button', { name: 'Go to Login' })).toBeInTheDocument();
    expect(sessionStorage.getItem('xero_auth_cancelled')).toBe('true');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1500);
    });
    await waitFor(() => expect(window.location.pathname).toBe('/auth'));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    expect(sessionStorage.getItem('xero_auth_cancelled')).toBeNull();
  });

  it('goes to /organizations when signed in', async () => {
    renderApp('/xero-cancel');
    expect(await screen.findByRole('button', { name: 'Go to Organizations' })).toBeInTheDocument();
    await waitFor(() => expect(window.location.pathname).toBe('/organizations'));
  });
});

describe('a session that ends elsewhere (issue 17 items 8, 10)', () => {
  it('goes to /auth at the first "Not authenticated" answer and says the session has ended', async () => {
    renderApp('/organizations');
    await waitFor(() => expect(window.location.pathname).toBe('/organizations'));
    expect((await screen.findAllByText('Corner Shop Ltd')).length).toBeGreaterThan(0);
    // Signed out in another tab: the next API answer is the guard's 401.
    server.use(
      ...signedOutHandlers,
      http.get('*/api/user-organizations', () =>
        HttpResponse.json({ message: 'Not authenticated', code: 'UNAUTHENTICATED' }, { status: 401 }),
      ),
    );
    await act(async () => {
      await api.get('/api/user-organizations').catch(() => undefined);
    });
    await waitFor(() => expect(window.location.pathname).toBe('/auth'));
    expect(await screen.findByText('Your session has ended')).toBeInTheDocument();
    expect(screen.getByText('Please sign in again to carry on.')).toBeInTheDocument();
  });

  it('a stale "Login failed" toast does not stay over the next page after signing in', async () => {
    server.use(...signedOutHandlers);
    renderApp('/auth');
    expect(await screen.findByRole('heading', { name: 'Welcome to Ledgerlink' })).toBeInTheDocument();
    server.use(
      http.post('*/api/login', () =>
        HttpResponse.json({ message: 'Invalid email or password' }, { status: 401 }),
      ),
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Username'), 'owner');
    await user.type(screen.getByLabelText('Password'), 'wrong-password-1');
    await user.click(screen.getByRole('button', { name: /^Sign in$/ }));
    expect(await screen.findByText('Invalid email or password')).toBeInTheDocument();
    server.use(
      http.post('*/api/login', () => HttpResponse.json(testUser)),
      http.get('*/api/auth/current-user', () => HttpResponse.json(testUser)),
      http.get('*/api/user', () => HttpResponse.json(testUser)),
    );
    await user.type(screen.getByLabelText('Password'), 'right-password-1');
    await user.click(screen.getByRole('button', { name: /^Sign in$/ }));
    await waitFor(() => expect(window.location.pathname).toBe('/today'));
    await waitFor(() => expect(screen.queryByText('Invalid email or password')).not.toBeInTheDocument());
  });
});
