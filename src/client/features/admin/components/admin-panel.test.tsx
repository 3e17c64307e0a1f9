import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { AdminOrganization, AdminUser } from '@/shared/admin';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { getChangedFields } from './users-tab';

const organizations: AdminOrganization[] = [
  {
    id: 1,
    tenantName: 'Corner Shop Ltd',
    featurePayInvoices: true,
    featureAddInvoices: true,
    featureCisBills: false,
    featureStockJournal: true,
  },
  {
    id: 2,
    tenantName: 'Acme Builders',
    featurePayInvoices: false,
    featureAddInvoices: false,
    featureCisBills: true,
    featureStockJournal: false,
  },
];
const users: AdminUser[] = [
  { id: 1, username: 'sam', email: 'sam@example.co.uk', isAdmin: true, isXeroUser: false },
  { id: 2, username: 'olivia', email: null, isAdmin: false, isXeroUser: true },
];

/** An admin session with the admin endpoints; returns what was sent. */
function useAdminServer(options: { featurePatch?: () => Response } = {}) {
  const sent = {
    features: [] as Array<{ orgId: string; body: unknown }>,
    users: [] as Array<{ userId: string; body: unknown }>,
    admin: [] as unknown[],
    orgReads: 0,
  };
  server.use(
    http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: true })),
    http.get('*/api/admin/organizations', () => {
      sent.orgReads += 1;
      return HttpResponse.json(organizations);
    }),
    http.patch('*/api/admin/organizations/:orgId/features', async ({ request, params }) => {
      const body = (await request.json()) as Record<string, boolean>;
      sent.features.push({ orgId: String(params.orgId), body });
      if (options.featurePatch) return options.featurePatch();
      const org = organizations.find((o) => String(o.id) === params.orgId);
      return HttpResponse.json({ ...org, ...body });
    }),
    http.get('*/api/admin/users', () => HttpResponse.json(users)),
    http.patch('*/api/admin/users/:userId', async ({ request, params }) => {
      const body = (await request.json()) as Record<string, unknown>;
      sent.users.push({ userId: String(params.userId), body });
      const user = users.find((u) => String(u.id) === params.userId);
      return HttpResponse.json({ ...user, ...body });
    }),
    http.patch('*/api/admin/users/:userId/admin', async ({ request, params }) => {
      const body = (await request.json()) as { isAdmin: boolean };
      sent.admin.push({ userId: String(params.userId), ...body });
      const user = users.find((u) => String(u.id) === params.userId);
      return HttpResponse.json({ ...user, ...body });
    }),
    http.get('*/api/admin/audit', ({ request }) =>
      HttpResponse.json(
        new URL(request.url).searchParams.get('action') === 'settings.'
          ? []
          : [
              {
                id: 7,
                at: '2026-11-20T09:30:00.000Z',
                userId: 1,
                username: 'sam',
                organizationId: 1,
                action: 'settings.update',
                target: 'Corner Shop Ltd',
                organizationName: 'Corner Shop Ltd',
                targetLabel: 'Corner Shop Ltd',
                description: 'Changed the tax status from Tax inclusive to No tax',
                result: 'success',
                detail: {
                  before: { defaultTaxStatus: 'Tax inclusive' },
                  after: { defaultTaxStatus: 'No tax' },
                },
                ip: '127.0.0.1',
              },
            ],
      ),
    ),
  );
  return sent;
}

async function openAdminTab(user: ReturnType<typeof userEvent.setup>) {
  // The General tab behind loads its reference lists: empty ones will do here.
  server.use(
    http.get('*/api/xero/settings/bank-accounts', () =>
      HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
    ),
    http.get('*/api/xero/:list', () => HttpResponse.json([])),
  );
  renderApp('/settings');
  await user.click(await screen.findByRole('tab', { name: 'Admin' }));
}

describe('Admin panel (000 §2, §4, §6)', () => {
  it('tells a non-admin they have no administrator access, and loads no admin list', async () => {
    const user = userEvent.setup();
    let adminReads = 0;
    server.use(
      http.get('*/api/admin/organizations', () => {
        adminReads += 1;
        return HttpResponse.json([]);
      }),
    );
    await openAdminTab(user);
    expect(await screen.findByText('You do not have administrator access.')).toBeInTheDocument();
    expect(screen.queryByText('Organization Feature Management')).not.toBeInTheDocument();
    expect(adminReads).toBe(0);
  });

  it('switches a feature at once, then sends only that flag', async () => {
    const user = userEvent.setup();
    const sent = useAdminServer();
    await openAdminTab(user);
    expect(await screen.findByText('Organization Feature Management')).toBeInTheDocument();
    const toggle = await screen.findByRole('switch', { name: 'CIS Bills for Corner Shop Ltd' });
    expect(toggle).toHaveAttribute('aria-checked', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-checked', 'true');
    expect(await screen.findByText('Features updated')).toBeInTheDocument();
    expect(sent.features).toEqual([{ orgId: '1', body: { featureCisBills: true } }]);
  });

  it('puts the toggle back and says so when the change is refused', async () => {
    const user = userEvent.setup();
    useAdminServer({
      featurePatch: () => HttpResponse.json({ message: 'Administrator access required' }, { status: 403 }),
    });
    await openAdminTab(user);
    const toggle = await screen.findByRole('switch', { name: 'Pay Invoices for Acme Builders' });
    await user.click(toggle);
    expect(await screen.findByText('Failed to update features')).toBeInTheDocument();
    await waitFor(() => expect(toggle).toHaveAttribute('aria-checked', 'false'));
  });

  it('polls the organisation list every 4 s', async () => {
    const user = userEvent.setup();
    const sent = useAdminServer();
    await openAdminTab(user);
    await screen.findByText('Organization Feature Management');
    const first = sent.orgReads;
    await waitFor(() => expect(sent.orgReads).toBeGreaterThan(first), { timeout: 15_000 });
  }, 15_000);

  it('edits a user inline: the email rule, "No changes to save", and only changed fields sent', async () => {
    const user = userEvent.setup();
    const sent = useAdminServer();
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Users' }));
    expect(await screen.findByText('User Management')).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Username', 'Email', 'Admin', 'Xero', 'Actions']);
    expect(within(table).getByText('Local')).toBeInTheDocument();
    expect(within(table).getByText('Xero', { selector: 'span' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Edit olivia' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('No changes to save')).toBeInTheDocument();

    const email = screen.getByRole('textbox', { name: 'Email of olivia' });
    await user.type(email, 'olivia@shop');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Invalid email format')).toBeInTheDocument();
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(sent.users).toEqual([]);

    await user.type(email, '.co.uk');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('User updated successfully')).toBeInTheDocument();
    expect(sent.users).toEqual([{ userId: '2', body: { email: 'olivia@shop.co.uk' } }]);
  });

  it('searches users by name or email', async () => {
    const user = userEvent.setup();
    useAdminServer();
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Users' }));
    const table = await screen.findByRole('table');
    await within(table).findByText('olivia');
    await user.type(screen.getByPlaceholderText('Search users...'), 'example.co');
    await waitFor(() => expect(within(table).queryByText('olivia')).not.toBeInTheDocument());
    expect(within(table).getByText('sam')).toBeInTheDocument();
  });

  it('shows a sign-in lock and lifts it with Unlock', async () => {
    const locked = [users[0], { ...users[1], signInLocked: true }];
    const unlocked: string[] = [];
    useAdminServer();
    server.use(
      http.get('*/api/admin/users', () => HttpResponse.json(unlocked.length > 0 ? users : locked)),
      http.post('*/api/admin/users/:userId/unlock', ({ params }) => {
        unlocked.push(String(params.userId));
        return HttpResponse.json({ ok: true });
      }),
    );
    const user = userEvent.setup();
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Users' }));
    const row = (await screen.findByText('olivia')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Sign-in locked')).toBeInTheDocument();
    expect(screen.getAllByText('Sign-in locked')).toHaveLength(1);
    await user.click(within(row).getByRole('button', { name: 'Lift the sign-in lock of olivia' }));
    expect(await screen.findByText('Sign-in lock lifted')).toBeInTheDocument();
    expect(unlocked).toEqual(['2']);
    await waitFor(() => expect(screen.queryByText('Sign-in locked')).not.toBeInTheDocument());
  });

  it('grants admin through the confirm dialog, and Cancel changes nothing', async () => {
    const user = userEvent.setup();
    const sent = useAdminServer();
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Users' }));
    await user.click(await screen.findByRole('button', { name: 'Grant admin privileges to olivia' }));
    let dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Grant Admin Privileges')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(sent.admin).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Remove admin privileges from sam' }));
    dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Remove Admin Privileges')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(screen.getByRole('button', { name: 'Grant admin privileges to olivia' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Admin status updated successfully')).toBeInTheDocument();
    expect(sent.admin).toEqual([{ userId: '2', isAdmin: true }]);
  });

  it('lists the activity log with filters and a CSV export of the same selection', async () => {
    const user = userEvent.setup();
    useAdminServer();
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Activity' }));
    // Each line in words (issue 45 item 3): no action code, no JSON.
    expect(
      await screen.findByRole('cell', { name: 'Changed the tax status from Tax inclusive to No tax' }),
    ).toBeInTheDocument();
    expect(screen.queryByText('settings.update')).not.toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'What happened' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute('href', '/api/admin/audit.csv');
    await user.click(screen.getByLabelText('Action'));
    await user.click(await screen.findByRole('option', { name: 'Settings and maintenance' }));
    expect(await screen.findByText('No activity matches these filters.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/admin/audit.csv?action=settings.',
    );
  });
});

describe('getChangedFields', () => {
  it('keeps only what differs, trimmed; an emptied email is sent as ""', () => {
    const olivia = users[1] as AdminUser;
    expect(getChangedFields(olivia, { username: 'olivia', email: '' })).toEqual({});
    expect(getChangedFields(olivia, { username: ' olivia2 ', email: '' })).toEqual({ username: 'olivia2' });
    const sam = users[0] as AdminUser;
    expect(getChangedFields(sam, { username: 'sam', email: '' })).toEqual({ email: '' });
  });
});

describe('Admin → Needs review (issue 20 part 4)', () => {
  it("opens straight on Needs review from a link saying so (/settings?tab=review, the Today page's figure, issue 47)", async () => {
    useAdminServer();
    server.use(
      http.get('*/api/xero/settings/bank-accounts', () =>
        HttpResponse.json({ creditCardAccounts: [], cashAccounts: [] }),
      ),
      http.get('*/api/xero/:list', () => HttpResponse.json([])),
      http.get('*/api/admin/writes/review', () =>
        HttpResponse.json([
          {
            id: 41,
            organizationId: 1,
            organizationName: 'Corner Shop Ltd',
            kind: 'payment',
            amountPence: 12_345,
            targetId: 'INV-0042',
            username: 'olivia',
            createdAt: '2026-11-20T09:30:00.000Z',
            summary: 'payment.create',
            request: { invoice: 'INV-0042' },
            error: 'Outcome unknown: please check this in Xero.',
            state: 'needs_review',
            canRetry: true,
          },
        ]),
      ),
    );
    renderApp('/settings?tab=review');
    expect(await screen.findByRole('tab', { name: 'Needs review' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Admin' })).toHaveAttribute('aria-selected', 'true');
    expect(await screen.findByText('INV-0042')).toBeInTheDocument();
  });

  it('lists writes that need a person, asks Xero when one is opened, and marks it done', async () => {
    const user = userEvent.setup();
    useAdminServer();
    const write = {
      id: 41,
      organizationId: 1,
      organizationName: 'Corner Shop Ltd',
      kind: 'payment',
      amountPence: 12_345,
      targetId: 'INV-0042',
      username: 'olivia',
      createdAt: '2026-11-20T09:30:00.000Z',
      summary: 'payment.create',
      request: { invoice: 'INV-0042' },
      error: 'Outcome unknown: please check this in Xero.',
      state: 'needs_review',
      canRetry: true,
    };
    let settled = false;
    let lookups = 0;
    const sent: unknown[] = [];
    server.use(
      http.get('*/api/admin/writes/review', () => HttpResponse.json(settled ? [] : [write])),
      http.get('*/api/admin/writes/:writeId', () => {
        lookups += 1;
        return HttpResponse.json({
          ...write,
          xero:
            lookups === 1
              ? { status: 'unavailable', message: 'Xero is not answering' }
              : { status: 'found', xeroId: 'PAY-77' },
        });
      }),
      http.post('*/api/admin/writes/:writeId/settle', async ({ request }) => {
        sent.push(await request.json());
        settled = true;
        return HttpResponse.json({ ...write, state: 'confirmed' });
      }),
    );
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Needs review' }));
    const row = (await screen.findByText('INV-0042')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Corner Shop Ltd')).toBeInTheDocument();
    expect(within(row).getByText('£123.45')).toBeInTheDocument();
    expect(within(row).getByText('olivia')).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: 'Review' }));
    const item = await screen.findByRole('region', { name: 'Write 41' });
    expect(await within(item).findByText('Could not ask Xero: Xero is not answering')).toBeInTheDocument();
    expect(within(item).getByText('Outcome unknown: please check this in Xero.')).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: /Ask Xero again/ }));
    expect(await within(item).findByText('Xero has it (PAY-77)')).toBeInTheDocument();
    // Xero has it: sending it again is not offered.
    expect(within(item).getByRole('button', { name: 'Send again' })).toBeDisabled();
    await user.click(within(item).getByRole('button', { name: 'Mark done' }));
    expect(await screen.findByText('Marked as done')).toBeInTheDocument();
    expect(sent).toEqual([{ action: 'done', xeroId: 'PAY-77' }]);
    expect(
      await screen.findByText('Nothing needs review: every write to Xero has been settled.'),
    ).toBeInTheDocument();
  }, 20_000);

  it('cancels a write', async () => {
    const user = userEvent.setup();
    useAdminServer();
    const sent: unknown[] = [];
    server.use(
      http.get('*/api/admin/writes/review', () =>
        HttpResponse.json(
          sent.length
            ? []
            : [
                {
                  id: 5,
                  organizationId: 2,
                  organizationName: 'Acme Builders',
                  kind: 'bill.create',
                  amountPence: null,
                  targetId: null,
                  username: null,
                  createdAt: '2026-11-20T09:30:00.000Z',
                  summary: null,
                  request: {},
                  error: null,
                  state: 'needs_review',
                  canRetry: false,
                },
              ],
        ),
      ),
      http.get('*/api/admin/writes/:writeId', () =>
        HttpResponse.json({
          id: 5,
          organizationId: 2,
          organizationName: 'Acme Builders',
          kind: 'bill.create',
          amountPence: null,
          targetId: null,
          username: null,
          createdAt: '2026-11-20T09:30:00.000Z',
          summary: null,
          request: {},
          error: null,
          state: 'needs_review',
          canRetry: false,
          xero: { status: 'missing' },
        }),
      ),
      http.post('*/api/admin/writes/:writeId/settle', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({
          id: 5,
          organizationId: 2,
          organizationName: 'Acme Builders',
          kind: 'bill.create',
          amountPence: null,
          targetId: null,
          username: null,
          createdAt: '2026-11-20T09:30:00.000Z',
          summary: null,
          request: {},
          error: 'cancelled by an administrator',
          state: 'failed',
          canRetry: false,
        });
      }),
    );
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Needs review' }));
    await user.click(await screen.findByRole('button', { name: 'Review' }));
    const item = await screen.findByRole('region', { name: 'Write 5' });
    expect(await within(item).findByText('Xero does not have it')).toBeInTheDocument();
    // A bill cannot be sent again from here: the way back is its own screen.
    expect(within(item).queryByRole('button', { name: 'Send again' })).toBeNull();
    expect(
      within(item).getByText('To send it again, cancel it and make the change again on its screen.'),
    ).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Cancel write' }));
    expect(await screen.findByText('Write cancelled')).toBeInTheDocument();
    expect(sent).toEqual([{ action: 'cancel' }]);
  }, 20_000);

  it('sends a payment Xero does not have again, and says which write carried it', async () => {
    const user = userEvent.setup();
    useAdminServer();
    const write = {
      id: 9,
      organizationId: 1,
      organizationName: 'Corner Shop Ltd',
      kind: 'payment',
      amountPence: 5_000,
      targetId: 'INV-0077',
      username: 'olivia',
      createdAt: '2026-11-20T09:30:00.000Z',
      summary: 'payment.create',
      request: {},
      error: 'Outcome unknown: please check this in Xero.',
      state: 'needs_review',
      canRetry: true,
    };
    const sent: unknown[] = [];
    server.use(
      http.get('*/api/admin/writes/review', () => HttpResponse.json(sent.length ? [] : [write])),
      http.get('*/api/admin/writes/:writeId', () =>
        HttpResponse.json({ ...write, xero: { status: 'missing' } }),
      ),
      http.post('*/api/admin/writes/:writeId/settle', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({
          ...write,
          state: 'failed',
          error: 'Sent again by boss as write 12.',
          retriedAs: { writeId: 12, xeroId: 'PAY-12' },
        });
      }),
    );
    await openAdminTab(user);
    await user.click(await screen.findByRole('tab', { name: 'Needs review' }));
    await user.click(await screen.findByRole('button', { name: 'Review' }));
    const item = await screen.findByRole('region', { name: 'Write 9' });
    expect(await within(item).findByText('Xero does not have it')).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Send again' }));
    expect(await screen.findByText('Sent again')).toBeInTheDocument();
    expect(
      await screen.findByText('Xero has it now (PAY-12); it is write 12 in the activity log.'),
    ).toBeInTheDocument();
    expect(sent).toEqual([{ action: 'retry' }]);
  }, 20_000);
});
