import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { makeConnection, makeOrganization } from '@/client/testing/fixtures';
import { renderApp } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';

const ACCOUNT_321 = '8c1f2d3e-4b5a-4c6d-8e7f-901234567890';

/** Issue 45 item 4: the Create CIS Bills card names its default bill account, not only its id's first 8 characters. */
describe('Create CIS Bills: the default bill account', () => {
  it('reads "Subcontractors (321)" beside the id preview the spec asks for', async () => {
    server.use(
      http.get('*/api/xero/connection', () =>
        HttpResponse.json(
          makeConnection({
            tenantName: 'Demo Builders Ltd',
            organizationId: 2,
            featureCisBills: true,
            defaultBillAccountId: ACCOUNT_321,
          }),
        ),
      ),
      http.get('*/api/user-organizations', () =>
        HttpResponse.json([
          makeOrganization({ organizationId: 2, tenantName: 'Demo Builders Ltd', featureCisBills: true }),
        ]),
      ),
      http.get('*/api/xero/cis-contacts', () => HttpResponse.json([])),
      http.get('*/api/xero/direct-costs-accounts', () =>
        HttpResponse.json([
          { id: 'a-310', code: '310', name: 'Cost of Goods Sold' },
          { id: ACCOUNT_321, code: '321', name: 'Subcontractors' },
        ]),
      ),
      http.get('*/api/xero/draft-bills', () => HttpResponse.json([])),
      // Where a bill's deduction and materials go (issue 42), chosen in Settings.
      http.get('*/api/xero/cis-bill-setup', () =>
        HttpResponse.json({
          deductionAccount: { code: '814', name: 'CIS Deductions Payable' },
          materialsAccounts: [{ code: '322', name: 'Materials' }],
          reverseCharge: false,
        }),
      ),
    );
    renderApp('/cis-invoices');
    const line = await screen.findByText(/Default bill account:/, {}, { timeout: 15_000 });
    expect(await screen.findByText(/Default bill account: Subcontractors \(321\)/)).toBe(line);
    expect(line).toHaveTextContent('8c1f2d3e');
  });
});
