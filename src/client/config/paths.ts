import type { FeatureKey } from '@/shared/feature-flags';

type Query = Record<string, string | number | boolean | null | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '' || value === false) continue;
    params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * Every screen of docs/product/shell.md §2 with its href builder. Build links only from here
 * (docs/code-style.md §2).
 */
export const paths = {
  home: { path: '/', getHref: () => '/' },
  auth: { path: '/auth', getHref: (query?: Query) => withQuery('/auth', query) },
  /** Not in the spec's route table, but the spec sends people to /login in two places; it redirects to /auth. */
  login: { path: '/login', getHref: () => '/login' },
  organizations: { path: '/organizations', getHref: (query?: Query) => withQuery('/organizations', query) },
  /**
   * Not in the spec: every organisation at a glance, the landing page of anyone with more than one (issue 47).
   */
  today: { path: '/today', getHref: () => '/today' },
  connect: { path: '/connect', getHref: () => '/connect' },
  invoices: { path: '/invoices', getHref: (query?: Query) => withQuery('/invoices', query) },
  addInvoices: { path: '/add-invoices', getHref: (query?: Query) => withQuery('/add-invoices', query) },
  cisInvoices: { path: '/cis-invoices', getHref: (query?: Query) => withQuery('/cis-invoices', query) },
  /** Not in the spec: the CIS month-end beside CIS Bills, behind the same flag (issue 29). */
  cisReturns: { path: '/cis-returns', getHref: (query?: Query) => withQuery('/cis-returns', query) },
  /** Not in the spec: demo mode's outbox of the emails Ledgerlink sent (issue 43). */
  outbox: { path: '/outbox', getHref: () => '/outbox' },
  stockJournal: { path: '/stock-journal', getHref: (query?: Query) => withQuery('/stock-journal', query) },
  settings: {
    path: '/settings',
    /**
     * `tab: 'admin'` opens Settings → Admin (the feature switches), `'review'` Admin → Needs review (issue 47);
     * `field` (a default's name, e.g. `defaultCashAccountId`) scrolls to that field and puts the focus on it
     * (issue 33).
     */
    getHref: (orgId?: string | number | null, tab?: 'admin' | 'review', field?: string) =>
      withQuery('/settings', { org: orgId ?? undefined, tab, field }),
  },
  xeroCancel: { path: '/xero-cancel', getHref: () => '/xero-cancel' },
  /** Not in the spec: two-step sign-in for accounts with a password (reached from the user menu). */
  accountSecurity: { path: '/account/security', getHref: () => '/account/security' },
} as const;

export const featureHref: Record<FeatureKey, string> = {
  'pay-invoices': paths.invoices.getHref(),
  'add-invoices': paths.addInvoices.getHref(),
  'cis-bills': paths.cisInvoices.getHref(),
  'stock-journal': paths.stockJournal.getHref(),
};

/**
 * The HTTP API of docs/product/shell.md §7 (feature endpoints of docs/product/features.md §7 belong to their
 * feature folders).
 */
export const apiPaths = {
  config: '/api/config',
  currentUser: '/api/auth/current-user',
  user: '/api/user',
  login: '/api/login',
  register: '/api/register',
  logout: '/api/logout',
  authLogin: '/api/auth/login',
  authLogout: '/api/auth/logout',
  /** Browser navigation, not fetch: starts Sign in with Xero. */
  authXero: '/api/auth/xero',
  devCredentials: '/api/auth/dev-credentials',
  mfaStatus: '/api/auth/mfa',
  mfaSetup: '/api/auth/mfa/setup',
  mfaEnable: '/api/auth/mfa/enable',
  mfaVerify: '/api/auth/mfa/verify',
  mfaDisable: '/api/auth/mfa/disable',
  mfaRecoveryCodes: '/api/auth/mfa/recovery-codes',
  adminCheck: '/api/admin/check',
  xeroConnect: '/api/xero/connect',
  xeroReconnect: '/api/xero/reconnect',
  /** During an organisation switch: cache-busting `t` and `org` parameters. */
  xeroConnection: (query?: { t?: number; org?: string | number }) => withQuery('/api/xero/connection', query),
  userOrganizations: '/api/user-organizations',
  featureFlags: '/api/feature-flags',
  setActiveOrganization: '/api/xero/set-active-organization',
  xeroDisconnect: '/api/xero/disconnect',
  xeroConnectionsRefresh: '/api/xero/connections/refresh',
  xeroSettings: '/api/xero/settings',
  bankAccounts: (refresh?: boolean) => withQuery('/api/xero/bank-accounts', { refresh }),
  bankAccountsCleanup: '/api/xero/bank-accounts/cleanup',
  dataCleanup: '/api/xero/data/cleanup',
  salesAccounts: (refresh?: boolean) => withQuery('/api/xero/sales-accounts', { refresh }),
  vatRates: (refresh?: boolean) => withQuery('/api/xero/vat-rates', { refresh }),
  billAccounts: (refresh?: boolean) => withQuery('/api/xero/bill-accounts', { refresh }),
  assetAccounts: (refresh?: boolean) => withQuery('/api/xero/asset-accounts', { refresh }),
  costAccounts: (refresh?: boolean) => withQuery('/api/xero/cost-accounts', { refresh }),
  contactGroups: (refresh?: boolean) => withQuery('/api/xero/contact-groups', { refresh }),
  contacts: (query?: { search?: string; refresh?: boolean }) => withQuery('/api/xero/contacts', query),
  adminOrganizations: '/api/admin/organizations',
  adminOrganizationFeatures: (orgId: string | number) =>
    `/api/admin/organizations/${encodeURIComponent(String(orgId))}/features`,
  adminUsers: '/api/admin/users',
  adminUser: (userId: string | number) => `/api/admin/users/${encodeURIComponent(String(userId))}`,
  adminUserAdmin: (userId: string | number) => `/api/admin/users/${encodeURIComponent(String(userId))}/admin`,
  adminUserUnlock: (userId: string | number) =>
    `/api/admin/users/${encodeURIComponent(String(userId))}/unlock`,
} as const;
