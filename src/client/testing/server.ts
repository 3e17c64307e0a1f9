import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { builderOrg, cisDeadline, makeConnection, makeTodayRow, shopOrg, testUser } from './fixtures';

/** Default answers: a signed-in user connected to the shop organisation. Tests override with server.use(). */
export const defaultHandlers = [
  http.get('*/api/config', () => HttpResponse.json({ mode: 'demo', demoLogin: false })),
  http.get('*/api/auth/current-user', () => HttpResponse.json(testUser)),
  http.get('*/api/user', () => HttpResponse.json(testUser)),
  http.get('*/api/admin/check', () => HttpResponse.json({ isAdmin: false })),
  http.get('*/api/xero/connection', () => HttpResponse.json(makeConnection())),
  http.get('*/api/user-organizations', () => HttpResponse.json([shopOrg, builderOrg])),
  http.post('*/api/xero/connections/refresh', () => HttpResponse.json({ disconnectedInXero: [] })),
  // The Today page (issue 47), where `/` lands someone with more than one organisation: a row for each of the two.
  http.get('*/api/practice/today', () =>
    HttpResponse.json(
      [shopOrg, builderOrg].map((o) =>
        makeTodayRow({ organizationId: o.organizationId, tenantName: o.tenantName }),
      ),
    ),
  ),
  // Filing with HMRC (issue 43): nothing verified, sent or emailed yet; the month due on the 19th.
  http.get('*/api/xero/cis/subcontractors/verifications', () => HttpResponse.json({ subcontractors: [] })),
  http.get('*/api/xero/cis/deadlines', () => HttpResponse.json(cisDeadline)),
  // The CIS Returns page's "File with HMRC" card: no credentials kept, the month never sent, nothing emailed.
  http.get('*/api/xero/cis/hmrc', () =>
    HttpResponse.json({
      configured: false,
      userIdHint: null,
      updatedAt: null,
      updatedBy: null,
      endpoint: 'sandbox',
      gatewayTest: true,
      mail: 'outbox',
      remindersEnabled: false,
      reminderEmail: null,
    }),
  ),
  http.get('*/api/xero/cis/returns/:period/submission', () =>
    HttpResponse.json({ message: 'This month has not been sent to HMRC from Ledgerlink' }, { status: 404 }),
  ),
  http.get('*/api/xero/cis/statements/emails', () => HttpResponse.json({ emails: [] })),
  http.get('*/api/feature-flags', () =>
    HttpResponse.json(
      [shopOrg, builderOrg].map((o) => ({
        organizationId: o.organizationId,
        featurePayInvoices: o.featurePayInvoices === true,
        featureAddInvoices: o.featureAddInvoices === true,
        featureCisBills: o.featureCisBills === true,
        featureStockJournal: o.featureStockJournal === true,
      })),
    ),
  ),
];

export const server = setupServer(...defaultHandlers);

export const signedOutHandlers = [
  http.get('*/api/auth/current-user', () =>
    HttpResponse.json({ message: 'Not authenticated' }, { status: 401 }),
  ),
  http.get('*/api/user', () => HttpResponse.json({ message: 'Not authenticated' }, { status: 401 })),
];
