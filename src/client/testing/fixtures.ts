import type { CurrentUser } from '@/shared/auth';
import type { ConnectionStatus } from '@/shared/connection';
import type { UserOrganization } from '@/shared/organizations';

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
