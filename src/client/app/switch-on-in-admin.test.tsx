import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Store } from 'lucide-react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { FeatureCard } from '@/client/features/settings/components/feature-card';
import { testUser } from '@/client/testing/fixtures';
import { renderApp, renderWithProviders } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { clickDeferredTrigger, userMenuButton } from '@/client/testing/deferred';

/** Issue 22: administrators are pointed at the feature switches; everyone else keeps the spec's wording. */
function signInAs(isAdmin: boolean) {
  server.use(
    http.get('*/api/auth/current-user', () => HttpResponse.json({ ...testUser, isAdmin })),
    http.get('*/api/user', () => HttpResponse.json({ ...testUser, isAdmin })),
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin })),
  );
}

function renderCisCard() {
  return renderWithProviders(
    <FeatureCard
      title="CIS Bills"
      description="Defaults"
      icon={Store}
      enabled={false}
      refreshLabel="Refresh"
      onRefresh={() => {}}
      refreshing={false}
      loading={false}
    >
      <span>controls</span>
    </FeatureCard>,
  );
}

describe('administrators are pointed at the switch', () => {
  it('the user menu has an Administration entry for administrators, opening Settings → Admin', async () => {
    signInAs(true);
    const user = userEvent.setup();
    renderApp('/organizations');
    await clickDeferredTrigger(user, userMenuButton('sam'));
    await user.click(
      within(await screen.findByRole('menu', {})).getByRole('menuitem', {
        name: 'Administration',
      }),
    );
    expect(window.location.pathname).toBe('/settings');
    expect(window.location.search).toBe('?tab=admin');
  });

  it('an ordinary user has no Administration entry', async () => {
    signInAs(false);
    const user = userEvent.setup();
    renderApp('/organizations');
    await clickDeferredTrigger(user, userMenuButton('sam'));
    const menu = await screen.findByRole('menu', {});
    expect(within(menu).getByRole('menuitem', { name: 'Settings' })).toBeInTheDocument();
    expect(within(menu).queryByRole('menuitem', { name: 'Administration' })).not.toBeInTheDocument();
  });

  it('a switched-off feature on Settings: an administrator reads where to switch it on', async () => {
    signInAs(true);
    renderCisCard();
    const link = await screen.findByRole('link', { name: 'Switch it on in Admin' });
    expect(link).toHaveAttribute('href', '/settings?tab=admin');
    expect(
      screen.getByText(/This feature is currently disabled for this organization\./),
    ).not.toHaveTextContent('contact an administrator');
  });

  it('a switched-off feature on Settings: an ordinary user keeps the spec’s wording and gets no link', async () => {
    signInAs(false);
    renderCisCard();
    expect(
      await screen.findByText(
        'This feature is currently disabled for this organization. Please contact an administrator to enable it.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Switch it on in Admin' })).not.toBeInTheDocument();
  });

  it('an organisation card with a feature off links an administrator to the switches', async () => {
    signInAs(true);
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(await within(shop).findByRole('link', { name: 'Switch it on in Admin' })).toHaveAttribute(
      'href',
      '/settings?tab=admin',
    );
  });

  it('an organisation card with a feature off shows an ordinary user no link', async () => {
    signInAs(false);
    renderApp('/organizations');
    const shop = await screen.findByRole('group', { name: 'Corner Shop Ltd' });
    expect(within(shop).getByRole('button', { name: 'Pay Invoices' })).toBeInTheDocument();
    expect(within(shop).queryByRole('link', { name: 'Switch it on in Admin' })).not.toBeInTheDocument();
  });
});
