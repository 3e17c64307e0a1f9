import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { builderOrg, makeOrganization, shopOrg } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { clickDeferredTrigger } from '@/client/testing/deferred';

function header() {
  return screen.getByRole('banner');
}

describe('organisation switcher (spec 000 §2)', () => {
  it('shows the active organisation and lists connected organisations sorted by name', async () => {
    server.use(
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          shopOrg,
          builderOrg,
          makeOrganization({ organizationId: 5, tenantName: 'Zed Ltd', connected: false, isActive: false }),
        ]),
      ),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    const trigger = async () =>
      (await within(header()).findAllByRole('combobox', { name: 'Organization' }))[0];
    expect(await trigger()).toHaveTextContent('Corner Shop Ltd');
    await clickDeferredTrigger(user, trigger);
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Acme Builders', 'Corner Shop Ltd']);
  });

  it('"No organizations available" when the list is empty', async () => {
    server.use(http.get('*/api/user-organizations', () => HttpResponse.json([])));
    renderApp('/organizations');
    expect((await within(header()).findAllByText('No organizations available')).length).toBeGreaterThan(0);
  });

  it('"No connected organizations available" with a Refresh link', async () => {
    let calls = 0;
    server.use(
      http.get('*/api/user-organizations', () => {
        calls += 1;
        return HttpResponse.json([makeOrganization({ connected: false })]);
      }),
    );
    const user = userEvent.setup();
    renderApp('/organizations');
    expect(
      (await within(header()).findAllByText('No connected organizations available')).length,
    ).toBeGreaterThan(0);
    const [refresh] = within(header()).getAllByRole('button', { name: 'Refresh' });
    await user.click(refresh as HTMLElement);
    expect(calls).toBeGreaterThan(1);
  });
});
