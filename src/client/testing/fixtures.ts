import type { CurrentUser } from '@/shared/auth';
import type { ConnectionStatus } from '@/shared/connection';
import type { UserOrganization } from '@/shared/organizations';
import type { TodayRow } from '@/shared/practice';

export const testUser: CurrentUser = {
  id: 1,
  username: 'sam',
  email: 'sam@example.co.uk',
  isAdmin: false,
  isXeroUser: false,
};

export function inMinutes(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}

export function makeConnection(overrides: Partial<ConnectionStatus> = {}): ConnectionStatus {
  return {
    connected: true,
    tenantName: 'Corner Shop Ltd',
    tenantId: 'tenant-shop',
    organizationId: 1,
    tokenExpiry: inMinutes(25),
    featurePayInvoices: true,
    featureAddInvoices: true,
    featureCisBills: false,
    featureStockJournal: true,
    ...overrides,
  };
}

export function makeOrganization(overrides: Partial<UserOrganization> = {}): UserOrganization {
  return {
    organizationId: 1,
    tenantId: 'tenant-shop',
    tenantName: 'Corner Shop Ltd',
    connected: true,
    hasValidToken: true,
    isActive: true,
    lastAccessed: '2026-11-20T09:30:00.000Z',
    tokenExpiry: inMinutes(25),
    featurePayInvoices: true,
    featureAddInvoices: true,
    featureCisBills: false,
    featureStockJournal: true,
    rateLimits: null,
    ...overrides,
  };
}

export const shopOrg = makeOrganization();
export const builderOrg = makeOrganization({
  organizationId: 2,
  tenantId: 'tenant-builder',
  tenantName: 'Acme Builders',
  isActive: false,
  featurePayInvoices: false,
  featureAddInvoices: false,
  featureCisBills: true,
  featureStockJournal: false,
  rateLimits: { minuteRemaining: 57, dayRemaining: 4980 },
});

/** What is due (issue 43): the month to 5 December 2026, due on the 19th, not filed. */
export const cisDeadline = {
  today: '2026-12-10',
  period: '2026-12',
  end: '2026-12-05',
  returnDueDate: '2026-12-19',
  statementsDueDate: '2026-12-19',
  paymentDueDate: '2026-12-22',
  daysToDue: 9,
  state: 'due',
  reminderDate: '2026-12-14',
  remindersEnabled: false,
  overdueEarlier: 0,
};

/** A row of the Today page (issue 47): an organisation with a little of everything to do. */
export function makeTodayRow(over: Partial<TodayRow> = {}): TodayRow {
  return {
    organizationId: 7,
    tenantName: 'Bramley Builders Ltd',
    connection: { state: 'connected', liveUpdates: { state: 'live' } },
    status: 'ready',
    message: null,
    invoicesAwaiting: { count: 1200, amount: 4321.5, otherCurrencies: 0, complete: true, total: 1200 },
    draftInvoices: 3,
    draftBills: 0,
    cis: {
      period: '2026-11',
      state: 'overdue',
      dueDate: '2026-11-19',
      daysToDue: -9,
      penaltyAmount: 100,
      overdueMonths: 2,
    },
    stockJournalUnposted: 2,
    stockJournalWeeks: { fromDate: '2026-10-01', toDate: '2026-11-22' },
    needsReview: 1,
    canReview: true,
    pending: [],
    ...over,
  };
}
