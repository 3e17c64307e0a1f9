import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  CORRECTION_ADVICE,
  type CisMonthSummary,
  type CisMonthsResponse,
  type CisReturn,
  type CisReturnLine,
  type CisSettings,
} from '@/shared/cis-returns';
import { makeConnection, testUser } from '@/client/testing/fixtures';
import { renderWithProviders } from '@/client/testing/render-app';
import { server } from '@/client/testing/server';
import { CisReturnsPage } from './cis-returns-page';

// Issue 42: the CIS Returns screen shows what was withheld at each subcontractor's rate, what changed since a
// return was filed and how HMRC is told, the penalty, the nil-month marks and what filing still needs.

const line = (overrides: Partial<CisReturnLine>): CisReturnLine => ({
  contactId: 'c-hughes',
  name: 'Hughes Groundworks Ltd',
  utr: '1111111111',
  verificationNumber: null,
  rate: 20,
  grossAmount: 1000,
  materialsAmount: 0,
  deductionAmount: 200,
  flags: [],
  ...overrides,
});

const LINES: CisReturnLine[] = [
  line({}),
  line({
    contactId: 'c-murphy',
    name: 'J. Murphy Roofing',
    grossAmount: 300,
    deductionAmount: 0,
    flags: [
      {
        code: 'nothing-deducted',
        message: 'Paid in full with nothing deducted: at 20 % about £60.00 should have been deducted.',
      },
    ],
  }),
  line({
    contactId: 'c-northside',
    name: 'Northside Electrical Ltd',
    rate: 0,
    grossAmount: 100,
    deductionAmount: 0,
  }),
  line({
    contactId: 'c-singh',
    name: 'R. Singh Tiling',
    utr: null,
    rate: 30,
    grossAmount: 500,
    materialsAmount: 100,
    deductionAmount: 120,
  }),
];

function makeReturn(overrides: Partial<CisReturn> = {}): CisReturn {
  return {
    period: '2026-11',
    start: '2026-10-06',
    end: '2026-11-05',
    dueDate: '2026-11-19',
    paymentDueDate: '2026-11-20',
    paymentDueNote:
      'The 22nd (22 Nov 2026) is a weekend or a bank holiday: the deductions must reach HMRC by the last working day before it, 20 Nov 2026, unless paid by Faster Payments.',
    statementDueDate: '2026-11-19',
    nil: false,
    nilReturnRequired: true,
    nilMark: null,
    isCurrent: false,
    filedAt: null,
    filing: null,
    changedSinceFiling: false,
    changes: [],
    correctionAdvice: null,
    penalty: {
      amount: 100,
      next: { from: '2027-01-20', amount: 200, label: '2 months late: £200 more' },
      newContractorRules: false,
    },
    overdue: true,
    checks: [
      { code: 'contractor-utr', ok: true, label: 'Your UTR (the contractor’s)', contactId: null },
      { code: 'employer-reference', ok: true, label: 'Your employer reference', contactId: null },
      {
        code: 'accounts-office-reference',
        ok: true,
        label: 'Your accounts office reference',
        contactId: null,
      },
      { code: 'subcontractor-utr', ok: true, label: 'UTR of Hughes Groundworks Ltd', contactId: 'c-hughes' },
      { code: 'subcontractor-utr', ok: false, label: 'UTR of R. Singh Tiling', contactId: 'c-singh' },
      {
        code: 'verification-number',
        ok: false,
        label: 'Verification number of R. Singh Tiling (deducted at 30 %)',
        contactId: 'c-singh',
      },
    ],
    lines: LINES,
    totals: { grossAmount: 1900, materialsAmount: 100, deductionAmount: 320 },
    ...overrides,
  };
}

function month(overrides: Partial<CisMonthSummary>): CisMonthSummary {
  return {
    period: '2026-11',
    start: '2026-10-06',
    end: '2026-11-05',
    dueDate: '2026-11-19',
    paymentDueDate: '2026-11-20',
    nil: false,
    nilReturnRequired: true,
    nilMark: null,
    subcontractors: 4,
    deductionAmount: 320,
    state: 'overdue',
    daysToDue: -9,
    penaltyAmount: 100,
    nextPenalty: { from: '2027-01-20', amount: 200 },
    newContractorRules: false,
    filing: null,
    changedSinceFiling: false,
    ...overrides,
  };
}

const settings: CisSettings = {
  contractorName: null,
  defaultContractorName: 'Demo Builders Ltd',
  utr: '9876543210',
  employerReference: '123/AB45678',
  accountsOfficeReference: '123PA00012345',
  materialsAccountCodes: ['322'],
  deductionAccountCode: '814',
  reverseCharge: false,
  firstReturnOn: null,
  canChangeFiledUnder: false,
};

function useBuilder(options: {
  months: CisMonthSummary[];
  returns: Record<string, CisReturn>;
  admin?: boolean;
}) {
  const posts: Array<{ url: string; body: unknown }> = [];
  server.use(
    http.get('*/api/user', () => HttpResponse.json({ ...testUser, isAdmin: options.admin === true })),
    http.get('*/api/xero/connection', () =>
      HttpResponse.json(
        makeConnection({
          tenantName: 'Demo Builders Ltd',
          tenantId: 'tenant-builder',
          organizationId: 2,
          featureCisBills: true,
        }),
      ),
    ),
    http.get('*/api/xero/cis/months', () =>
      HttpResponse.json({
        today: '2026-11-28',
        firstReturnOn: null,
        months: options.months,
      } satisfies CisMonthsResponse),
    ),
    http.get('*/api/xero/cis/returns', ({ request }) => {
      const period = new URL(request.url).searchParams.get('period') ?? '';
      const ret = options.returns[period];
      return ret
        ? HttpResponse.json(ret)
        : HttpResponse.json({ message: 'no', code: 'NOT_FOUND' }, { status: 404 });
    }),
    http.get('*/api/xero/cis/settings', () => HttpResponse.json(settings)),
    http.post('*/api/xero/cis/returns/:period/nil-mark', async ({ request, params }) => {
      const body = await request.json();
      posts.push({ url: String(params.period), body });
      return HttpResponse.json({
        kind: 'told-in-advance',
        markedAt: '2026-11-28T10:00:00.000Z',
        markedBy: 'sam',
      });
    }),
  );
  return posts;
}

describe('CIS Returns (issue 42)', () => {
  it('shows each subcontractor’s rate with its meaning, the VAT-free gross, materials, deduction and what to check', async () => {
    useBuilder({ months: [month({})], returns: { '2026-11': makeReturn() } });
    renderWithProviders(<CisReturnsPage />);
    const table = await screen.findByRole('table', { name: /^Payments to subcontractors/ });
    expect(within(table).getByRole('columnheader', { name: 'Gross paid (excl. VAT)' })).toBeInTheDocument();
    const singh = within(table).getByRole('row', { name: /R\. Singh Tiling/ });
    expect(singh).toHaveTextContent('30 % — not verified');
    expect(singh).toHaveTextContent('£500.00');
    expect(singh).toHaveTextContent('£100.00');
    expect(singh).toHaveTextContent('£120.00');
    expect(within(table).getByRole('row', { name: /Northside/ })).toHaveTextContent(
      '0 % — gross payment status',
    );
    expect(
      within(table).getByRole('list', { name: 'Check before filing: J. Murphy Roofing' }),
    ).toHaveTextContent('Paid in full with nothing deducted');
    // The deductions' payment day moved off the weekend, and why.
    expect(screen.getByText('Pay the deductions to HMRC by 20 Nov 2026')).toBeInTheDocument();
    // Overdue: the penalty now and its next step.
    expect(screen.getByText(/penalty for this return is now £100\.00/)).toHaveTextContent(
      'It rises by £200.00 on 20 Jan 2027',
    );
  });

  it('opens on the month a link names (?period=, the Today page’s CIS return, issue 47), else the newest ended', async () => {
    const october = month({
      period: '2026-10',
      start: '2026-09-06',
      end: '2026-10-05',
      dueDate: '2026-10-19',
      daysToDue: -40,
    });
    const octoberReturn = makeReturn({
      period: '2026-10',
      start: '2026-09-06',
      end: '2026-10-05',
      dueDate: '2026-10-19',
    });
    useBuilder({
      months: [month({}), october],
      returns: { '2026-11': makeReturn(), '2026-10': octoberReturn },
    });
    window.history.replaceState(null, '', '/cis-returns?period=2026-10');
    const { unmount } = renderWithProviders(<CisReturnsPage />);
    expect(
      await screen.findByText('Monthly return (CIS300): 6 Sep – 5 Oct 2026', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
    const months = screen.getByRole('list', { name: 'Tax months' });
    expect(within(months).getByRole('button', { current: true })).toHaveAttribute('data-period', '2026-10');
    unmount();

    // A month the list does not hold (an old link, a typed address) opens the newest ended month instead.
    window.history.replaceState(null, '', '/cis-returns?period=2019-01');
    renderWithProviders(<CisReturnsPage />);
    expect(
      await screen.findByText('Monthly return (CIS300): 6 Oct – 5 Nov 2026', {}, { timeout: 15_000 }),
    ).toBeInTheDocument();
  });

  it('will not mark a return filed while a reference is missing, and says which', async () => {
    useBuilder({ months: [month({})], returns: { '2026-11': makeReturn() } });
    const user = userEvent.setup();
    renderWithProviders(<CisReturnsPage />);
    const button = await screen.findByRole('button', { name: 'Mark as filed' });
    expect(button).toBeDisabled();
    // A statement missing Singh's references would be refused (CISR12160): its download waits for them.
    expect(screen.getByRole('button', { name: 'Statement for R. Singh Tiling (PDF)' })).toBeDisabled();
    expect(screen.getByRole('link', { name: 'Statement for Hughes Groundworks Ltd (PDF)' })).toHaveAttribute(
      'download',
    );
    expect(screen.getByRole('button', { name: 'All statements (PDF)' })).toBeDisabled();
    const checklist = screen.getByRole('list', { name: 'Before filing' });
    expect(within(checklist).getByText('UTR of R. Singh Tiling')).toBeInTheDocument();
    expect(checklist).toHaveTextContent('Verification number of R. Singh Tiling (deducted at 30 %): missing');
    // The contractor's own references are all set: nothing to add in Settings.
    expect(within(checklist).queryByRole('link', { name: 'Add it in Settings' })).toBeNull();
    // "Add it" beside a subcontractor's reference opens their references.
    await user.click(within(checklist).getAllByRole('button', { name: 'Add it' })[0] as HTMLElement);
    const dialog = await screen.findByRole('dialog', { name: 'R. Singh Tiling' });
    expect(within(dialog).getByRole('textbox', { name: 'Verification number' })).toBeInTheDocument();
  });

  it('keeps a filed return as filed, shows what changed since and how HMRC is told', async () => {
    const filedLines = [
      line({}),
      line({ contactId: 'c-singh', name: 'R. Singh Tiling', utr: '2345678901', rate: 30 }),
    ];
    const ret = makeReturn({
      filedAt: '2026-11-20',
      filing: {
        filedOn: '2026-11-20',
        filedAt: '2026-11-20T09:00:00.000Z',
        filedBy: 'bella',
        source: 'manual',
        late: true,
        penaltyAmount: 100,
        lines: filedLines,
        totals: { grossAmount: 2000, materialsAmount: 0, deductionAmount: 400 },
        receipt: null,
      },
      changedSinceFiling: true,
      changes: [
        {
          contactId: 'c-hughes',
          name: 'Hughes Groundworks Ltd',
          kind: 'changed',
          filed: { grossAmount: 1000, materialsAmount: 0, deductionAmount: 200 },
          now: { grossAmount: 1500, materialsAmount: 0, deductionAmount: 300 },
        },
      ],
      correctionAdvice: CORRECTION_ADVICE,
      penalty: { amount: 100, next: null, newContractorRules: false },
    });
    useBuilder({
      months: [
        month({
          state: 'filed',
          filing: ret.filing,
          changedSinceFiling: true,
          penaltyAmount: 100,
          nextPenalty: null,
        }),
      ],
      returns: { '2026-11': ret },
    });
    renderWithProviders(<CisReturnsPage />);
    expect(await screen.findByText('Changed since it was filed on 20 Nov 2026')).toBeInTheDocument();
    const changes = screen.getByRole('table', { name: 'Changes since the return was filed' });
    const hughes = within(changes).getByRole('row', { name: /Hughes/ });
    expect(within(hughes).getByLabelText('filed £200.00')).toBeInTheDocument();
    expect(within(hughes).getByLabelText('now £300.00')).toBeInTheDocument();
    expect(screen.getByText(CORRECTION_ADVICE)).toBeInTheDocument();
    expect(screen.getByText(/late-filing penalty of £100\.00 stands/)).toBeInTheDocument();
    const months = screen.getByRole('list', { name: 'Tax months' });
    expect(months).toHaveTextContent('Changed since filing');
    expect(months).toHaveTextContent('Late · £100.00 penalty');
    // Filed: no checklist, no "Mark as filed"; a member cannot undo it.
    expect(screen.queryByRole('list', { name: 'Before filing' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Mark as filed' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Undo filed' })).toBeNull();
  });

  it('says why a return filed late carries no penalty when the new-contractor cap is reached', async () => {
    const ret = makeReturn({
      filedAt: '2026-11-28',
      filing: {
        filedOn: '2026-11-28',
        filedAt: '2026-11-28T09:00:00.000Z',
        filedBy: 'bella',
        source: 'manual',
        late: true,
        penaltyAmount: 0,
        lines: LINES,
        totals: { grossAmount: 1900, materialsAmount: 100, deductionAmount: 320 },
        receipt: null,
      },
      penalty: { amount: 0, next: null, newContractorRules: true },
      overdue: false,
    });
    useBuilder({
      months: [month({ state: 'filed', filing: ret.filing, penaltyAmount: 0, nextPenalty: null })],
      returns: { '2026-11': ret },
    });
    renderWithProviders(<CisReturnsPage />);
    expect(await screen.findByText(/No late-filing penalty is added for it/)).toHaveTextContent('CH62560');
    expect(screen.queryByText(/penalty of £0\.00/)).toBeNull();
  });

  it('marks a nil month as told to HMRC in advance', async () => {
    const nil = makeReturn({
      period: '2026-10',
      start: '2026-09-06',
      end: '2026-10-05',
      dueDate: '2026-10-19',
      nil: true,
      lines: [],
      totals: { grossAmount: 0, materialsAmount: 0, deductionAmount: 0 },
      checks: makeReturn().checks.slice(0, 3),
      paymentDueNote: null,
      penalty: { amount: 100, next: null, newContractorRules: true },
    });
    const posts = useBuilder({
      months: [
        month({
          period: '2026-10',
          start: '2026-09-06',
          end: '2026-10-05',
          nil: true,
          subcontractors: 0,
          newContractorRules: true,
        }),
      ],
      returns: { '2026-10': nil },
    });
    const user = userEvent.setup();
    renderWithProviders(<CisReturnsPage />);
    expect(await screen.findByRole('button', { name: 'Mark nil return as filed' })).toBeEnabled();
    expect(
      screen.getByText(/penalties of the returns due before your first return add up to £3,000/),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'HMRC told in advance' }));
    await waitFor(() => expect(posts).toEqual([{ url: '2026-10', body: { kind: 'told-in-advance' } }]));
  });

  it('lets a member fill in a reference but not change one that is set', async () => {
    useBuilder({ months: [month({})], returns: { '2026-11': makeReturn() } });
    const user = userEvent.setup();
    renderWithProviders(<CisReturnsPage />);
    await user.click(
      await screen.findByRole('button', {
        name: 'Edit UTR and verification number of Hughes Groundworks Ltd',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Hughes Groundworks Ltd' });
    expect(within(dialog).getByRole('textbox', { name: 'UTR' })).toHaveAttribute('readonly');
    expect(within(dialog).getByText(/only an administrator can change it/)).toBeInTheDocument();
    // At 20 % no verification number is asked for.
    expect(within(dialog).queryByRole('textbox', { name: 'Verification number' })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await user.click(
      screen.getByRole('button', { name: 'Edit UTR and verification number of R. Singh Tiling' }),
    );
    const singh = await screen.findByRole('dialog', { name: 'R. Singh Tiling' });
    expect(within(singh).getByRole('textbox', { name: 'UTR' })).not.toHaveAttribute('readonly');
  });
});
