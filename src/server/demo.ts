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
import { prepareHmrcDemo, type DemoHmrcSandbox } from './hmrc-demo';
import { DEMO_SCHEME, sameName, seedRegister } from '../sandbox/hmrc/register';

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
 * The CIS settings a careful contractor would have chosen in Demo Builders Ltd (issue 42): deductions booked to
 * its ordinary CIS Deductions Payable account (Xero's API refuses the CIS Liability system account on a bill
 * line) and materials on Materials. The reverse charge stays off: the demo shows the VAT its subcontractors
 * charge. Saved through PUT /api/xero/cis/settings, which checks them as it checks a person's Save.
 */
export const DEMO_CIS_SETTINGS: Record<
  string,
  { deductionAccountCode: string; materialsAccountCodes: string[] }
> = {
  'Demo Builders Ltd': { deductionAccountCode: '814', materialsAccountCodes: ['322'] },
};

/**
 * The references a careful contractor keeps (issue 42 item 6): the firm's UTR, employer reference and accounts
 * office reference as HMRC gave them. Made up for the demo in HMRC's formats (CISR12160); they belong to no one.
 * They are the ones the built-in HMRC sandbox enrols (src/sandbox/hmrc/register.ts), so a demo return sent to it
 * is accepted (issue 43).
 */
export const DEMO_CIS_REFERENCES: Record<
  string,
  { utr: string; employerReference: string; accountsOfficeReference: string }
> = {
  [DEMO_SCHEME.name]: {
    utr: DEMO_SCHEME.utr,
    employerReference: `${DEMO_SCHEME.taxOfficeNumber}/${DEMO_SCHEME.taxOfficeReference}`,
    accountsOfficeReference: DEMO_SCHEME.accountsOfficeReference,
  },
};

const DEMO_REGISTER = seedRegister();

/**
 * A subcontractor's UTR as HMRC's register (the built-in HMRC sandbox's) has it, so verifying them from the demo
 * matches; and, at 30 %, the verification number HMRC gave when it could not match them (CIS340 §3.8), as the
 * contractor noted it: made up from the name in HMRC's format, the same at every start (so a screenshot or a test
 * can name it). A name the register does not hold gets a UTR made up the same way.
 */
export function demoSubcontractorRefs(
  name: string,
  rate: number,
): { utr: string; verificationNumber: string | null } {
  const digits = (salt: string) =>
    [...crypto.createHash('sha256').update(`${salt}:${name}`).digest()]
      .slice(0, 10)
      .map((byte) => String(byte % 10))
      .join('');
  // A UTR never starts with 0 on HMRC's letters; neither do the demo's.
  const utr =
    DEMO_REGISTER.find((r) => sameName(r.name, name))?.utr ??
    `${(Number(digits('utr')[0]) % 9) + 1}${digits('utr').slice(1)}`;
  return { utr, verificationNumber: rate === 30 ? `V${digits('verification')}A` : null };
}

/** The day the demo contractor filed a month's return: a week after the month ended, never after today. */
function demoFiledOn(end: string, dueDate: string, today: string): string {
  const day = new Date(`${end}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 7);
  const onTime = day.toISOString().slice(0, 10);
  return [onTime, dueDate, today].sort()[0] ?? today;
}

/** The day a return filed a few days late was filed: three days after its due date (a £100 penalty, CH62400). */
function demoLateFiledOn(dueDate: string, today: string): string {
  const day = new Date(`${dueDate}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 3);
  const late = day.toISOString().slice(0, 10);
  return late < today ? late : today;
}

/** How many months back the demo's one late return is: late enough to carry its £100, recent enough to see. */
export const DEMO_LATE_MONTHS_AGO = 6;

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
  method: 'GET' | 'POST' | 'PATCH' | 'PUT',
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
 * A careful contractor's CIS history in Demo Builders Ltd (issue 42 item 7), kept through the app's own routes as
 * a bookkeeper keeps it: the firm's references saved in Settings → CIS month-end; each CIS subcontractor's UTR
 * (and, at 30 %, verification number) kept in CIS Returns; every month whose return was due before today marked
 * filed a week after it ended, except one filed three days late that keeps its £100 penalty (the demo shows what
 * a late return costs). The month in progress, and a month ended whose return is not due yet, are left open.
 */
async function prepareDemoCisHistory(
  call: DemoCall,
  expectStatus: (step: string, res: LightMyRequestResponse, status: number) => void,
  org: { id: number; tenantName: string | null },
  references: (typeof DEMO_CIS_REFERENCES)[string],
  settings: (typeof DEMO_CIS_SETTINGS)[string],
): Promise<void> {
  const q = `org=${org.id}`;
  const read = async <T>(step: string, url: string): Promise<T> => {
    const res = await call('GET', url);
    expectStatus(step, res, 200);
    return JSON.parse(res.body) as T;
  };
  expectStatus(
    `saving the CIS references of ${org.tenantName}`,
    await call('PUT', `/api/xero/cis/settings?${q}`, { contractorName: null, ...references, ...settings }),
    200,
  );
  type Contact = { id: string; name: string; cisRate?: number | null; cisChecked?: boolean };
  let contacts = await read<Contact[]>(
    `reading the subcontractors of ${org.tenantName}`,
    `/api/xero/cis-contacts?${q}`,
  );
  const unchecked = contacts.filter((c) => c.cisChecked === false).map((c) => c.id);
  if (unchecked.length > 0) {
    expectStatus(
      `checking the subcontractors' CIS settings in ${org.tenantName}`,
      await call('POST', `/api/xero/cis-contacts/check?${q}`, { contactIds: unchecked }),
      200,
    );
    contacts = await read<Contact[]>(
      `reading the subcontractors of ${org.tenantName}`,
      `/api/xero/cis-contacts?${q}`,
    );
  }
  for (const contact of contacts) {
    // Only those Xero marks as CIS subcontractors: a scaffold hire firm outside the scheme has no return line.
    if (contact.cisRate === null || contact.cisRate === undefined) continue;
    expectStatus(
      `keeping the UTR of ${contact.name}`,
      await call(
        'PUT',
        `/api/xero/cis/subcontractors/${contact.id}?${q}`,
        demoSubcontractorRefs(contact.name, contact.cisRate),
      ),
      200,
    );
  }
  type Month = { period: string; end: string; dueDate: string; state: string };
  const { months, today } = await read<{ months: Month[]; today: string }>(
    `reading the CIS months of ${org.tenantName}`,
    `/api/xero/cis/months?${q}`,
  );
  const overdue = months
    .filter((m) => m.state === 'overdue')
    .sort((a, b) => a.period.localeCompare(b.period));
  const late = overdue.at(-DEMO_LATE_MONTHS_AGO);
  for (const month of overdue) {
    const filedOn =
      month === late && overdue.indexOf(month) > 0
        ? demoLateFiledOn(month.dueDate, today)
        : demoFiledOn(month.end, month.dueDate, today);
    expectStatus(
      `marking the CIS return of ${month.period} filed in ${org.tenantName}`,
      await call('POST', `/api/xero/cis/returns/${month.period}/filing?${q}`, { filedOn }),
      200,
    );
  }
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
  sandbox: Pick<Awaited<ReturnType<typeof startDemoSandbox>>, 'url'> & {
    sandbox: Pick<Awaited<ReturnType<typeof startDemoSandbox>>['sandbox'], 'info' | 'setAutoConsent'>;
  };
  credentials: { username: string; password: string };
  appUrl: string;
  dataDir: string;
  /** Demo mode's HMRC: Demo Builders Ltd is set up to file with it (issue 43). */
  hmrc?: DemoHmrcSandbox | undefined;
}): Promise<string[]> {
  const { app, sandbox, credentials, appUrl } = options;
  const cookies = new Map<string, string>();
  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'PUT',
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
    const cis = DEMO_CIS_SETTINGS[org.tenantName ?? ''];
    if (cis)
      expectStatus(
        `saving the CIS settings of ${org.tenantName}`,
        await call('PUT', `/api/xero/cis/settings?org=${org.id}`, {
          contractorName: null,
          utr: null,
          employerReference: null,
          accountsOfficeReference: null,
          ...cis,
        }),
        200,
      );
    const references = DEMO_CIS_REFERENCES[org.tenantName ?? ''];
    if (cis && references) await prepareDemoCisHistory(call, expectStatus, org, references, cis);
  }
  if (options.hmrc) await prepareHmrcDemo({ call, expectStatus, organizations, hmrc: options.hmrc });
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
