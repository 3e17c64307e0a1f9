import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { CisSettings } from '@/shared/cis-returns';
import { renderWithProviders } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { CisSettingsCard } from './cis-settings-card';

// Issue 42 (filed-under references): a member sees the references a return is filed under read-only once set,
// and is told why; an administrator edits them; any member fills in one not set yet.

const SET: CisSettings = {
  contractorName: null,
  defaultContractorName: 'Demo Builders Ltd',
  utr: '7418529630',
  employerReference: '475/DB42042',
  accountsOfficeReference: null,
  materialsAccountCodes: ['322'],
  deductionAccountCode: '814',
  reverseCharge: false,
  firstReturnOn: null,
  canChangeFiledUnder: false,
};

function serve(settings: CisSettings) {
  const puts: unknown[] = [];
  server.use(
    http.get('*/api/xero/cis/settings', () => HttpResponse.json(settings)),
    http.get('*/api/xero/direct-costs-accounts', () =>
      HttpResponse.json([
        { id: 'a-322', code: '322', name: 'Materials', type: 'DIRECTCOSTS', status: 'ACTIVE' },
      ]),
    ),
    http.get('*/api/xero/cis-deduction-accounts', () =>
      HttpResponse.json([
        { id: 'a-814', code: '814', name: 'CIS Deductions Payable', type: 'CURRLIAB', status: 'ACTIVE' },
      ]),
    ),
    http.put('*/api/xero/cis/settings', async ({ request }) => {
      const body = await request.json();
      puts.push(body);
      return HttpResponse.json({ ...settings, ...(body as object) });
    }),
  );
  return puts;
}

describe('CIS month-end settings: references a return is filed under', () => {
  it('shows a member the set references read-only, says why, and lets them fill in the one not set', async () => {
    const puts = serve(SET);
    const user = userEvent.setup();
    renderWithProviders(<CisSettingsCard orgId={2} />);
    const utr = await screen.findByRole('textbox', { name: "Contractor's UTR" });
    expect(utr).toHaveAttribute('readonly');
    expect(screen.getByRole('textbox', { name: 'Employer reference' })).toHaveAttribute('readonly');
    expect(screen.getByTestId('cis-settings-locked')).toHaveTextContent(
      'only an administrator can change them',
    );
    expect(
      screen.getAllByText(/only an administrator can change it, as returns are filed under it/),
    ).toHaveLength(3);
    // The deductions account is filed under too: its choice is closed to a member.
    expect(screen.getByRole('combobox', { name: 'CIS deductions account' })).toBeDisabled();
    // The accounts office reference is not set yet: any member fills it in.
    const aor = screen.getByRole('textbox', { name: 'Accounts office reference' });
    expect(aor).not.toHaveAttribute('readonly');
    await user.type(utr, '999');
    expect(utr).toHaveValue('7418529630');
    await user.type(aor, '475PD00042042');
    await user.click(screen.getByRole('button', { name: 'Save CIS settings' }));
    await within(document.body).findByText('CIS settings saved');
    expect(puts).toEqual([
      expect.objectContaining({
        utr: '7418529630',
        employerReference: '475/DB42042',
        accountsOfficeReference: '475PD00042042',
        deductionAccountCode: '814',
      }),
    ]);
  });

  it('lets an administrator change a set reference', async () => {
    serve({ ...SET, canChangeFiledUnder: true });
    renderWithProviders(<CisSettingsCard orgId={2} />);
    const utr = await screen.findByRole('textbox', { name: "Contractor's UTR" });
    expect(utr).not.toHaveAttribute('readonly');
    expect(screen.queryByTestId('cis-settings-locked')).toBeNull();
    expect(screen.getByRole('combobox', { name: 'CIS deductions account' })).toBeEnabled();
  });
});
