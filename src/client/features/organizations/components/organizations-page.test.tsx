import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { builderOrg, makeConnection, makeOrganization, shopOrg } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { dismissToast, getToasts } from '@/client/lib/toast';
import { CONNECTION_QUERY_ERRORS } from '../utils/connection-query-messages';

/** Acme Builders as the list shows it once a removal in Xero was recorded at `since`. */
const removedInXero = (since: string) => ({
  ...builderOrg,
  connected: false,
  hasValidToken: false,
  tokenExpiry: null,
  notConnectedReason: 'removed' as const,
  notConnectedSince: since,
});

describe('Organizations page (spec 000 §2)', () => {
  it('lists cards sorted by name with Active badge, Activate button, last connected and token expiry', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          shopOrg,
          builderOrg,
          makeOrganization({ organizationId: 3, tenantName: null, isActive: false, lastAccessed: null }),
        ]),
      ),
    );
    renderApp('/organizations');
    const cards = await screen.findAllByRole('group');
    expect(cards.map((card) => card.getAttribute('aria-label'))).toEqual([
      'Acme Builders',
      'Corner Shop Ltd',
      'Unknown Organization',
    ]);
    const [builder, shop, unknown] = cards as [HTMLElement, HTMLElement, HTMLElement];
    expect(within(shop).getByText('Active')).toBeInTheDocument();
    expect(within(builder).getByRole('button', { name: 'Activate Acme Builders' })).toBeEnabled();
    expect(within(unknown).getByText('Never')).toBeInTheDocument();
    expect(within(shop).getByText('Last connected')).toBeInTheDocument();
    expect(within(shop).getByText(/^Expires in/)).toBeInTheDocument();
    expect(within(builder).getByText(/57 this minute · 4,980 today/)).toBeInTheDocument();
    expect(within(shop).queryByText(/this minute/)).not.toBeInTheDocument();
  });

  it('links to Today for someone with more than one organisation, and keeps its own texts (issue 47)', async () => {
    const { unmount } = renderApp('/organizations');
    expect(await screen.findByRole('heading', { name: 'Your Xero Organizations' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Today' })).toHaveAttribute('href', '/today');
    unmount();

    server.use(http.get('*/api/user-organizations', () => HttpResponse.json([shopOrg])));
    renderApp('/organizations');
    expect(await screen.findAllByRole('group')).toHaveLength(1);
    expect(screen.queryByRole('link', { name: 'Today' })).not.toBeInTheDocument();
  });

  it('Disconnect asks first, saying what happens, then turns the card to Not connected with Connect (issue 33 item 4)', async () => {
    let connected = true;
    const sent: unknown[] = [];
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          shopOrg,
          connected
            ? builderOrg
            : { ...builderOrg, connected: false, hasValidToken: false, tokenExpiry: null },
        ]),
      ),
      http.post('*/api/xero/disconnect', async ({ request }) => {
        sent.push(await request.json());
        connected = false;
        return HttpResponse.json({ success: true });
      }),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    const builder = await screen.findByRole('group', { name: 'Acme Builders' });
    await user.click(within(builder).getByRole('button', { name: 'Disconnect Acme Builders' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disconnect Acme Builders from Xero?' });
    expect(dialog).toHaveTextContent('is removed in Xero');
    expect(dialog).toHaveTextContent('Its history here is kept');
    expect(dialog).toHaveTextContent('are off for it until you connect it again');
    // Cancel sends nothing.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(sent).toEqual([]);
    await user.click(within(builder).getByRole('button', { name: 'Disconnect Acme Builders' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Disconnect' }));
    expect(await screen.findByText('Disconnected from Xero')).toBeInTheDocument();
    expect(sent).toEqual([{ organizationId: builderOrg.organizationId }]);
    const after = screen.getByRole('group', { name: 'Acme Builders' });
    expect(await within(after).findByText('Not connected')).toBeInTheDocument();
    expect(within(after).getByRole('button', { name: 'Connect Acme Builders' })).toBeEnabled();
    expect(within(after).queryByRole('button', { name: /^Disconnect/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('says when an organisation was disconnected in Xero itself, and shows its card as not connected (issue 33 item 4)', async () => {
    let goneInXero = false;
    server.use(
      http.post('*/api/xero/connections/refresh', () => {
        goneInXero = true;
        return HttpResponse.json({ disconnectedInXero: ['Acme Builders'] });
      }),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([shopOrg, goneInXero ? removedInXero('2026-11-24T12:00:00.000Z') : builderOrg]),
      ),
    );
    renderApp('/organizations');
    expect(await screen.findByText('Disconnected in Xero')).toBeInTheDocument();
    expect(screen.getByText(/Acme Builders was disconnected from Ledgerlink in Xero/)).toBeInTheDocument();
    const builder = screen.getByRole('group', { name: 'Acme Builders' });
    expect(await within(builder).findByRole('button', { name: 'Connect Acme Builders' })).toBeEnabled();
    // Issue 45: the card says where it happened, not "Disconnected from Xero" as if someone here had.
    expect(
      within(builder).getByText(
        'It was disconnected from Ledgerlink in Xero (Settings → Connected apps). Its history is kept; connect it again to use it.',
      ),
    ).toBeInTheDocument();
  });

  it('shows a removal the server’s watch recorded after the page read its list and before the page’s own check', async () => {
    // The watch marks Acme Builders removed just before this page's check, so the check finds nothing new.
    let recorded = false;
    let checks = 0;
    // The connection's token as the cards have it: no renewal makes the page read its list again.
    const expiries = [shopOrg.tokenExpiry, builderOrg.tokenExpiry].map((t) => Date.parse(t ?? ''));
    const tokenExpiry = new Date(Math.min(...expiries)).toISOString();
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ tokenExpiry }))),
      http.post('*/api/xero/connections/refresh', () => {
        checks += 1;
        recorded = true;
        return HttpResponse.json({ disconnectedInXero: [] });
      }),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([shopOrg, recorded ? removedInXero('2026-11-29T08:30:11.000Z') : builderOrg]),
      ),
    );
    renderApp('/organizations');
    expect(
      await screen.findByText(/Acme Builders was disconnected from Ledgerlink in Xero/),
    ).toBeInTheDocument();
    const builder = screen.getByRole('group', { name: 'Acme Builders' });
    expect(await within(builder).findByRole('button', { name: 'Connect Acme Builders' })).toBeEnabled();
    expect(checks).toBe(1);
  });

  it('says a removal the server’s watch found first, once per removal in this browser (issue 45 item 2)', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([shopOrg, removedInXero('2026-11-25T08:00:00.000Z')]),
      ),
    );
    const first = renderApp('/organizations');
    expect(
      await screen.findByText(/Acme Builders was disconnected from Ledgerlink in Xero/),
    ).toBeInTheDocument();
    first.unmount();
    for (const shown of getToasts()) dismissToast(shown.id);
    await waitFor(() =>
      expect(
        screen.queryByText(/Acme Builders was disconnected from Ledgerlink in Xero/),
      ).not.toBeInTheDocument(),
    );
    renderApp('/organizations');
    await screen.findByRole('group', { name: 'Acme Builders' });
    expect(getToasts().filter((t) => t.open && t.title === 'Disconnected in Xero')).toHaveLength(0);
  });

  it('after a consent that left an organisation out, names it and offers to connect it (issue 45 item 1)', async () => {
    const connects: string[] = [];
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          shopOrg,
          { ...builderOrg, connected: false, hasValidToken: false, notConnectedReason: 'not-included' },
        ]),
      ),
      http.get('*/api/xero/connect', ({ request }) => {
        connects.push(new URL(request.url).search);
        return HttpResponse.json({ message: 'stop here' }, { status: 500 });
      }),
    );
    const user = userEvent.setup();
    renderApp(`/organizations?connected=true&not_included=${builderOrg.organizationId}`);
    const toastText = await screen.findByText('Acme Builders was not included in what you allowed in Xero.');
    expect(toastText).toBeInTheDocument();
    const alert = (await screen.findAllByRole('alert')).find((a) =>
      a.textContent?.includes('Acme Builders was not included in what you allowed in Xero'),
    );
    expect(alert).toBeDefined();
    expect(window.location.search).toBe('');
    const builder = screen.getByRole('group', { name: 'Acme Builders' });
    expect(
      within(builder).getByText(
        'Acme Builders was not included in what you allowed in Xero. Connect it and tick it on Xero’s page to use it.',
      ),
    ).toBeInTheDocument();
    await user.click(within(alert as HTMLElement).getByRole('button', { name: 'Connect Acme Builders' }));
    await vi.waitFor(() => expect(connects).toEqual([`?organizationId=${builderOrg.organizationId}`]));
  });

  it("says in each card whether Xero's changes arrive live, or are checked on each refresh (issue 18)", async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          { ...shopOrg, liveUpdates: { state: 'live' } },
          {
            ...builderOrg,
            liveUpdates: { state: 'fallback', reason: 'gap', since: '2026-11-24T12:00:00.000Z' },
          },
          makeOrganization({
            organizationId: 3,
            tenantName: 'No Key Ltd',
            isActive: false,
            liveUpdates: { state: 'fallback', reason: 'no-key', since: null },
          }),
        ]),
      ),
    );
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(shop).getByText('On: changes made in Xero show here within seconds.')).toBeInTheDocument();
    const builder = screen.getByRole('group', { name: 'Acme Builders' });
    expect(
      within(builder).getByText(
        "Xero's updates have stopped arriving; Ledgerlink is checking Xero on each refresh.",
      ),
    ).toBeInTheDocument();
    const noKey = screen.getByRole('group', { name: 'No Key Ltd' });
    expect(
      within(noKey).getByText('Live updates from Xero are off: changes made in Xero show on refresh.'),
    ).toBeInTheDocument();
  });

  it('shows the data downloaded from Xero this month on each card that has a count (issue 19)', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          { ...shopOrg, downloadedThisMonth: { month: '2026-11', bytes: 359_806 } },
          { ...builderOrg, downloadedThisMonth: { month: '2026-12', bytes: 1_250_000_000 } },
          makeOrganization({ organizationId: 3, tenantName: 'Quiet Ltd', isActive: false }),
        ]),
      ),
    );
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(shop).getByText('Downloaded')).toBeInTheDocument();
    expect(within(shop).getByText('359.8 KB in November')).toBeInTheDocument();
    const builder = screen.getByRole('group', { name: 'Acme Builders' });
    expect(within(builder).getByText('1.3 GB in December')).toBeInTheDocument();
    const quiet = screen.getByRole('group', { name: 'Quiet Ltd' });
    expect(within(quiet).queryByText('Downloaded')).not.toBeInTheDocument();
  });

  it('feature buttons are disabled when the feature is off, with the administrator tooltip', async () => {
    const user = userEvent.setup();
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(shop).getByRole('button', { name: 'Pay Invoices' })).toBeEnabled();
    const cis = within(shop).getByRole('button', { name: 'CIS Bills' });
    expect(cis).toBeDisabled();
    await user.hover(cis.parentElement as HTMLElement);
    expect((await screen.findAllByText('Feature disabled by administrator')).length).toBeGreaterThan(0);
  });

  it('shows the full expiry in a tooltip', async () => {
    const user = userEvent.setup();
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    await user.hover(within(shop).getByText(/^Expires in/));
    expect((await screen.findAllByText(/^Full expiry: /)).length).toBeGreaterThan(0);
  });

  it('feature buttons are disabled when the organisation is not connected', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([makeOrganization({ connected: false, isActive: false })]),
      ),
    );
    renderApp('/organizations');
    const card = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(card).getByRole('button', { name: 'Pay Invoices' })).toBeDisabled();
    expect(within(card).getByRole('button', { name: 'Activate Corner Shop Ltd' })).toBeDisabled();
    expect(within(card).getByText('Not connected')).toBeInTheDocument();
  });

  it('a feature button on the active organisation goes straight to the feature route', async () => {
    // The page may already be prefetched and then shows at once: answer what it loads.
    server.use(
      http.get('*/api/xero/invoices', () => HttpResponse.json([])),
      http.get('*/api/xero/bank-accounts', () =>
        HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    await user.click(within(shop).getByRole('button', { name: 'Pay Invoices' }));
    await waitFor(() => expect(window.location.pathname).toBe('/invoices'));
  });

  it('a feature button on another organisation activates it first, toasts, then navigates', async () => {
    let active = 1;
    const requests: unknown[] = [];
    server.use(
      http.post('*/api/xero/set-active-organization', async ({ request }) => {
        const body = (await request.json()) as { organizationId: number };
        requests.push(body);
        active = body.organizationId;
        return HttpResponse.json({ ok: true });
      }),
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          active === 2
            ? makeConnection({ organizationId: 2, tenantName: 'Acme Builders', featureCisBills: true })
            : makeConnection(),
        ),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          { ...shopOrg, isActive: active === 1 },
          { ...builderOrg, isActive: active === 2 },
        ]),
      ),
      // Whatever the CIS Bills page loads once it opens is that page's business, not this test's.
      http.get('*/api/xero/*', () => HttpResponse.json({ message: 'Not found' }, { status: 404 })),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    const builder = await screen.findByRole('group', { name: 'Acme Builders' });
    await user.click(within(builder).getByRole('button', { name: 'CIS Bills' }));
    expect(
      await screen.findByText('Now working with: Acme Builders', {}, { timeout: 4000 }),
    ).toBeInTheDocument();
    expect(screen.getByText('Organization Changed')).toBeInTheDocument();
    expect(requests).toEqual([{ organizationId: 2 }]);
    await waitFor(() => expect(window.location.pathname).toBe('/cis-invoices'));
    // The page loads on demand: findBy waits for its chunk (the 15 s ceiling of src/client/testing/setup.ts).
    expect(await screen.findByRole('heading', { name: 'CIS Bills' })).toBeInTheDocument();
  });

  it('empty state: "No Organizations Connected"', async () => {
    server.use(http.get('*/api/user-organizations', () => HttpResponse.json([])));
    renderApp('/organizations');
    expect(await screen.findByRole('heading', { name: 'No Organizations Connected' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Connect' })).toBeInTheDocument();
  });

  it('with organisations listed but the connection refused by Xero, says so above the cards and on each token line', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Token refresh failed', lostReason: 'revoked' }),
      ),
    );
    renderApp('/organizations');
    const alert = await screen.findByRole('alert');
    // Issue 45 item 2: what happened, in one wording, and one Reconnect (the page's own, now primary).
    expect(within(alert).getByText('Xero access revoked')).toBeInTheDocument();
    expect(within(alert).queryByRole('button')).not.toBeInTheDocument();
    const main = screen.getByRole('main');
    expect(within(main).getAllByRole('button', { name: /Reconnect/ })).toHaveLength(1);
    const shop = screen.getByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(shop).getByText('Xero access revoked')).toBeInTheDocument();
    expect(within(shop).queryByText(/^Expires in/)).not.toBeInTheDocument();
    // Issue 17 item 7: no feature can be opened until the organisation is reconnected.
    for (const name of ['Pay Invoices', 'Add Invoices', 'Stock Journal']) {
      const button = within(shop).getByRole('button', { name });
      expect(button).toBeDisabled();
      expect(button).toHaveAttribute('data-feature-state', 'reconnect');
    }
  });

  it('re-reads the cards when the connection reports a renewed token, so "Expired" does not stay red (issue 17 item 5)', async () => {
    const past = new Date(Date.now() - 12 * 60_000).toISOString();
    const renewed = new Date(Date.now() + 29 * 60_000).toISOString();
    let listReads = 0;
    server.use(
      // Xero's connections unreadable: the page's own check re-reads nothing, so the second read is the renewal's.
      http.post('*/api/xero/connections/refresh', () => HttpResponse.error()),
      http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection({ tokenExpiry: renewed }))),
      http.get('*/api/user-organizations', () => {
        listReads += 1;
        return HttpResponse.json([makeOrganization({ tokenExpiry: listReads === 1 ? past : renewed })]);
      }),
    );
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(await within(shop).findByText(/^Expires in 2[89] minutes$/)).toBeInTheDocument();
    expect(within(shop).queryByText(/^Expired/)).toBeNull();
    expect(listReads).toBe(2);
  });

  it('enabled and disabled feature buttons look different: border and colour, a lock, a not-allowed cursor (issue 17 item 7)', async () => {
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    const on = within(shop).getByRole('button', { name: 'Pay Invoices' });
    const off = within(shop).getByRole('button', { name: 'CIS Bills' });
    expect(on).toBeEnabled();
    expect(on).toHaveAttribute('data-feature-state', 'on');
    expect(on.className).toMatch(/text-primary/);
    expect(off).toBeDisabled();
    expect(off).toHaveAttribute('data-feature-state', 'off');
    expect(off.className).toMatch(/border-dashed/);
    expect(off.className).toMatch(/disabled:opacity-100/);
    expect(off.querySelector('svg')).not.toBeNull();
    expect(off.parentElement?.className).toMatch(/cursor-not-allowed/);
  });

  it('empty state: "Xero Connection Needs Refreshing" when reconnection is needed', async () => {
    server.use(
      http.get('*/api/user-organizations', () => HttpResponse.json([])),
      http.get('*/api/xero/connection', () =>
        HttpResponse.json({ connected: false, error: 'Token refresh failed' }),
      ),
    );
    renderApp('/organizations');
    expect(
      await screen.findByRole('heading', { name: 'Xero Connection Needs Refreshing' }),
    ).toBeInTheDocument();
  });

  it('a failed organisations fetch yields the empty list', async () => {
    server.use(
      http.get('*/api/user-organizations', () => HttpResponse.json({ message: 'boom' }, { status: 500 })),
    );
    renderApp('/organizations');
    expect(await screen.findByRole('heading', { name: 'No Organizations Connected' })).toBeInTheDocument();
  });

  it('connected=true toasts "Connected to Xero" once and is removed from the URL', async () => {
    renderApp('/organizations?connected=true');
    expect(
      await screen.findByText('Connected to Xero', { selector: '[data-variant] *' }),
    ).toBeInTheDocument();
    await waitFor(() => expect(window.location.search).toBe(''));
  });

  const cases: Array<[string, string, string]> = [
    [
      'authentication_cancelled',
      'Authentication Cancelled',
      "The Xero authentication process was cancelled. You can try connecting again when you're ready.",
    ],
    ['unauthorized', 'Connection Error', 'You need to be logged in to connect to Xero'],
    ['missing_code', 'Connection Error', 'Authorization code is missing'],
    ['no_tenants', 'Connection Error', 'No organizations found in your Xero account'],
    ['xero_connection_failed', 'Connection Error', 'Failed to establish connection with Xero'],
    ['oauth_error', 'Connection Error', 'Xero reported an authorization error: access_denied'],
    [
      'invalid_token',
      'Connection Error',
      'The authentication tokens were invalid. Please try connecting again.',
    ],
    [
      'token_expired',
      'Connection Error',
      'Your authentication with Xero has expired. Please try connecting again.',
    ],
    [
      'invalid_grant',
      'Connection Error',
      'The authorization was invalid or has expired. Please try connecting again.',
    ],
    [
      'invalid_client',
      'Connection Error',
      'The client credentials (Client ID and Client Secret) are invalid. Please check API keys.',
    ],
    ['tenant_update_failed', 'Connection Error', 'Failed to update your Xero organizations: db down'],
    ['unexpected_error', 'Connection Error', 'An unexpected error occurred. Please try again later.'],
    ['something_new', 'Connection Error', 'Failed to connect to Xero'],
  ];

  it.each(cases)('error=%s gives the "%s" toast', async (code, title, description) => {
    renderApp(`/organizations?error=${code}&reason=access_denied&message=db%20down`);
    expect(await screen.findByText(description)).toBeInTheDocument();
    expect(screen.getByText(title, { selector: '[data-variant="destructive"] *' })).toBeInTheDocument();
    await waitFor(() => expect(window.location.search).toBe(''));
  });

  it('every error code of the spec has a toast of its own', () => {
    for (const code of [
      'authentication_cancelled',
      'unauthorized',
      'missing_code',
      'no_tenants',
      'xero_connection_failed',
      'oauth_error',
      'invalid_token',
      'token_expired',
      'invalid_grant',
      'token_exchange_failed',
      'invalid_client',
      'invalid_request',
      'token_read_failed',
      'missing_token_set',
      'missing_access_token',
      'missing_refresh_token',
      'missing_expiry',
      'tenant_update_failed',
      'unexpected_error',
    ]) {
      expect(CONNECTION_QUERY_ERRORS[code], code).toBeDefined();
    }
  });

  it('oauth_error without a reason says unknown', async () => {
    renderApp('/organizations?error=oauth_error');
    expect(await screen.findByText('Xero reported an authorization error: unknown')).toBeInTheDocument();
  });
});

describe('Connect page (spec 000 §2)', () => {
  it('a missing url gives "No authorization URL received from server"', async () => {
    server.use(
      http.get('*/api/xero/connection', () => HttpResponse.json({ connected: false })),
      http.get('*/api/xero/connect', () => HttpResponse.json({})),
    );
    const user = userEvent.setup();
    renderApp('/connect');
    await user.click(await screen.findByRole('button', { name: 'Connect' }));
    expect(await screen.findByText('No authorization URL received from server')).toBeInTheDocument();
    expect(sessionStorage.getItem('xero_auth_in_progress')).toBeNull();
  });

  it('a failed response shows the body message; a 401 shows the Authentication Error alert', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(makeConnection({ connected: false, error: undefined })),
      ),
      http.get('*/api/xero/reconnect', () =>
        HttpResponse.json({ message: 'Session expired' }, { status: 401 }),
      ),
    );
    const user = userEvent.setup();
    renderApp('/connect');
    await user.click(await screen.findByRole('button', { name: 'Force Reconnect' }));
    expect(await screen.findByText('Session expired')).toBeInTheDocument();
    expect(screen.getByText('Authentication Error')).toBeInTheDocument();
  });
});
