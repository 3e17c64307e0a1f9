import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { builderOrg, makeConnection } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

describe('a feature page opened from a link naming an organisation (issue 47)', () => {
  it("activates that organisation first, then shows the page on it, never the other one's figures", async () => {
    let active = 1;
    const asked: number[] = [];
    const drafts: string[] = [];
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          active === 1
            ? makeConnection()
            : makeConnection({
                organizationId: 2,
                tenantName: 'Acme Builders',
                tenantId: 'tenant-builder',
                featureAddInvoices: true,
              }),
        ),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          { ...builderOrg, featureAddInvoices: true, isActive: active === 2 },
          { ...builderOrg, organizationId: 1, tenantName: 'Corner Shop Ltd', isActive: active === 1 },
        ]),
      ),
      http.get('*/api/feature-flags', () =>
        HttpResponse.json(
          [1, 2].map((organizationId) => ({
            organizationId,
            featurePayInvoices: true,
            featureAddInvoices: true,
            featureCisBills: false,
            featureStockJournal: false,
          })),
        ),
      ),
      http.post('*/api/xero/set-active-organization', async ({ request }) => {
        const body = (await request.json()) as { organizationId: number };
        asked.push(body.organizationId);
        active = body.organizationId;
        return HttpResponse.json({ success: true, organizationId: active, tenantId: 't', tenantName: 'x' });
      }),
      http.get('*/api/xero/draft-invoices', ({ request }) => {
        drafts.push(new URL(request.url).searchParams.get('org') ?? '');
        return HttpResponse.json([]);
      }),
      // What else the page loads is that page's business, not the link's.
      http.get('*/api/xero/*', () => HttpResponse.json({ message: 'Not found' }, { status: 404 })),
    );
    renderApp('/add-invoices?org=2');
    expect(await screen.findByRole('status', { name: 'Selecting the organization' })).toBeInTheDocument();
    await waitFor(() => expect(asked).toEqual([2]), { timeout: 5_000 });
    expect(
      await screen.findByText('Now working with: Acme Builders', {}, { timeout: 8_000 }),
    ).toBeInTheDocument();
    await waitFor(() => expect(drafts.length).toBeGreaterThan(0));
    // The page only ever asked for the organisation the link named.
    expect(new Set(drafts)).toEqual(new Set(['2']));
  });
});
