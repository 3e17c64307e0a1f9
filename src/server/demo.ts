import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { DefaultIdField, PostingStatus, TaxStatus } from '../shared/connection-rules';
import {
  chooseDefaultsByName,
  type DefaultNames,
  type ReferenceItem,
  type ReferenceLists,
} from '../shared/default-choices';
import { SETTING_FIELD_LABELS } from '../shared/settings';
import type { XeroEndpoints } from './xero/endpoints';
import type { ServerConfig } from './config/env';

export const DEMO_CLIENT_ID = 'ledgerlink-demo';

/** Xero's redirect URIs for this app: one for connecting organisations, one for Sign in with Xero. */
export function redirectUris(appUrl: string): { connect: string; signin: string } {
  return { connect: `${appUrl}/api/xero/callback`, signin: `${appUrl}/api/auth/xero/callback` };
}

/**
 * Demo mode: start the built-in Xero sandbox on loopback and register this app with it. The server's Xero
 * client then talks to it exactly as it would to Xero; only the base URLs differ.
 */
export async function startDemoSandbox(config: ServerConfig) {
  const { startSandbox } = await import('../sandbox/sandbox');
  const clientSecret = crypto.randomBytes(24).toString('base64url');
  const uris = redirectUris(config.appUrl);
  // Accept the loopback spellings of the app's address too, as a developer may open either.
  const alternates = [config.appUrl, `http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`];
  const redirects = [...new Set(alternates.flatMap((origin) => Object.values(redirectUris(origin))))];
  // One webhook key for both ends, new at each start: the sandbox signs its webhooks with it and the app
  // checks them (docs/decisions/018-webhooks.md). The subscription starts once the app listens
  // (startWebhooks), so a start that cannot listen sends nothing to whatever holds the port.
  const webhookKey = crypto.randomBytes(32).toString('base64');
  const sandbox = await startSandbox({
    host: '127.0.0.1',
    port: config.sandbox.port,
    dataDir: path.join(config.dataDir, 'sandbox'),
    seed: config.sandbox.seed,
    scale: config.sandbox.scale,
    practiceClients: config.sandbox.clients,
    clients: [
      { clientId: DEMO_CLIENT_ID, clientSecret, redirectUris: [uris.connect, uris.signin, ...redirects] },
    ],
  });
  const endpoints: XeroEndpoints = {
    issuer: sandbox.url,
    apiUrl: sandbox.url,
    clientId: DEMO_CLIENT_ID,
    clientSecret,
    scopes: config.xero.scopes,
    allowInsecureRequests: true,
    webhookKey,
  };
  const startWebhooks = () =>
    sandbox.setWebhooks({ url: `${config.appUrl}/api/xero/webhooks`, key: webhookKey });
  return { url: sandbox.url, endpoints, close: () => sandbox.close(), sandbox, startWebhooks };
}

/**
 * Where demo mode's first start got to, under DATA_DIR: `pending` (the demo administrator exists, the demo is
 * not prepared or its password was never shown), `connected` (organisations connected and features on, the
 * password not yet shown: the listen failed), `ready`. A data folder without the file is left alone.
 */
export const DEMO_SETUP_FILE = 'demo-setup.json';
export type DemoSetupState = 'pending' | 'connected' | 'ready';

export function readDemoSetup(
  dataDir: string,
): { state: DemoSetupState; organizations: string[] } | undefined {
  try {
    const saved = JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_SETUP_FILE), 'utf8')) as {
      state?: unknown;
      organizations?: unknown;
    };
    const state = saved.state;
    if (state !== 'pending' && state !== 'connected' && state !== 'ready') return undefined;
    const organizations = Array.isArray(saved.organizations)
      ? saved.organizations.filter((o): o is string => typeof o === 'string')
      : [];
    return { state, organizations };
  } catch {
    return undefined;
  }
}

export function writeDemoSetup(
  dataDir: string,
  state: DemoSetupState,
  detail: Record<string, unknown> = {},
): void {
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(
    path.join(dataDir, DEMO_SETUP_FILE),
    JSON.stringify({ state, at: new Date().toISOString(), ...detail }),
  );
}

const FEATURE_FIELDS = [
  'featurePayInvoices',
  'featureAddInvoices',
  'featureCisBills',
  'featureStockJournal',
] as const;

/**
 * The Settings a person would choose for each demo organisation (issue 33), by the names the Settings selects
 * show, so every feature works on the first click: the shop sells over the counter to "Daily Sales" with
 * VAT-inclusive prices and moves stock weekly; the builder invoices its customers net of VAT and raises CIS
 * bills for the subcontractors of its CIS group. Each organisation is a plain Xero organisation to the app:
 * the ids come from the reference lists and are saved through PATCH /api/xero/settings, so the Settings rules
 * and the sandbox's Xero check them as they check a person's Save.
 */
export const DEMO_DEFAULTS: Record<
  string,
  {
    names: DefaultNames;
    taxStatus: TaxStatus;
    postingStatus: PostingStatus;
  }
> = {
  'Demo Shop Ltd': {
    names: {
      defaultCreditCardAccountId: 'Business Credit Card',
      defaultCashAccountId: 'Cash',
      defaultSalesAccountId: 'Sales',
      defaultVatRateId: '20% (VAT on Income)',
      defaultBillVatRateId: '20% (VAT on Expenses)',
      defaultBillAccountId: 'Cost of Goods Sold',
      defaultContactId: 'Daily Sales',
      defaultStockJournalContactId: 'Daily Sales',
      defaultStockJournalStockAccountId: 'Inventory',
      defaultStockJournalCostAccountId: 'Cost of Goods Sold',
    },
    taxStatus: 'Tax inclusive',
    postingStatus: 'draft',
  },
  'Demo Builders Ltd': {
    names: {
      defaultCreditCardAccountId: 'Business Credit Card',
      defaultCashAccountId: 'Cash',
      defaultSalesAccountId: 'Sales',
      defaultVatRateId: '20% (VAT on Income)',
      defaultBillVatRateId: '20% (VAT on Expenses)',
      defaultBillAccountId: 'Subcontractors',
      defaultContactId: 'Harbour Housing Association',
      defaultCisSubcontractorsGroupId: 'CIS Subcontractors',
      defaultStockJournalContactId: 'Harbour Housing Association',
      defaultStockJournalStockAccountId: 'Inventory',
      defaultStockJournalCostAccountId: 'Cost of Goods Sold',
    },
    taxStatus: 'Tax exclusive',
    postingStatus: 'draft',
  },
};

/**
 * The Settings of a practice's client organisation (SANDBOX_CLIENTS, issue 47), by its kind of business: a shop
 * as Demo Shop Ltd, a contractor as Demo Builders Ltd, a services firm with the common accounts alone.
 */
const CLIENT_DEFAULTS: Record<'shop' | 'contractor' | 'services', (typeof DEMO_DEFAULTS)[string]> = {
  shop: DEMO_DEFAULTS['Demo Shop Ltd']!,
  contractor: {
    names: {
      defaultCreditCardAccountId: 'Business Credit Card',
      defaultCashAccountId: 'Cash',
      defaultSalesAccountId: 'Sales',
      defaultVatRateId: '20% (VAT on Income)',
      defaultBillVatRateId: '20% (VAT on Expenses)',
      defaultBillAccountId: 'Subcontractors',
      defaultCisSubcontractorsGroupId: 'CIS Subcontractors',
    },
    taxStatus: 'Tax exclusive',
    postingStatus: 'draft',
  },
  services: {
    names: {
      defaultCreditCardAccountId: 'Business Credit Card',
      defaultCashAccountId: 'Cash',
      defaultSalesAccountId: 'Sales',
      defaultVatRateId: '20% (VAT on Income)',
      defaultBillVatRateId: '20% (VAT on Expenses)',
      defaultBillAccountId: 'General Expenses',
    },
    taxStatus: 'Tax exclusive',
    postingStatus: 'draft',
  },
};

type DemoCall = (
  method: 'GET' | 'POST' | 'PATCH',
  url: string,
  payload?: unknown,
) => Promise<LightMyRequestResponse>;

/**
 * Reads the reference lists the Settings screen offers for one organisation, picks the demo's names from
 * them and saves them as the Save button does. A name missing from its list, or a save the Settings rules
 * refuse, stops the preparation with the field named.
 */
async function chooseDemoDefaults(
  call: DemoCall,
  expectStatus: (step: string, res: LightMyRequestResponse, status: number) => void,
  org: { id: number; tenantName: string | null },
  choice: (typeof DEMO_DEFAULTS)[string],
): Promise<void> {
  const get = async <T>(path: string, query: Record<string, string> = {}): Promise<T> => {
    const params = new URLSearchParams({ org: String(org.id), ...query });
    const res = await call('GET', `${path}?${params.toString()}`);
    expectStatus(`reading ${path} of ${org.tenantName}`, res, 200);
    return JSON.parse(res.body) as T;
  };
  type Bank = { accountId: string; name: string };
  type Rate = ReferenceItem & { canApplyToRevenue?: boolean; canApplyToExpenses?: boolean };
  const bank = await get<{ creditCardAccounts: Bank[]; cashAccounts: Bank[] }>(
    '/api/xero/settings/bank-accounts',
  );
  const toItem = (a: Bank): ReferenceItem => ({ id: a.accountId, name: a.name });
  const rates = await get<Rate[]>('/api/xero/vat-rates');
  const names = choice.names;
  const contactsNamed = async (name: string | undefined) =>
    name ? get<ReferenceItem[]>('/api/xero/contacts', { search: name }) : [];
  const lists: ReferenceLists = {
    defaultCreditCardAccountId: bank.creditCardAccounts.map(toItem),
    defaultCashAccountId: bank.cashAccounts.map(toItem),
    defaultSalesAccountId: await get<ReferenceItem[]>('/api/xero/sales-accounts'),
    defaultBillAccountId: await get<ReferenceItem[]>('/api/xero/bill-accounts'),
    defaultStockJournalStockAccountId: await get<ReferenceItem[]>('/api/xero/asset-accounts'),
    defaultStockJournalCostAccountId: await get<ReferenceItem[]>('/api/xero/cost-accounts'),
    defaultVatRateId: rates.filter((r) => r.canApplyToRevenue !== false),
    defaultBillVatRateId: rates.filter((r) => r.canApplyToExpenses !== false),
    defaultCisSubcontractorsGroupId: await get<ReferenceItem[]>('/api/xero/contact-groups'),
    defaultContactId: await contactsNamed(names.defaultContactId),
    defaultStockJournalContactId: await contactsNamed(names.defaultStockJournalContactId),
  };
  const { ids, notFound } = chooseDefaultsByName(names, lists);
  if (notFound.length > 0) {
    const missing = notFound.map(
      (field: DefaultIdField) => `${SETTING_FIELD_LABELS[field]} "${names[field] ?? ''}"`,
    );
    throw new Error(`${org.tenantName} has no ${missing.join(', ')} to choose in Settings`);
  }
  expectStatus(
    `saving the Settings of ${org.tenantName}`,
    await call('PATCH', `/api/xero/settings?org=${org.id}`, {
      ...ids,
      defaultTaxStatus: choice.taxStatus,
      defaultStockJournalPostingStatus: choice.postingStatus,
    }),
    200,
  );
}

/**
 * Demo mode's first start: the demo administrator connects both sandbox organisations and switches every
 * feature on and chooses each organisation's Settings defaults (DEMO_DEFAULTS), through the app's own
 * routes exactly as a person would — sign in, GET /api/xero/connect, the sandbox's authorize endpoint
 * (auto-consent standing in for the consent page's clicks), the OAuth callback,
 * PATCH /api/admin/organizations/:id/features, the Settings reference lists and PATCH /api/xero/settings,
 * sign out. Nothing is written behind the app's back.
 * Throws with the step that failed; returns the organisations connected.
 */
export async function prepareDemo(options: {
  app: FastifyInstance;
  sandbox: Awaited<ReturnType<typeof startDemoSandbox>>;
  credentials: { username: string; password: string };
  appUrl: string;
  dataDir: string;
}): Promise<string[]> {
  const { app, sandbox, credentials, appUrl } = options;
  const cookies = new Map<string, string>();
  const call = async (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse> => {
    const res = await app.inject({
      method,
      url,
      headers: {
        origin: appUrl,
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    for (const cookie of res.cookies as Array<{ name: string; value: string }>)
      cookies.set(cookie.name, cookie.value);
    return res;
  };
  const expectStatus = (step: string, res: LightMyRequestResponse, status: number) => {
    if (res.statusCode !== status)
      throw new Error(`${step} answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
  };

  expectStatus('sign-in', await call('POST', '/api/login', credentials), 200);
  const owner =
    sandbox.sandbox.info().users.find((u) => u.tenantIds.length > 1) ?? sandbox.sandbox.info().users[0];
  if (!owner) throw new Error('the sandbox has no user');
  sandbox.sandbox.setAutoConsent({ email: owner.email, tenants: 'all' });
  try {
    const start = await call('GET', '/api/xero/connect');
    expectStatus('GET /api/xero/connect', start, 200);
    // The browser's trip through Xero's authorize endpoint: follow its redirects until it comes back to us.
    let location = (JSON.parse(start.body) as { url: string }).url;
    for (let hop = 0; hop < 5 && location.startsWith(sandbox.url); hop++) {
      const res = await fetch(location, { redirect: 'manual' });
      const next = res.headers.get('location');
      if (!next) throw new Error(`the sandbox's authorize page answered ${res.status} without a redirect`);
      location = new URL(next, location).toString();
    }
    const callback = new URL(location);
    if (callback.pathname !== '/api/xero/callback')
      throw new Error(`authorization ended at ${callback.pathname}`);
    const done = await call('GET', `${callback.pathname}${callback.search}`);
    const landed = String(done.headers.location ?? '');
    if (done.statusCode !== 302 || !landed.includes('connected=true'))
      throw new Error(`the Xero callback sent the user to ${landed || done.statusCode}`);
  } finally {
    sandbox.sandbox.setAutoConsent(null);
  }

  const listed = await call('GET', '/api/admin/organizations');
  expectStatus('GET /api/admin/organizations', listed, 200);
  const organizations = JSON.parse(listed.body) as Array<
    { id: number; tenantName: string | null } & Partial<Record<(typeof FEATURE_FIELDS)[number], boolean>>
  >;
  for (const org of organizations) {
    for (const field of FEATURE_FIELDS) {
      if (org[field]) continue;
      expectStatus(
        `switching ${field} on for ${org.tenantName}`,
        await call('PATCH', `/api/admin/organizations/${org.id}/features`, { [field]: true }),
        200,
      );
    }
  }
  const kinds = new Map(sandbox.sandbox.info().orgs.map((o) => [o.name, o.kind]));
  for (const org of organizations) {
    const kind = kinds.get(org.tenantName ?? '');
    const choice = DEMO_DEFAULTS[org.tenantName ?? ''] ?? (kind ? CLIENT_DEFAULTS[kind] : undefined);
    if (choice) await chooseDemoDefaults(call, expectStatus, org, choice);
  }
  // The first organisation of the seed (Demo Shop Ltd: invoices to pay) is the one the demo opens on.
  const first = organizations.find((o) => o.tenantName === sandbox.sandbox.info().orgs[0]?.name);
  if (first) {
    expectStatus(
      'choosing the active organisation',
      await call('POST', '/api/xero/set-active-organization', { organizationId: first.id }),
      200,
    );
  }
  await call('POST', '/api/logout');
  const names = organizations.map((o) => o.tenantName ?? `organisation ${o.id}`);
  writeDemoSetup(options.dataDir, 'connected', { organizations: names });
  return names;
}
