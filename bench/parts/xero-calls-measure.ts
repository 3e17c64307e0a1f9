/**
 * What part 1 (bench/parts/xero-calls.ts) measures, and how: one action's sample (Xero's calls and bytes counted
 * in the sandbox's call ledger, beside a naive integration's cost of the same flow), a row of the results, the
 * context of a run, and the naive cost of opening each screen.
 */
import type { Sandbox } from '../../src/sandbox/sandbox';
import type { OrgRec } from '../../src/sandbox/state';
import type { BankAccountsResponse } from '../../src/shared/pay-invoices';
import {
  countTenantCalls,
  HttpError,
  RouteMissingError,
  sandboxOrg,
  type ApiClient,
  type RunningApp,
  type UserOrganization,
} from '../lib/harness';
import { add, naiveCostsOf, NOTHING, times, type Cost } from '../lib/naive-cost';
import type { BenchOptions } from '../lib/options';
import type { Spread } from '../lib/stats';

export const SHOP = 'Demo Shop Ltd';
export const BUILDERS = 'Demo Builders Ltd';

export type ActionStatus = 'ok' | 'not-built' | 'failed';

/** One action of one run. */
export interface Sample {
  status: ActionStatus;
  calls: number;
  /** Bytes of Xero's answers (egress, as the sandbox counts it like Xero's egress report). */
  bytes: number;
  /**
   * The floor: bytes of Xero's answers to the writes (each the whole document; no lighter answer exists), plus,
   * for a row that must read (`floorReads`), the least Xero can send for what it reads.
   */
  floorBytes: number;
  naive: number;
  /** Bytes the naive client would download for the same flow (bench/lib/naive-cost.ts). */
  naiveBytes: number;
  ms: number;
  endpoints: Record<string, number>;
  /** Bytes of Xero's answers per endpoint. */
  endpointBytes: Record<string, number>;
  note: string;
  refreshes: number;
}

/** One row of the results table: an action over every run. */
export interface CallsRow {
  key: string;
  label: string;
  naiveModel: string;
  /** Whether the ≥5× goal applies (not to informational rows). */
  goal: boolean;
  /** What the floor is made of, when the row must read too (the write rows' floor is Xero's answers to the writes). */
  floorModel?: string;
  /** Whether the day's < 100 calls goal is this row's (issue 32 sets the first day's for webhooks live). */
  dayCallsGoal?: string;
  /** A goal for the row's calls set by an issue beside the ≥ 5× one, said after it. */
  callsGoalNote?: string;
  status: ActionStatus;
  calls: Spread | null;
  bytes: Spread | null;
  /** Xero's answers to the action's writes: the least Xero sends for it. */
  floorBytes: Spread | null;
  naive: Spread | null;
  naiveBytes: Spread | null;
  ms: Spread | null;
  ratio: Spread | null;
  /** Naive bytes ÷ ours. */
  bytesRatio: Spread | null;
  endpoints: Record<string, number>;
  /** Bytes of Xero's answers per endpoint, in the same run as `endpoints`. */
  endpointBytes: Record<string, number>;
  notes: string[];
}

/** Live updates (issue 18): Xero's webhooks in, open screens told; every figure over every run. */
export interface LiveUpdatesResult {
  callsPerBatch: Spread | null;
  refreshCalls: Spread | null;
  changeToScreenMs: Spread | null;
  screens: number;
  changesPerBatch: number;
  batches: number;
  timings: number;
  error: string | null;
}

export interface CallsResult {
  rows: CallsRow[];
  live?: LiveUpdatesResult;
  scale: number;
  outstanding: number;
  drafts: number;
  runs: number;
  seconds: number;
}

export interface Context {
  sandbox: Sandbox;
  client: ApiClient;
  running: RunningApp;
  shop: UserOrganization;
  builders: UserOrganization;
  today: string;
  options: BenchOptions;
  /** What the screens handed over from one step to the next (accounts, lists). */
  bank?: BankAccountsResponse;
}

const amountDue = (i: OrgRec['invoices'][number]) => i.total - i.amountPaid;
export const outstandingOf = (org: OrgRec) =>
  org.invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && amountDue(i) > 0).length;
export const draftsOf = (org: OrgRec) =>
  org.invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'DRAFT').length;

/** Naive cost of opening each screen once (lists at 100 a page, no cache, no If-Modified-Since), and its units. */
export function naiveScreens(ctx: Context) {
  const shop = naiveCostsOf(sandboxOrg(ctx.sandbox, SHOP));
  const builders = naiveCostsOf(sandboxOrg(ctx.sandbox, BUILDERS));
  const monthStart = `${ctx.today.slice(0, 8)}01`;
  return {
    shop,
    builders,
    organisations: shop.connections, // GET /connections
    payInvoices: add(shop.outstanding, shop.accounts), // outstanding invoices + Accounts (bank accounts)
    addInvoices: add(shop.drafts, shop.accounts), // drafts + Accounts (default cash account)
    stockJournal: add(shop.contacts, shop.salesOf('Daily Sales', monthStart, ctx.today), shop.manualJournals), // customers + the month's sales + ManualJournals
    settings: add(shop.accounts, shop.taxRates, shop.contactGroups, shop.contacts),
    cisBills: add(builders.accounts, builders.contacts, builders.cisSettingsOfGroup, builders.draftBills), // Accounts, Contacts, one CISSettings per subcontractor, draft bills
    /** 2 × (read invoice + PUT payment) + a read between + the list again. */
    payOne: add(times(3, shop.readInvoice), times(2, shop.putPayment), shop.outstanding),
  };
}

export async function measure(
  ctx: Context,
  tenantIds: string[],
  naive: () => Cost,
  action: () => Promise<string | void>,
  floorReads: () => Cost = () => NOTHING,
): Promise<Sample> {
  const naiveCost = naive();
  const readFloor = floorReads();
  ctx.sandbox.clearLedger();
  const started = performance.now();
  let status: ActionStatus = 'ok';
  let note = '';
  try {
    note = (await action()) ?? '';
  } catch (error) {
    if (error instanceof RouteMissingError) {
      status = 'not-built';
      note = `endpoint not built yet: ${error.route}`;
    } else {
      status = 'failed';
      note =
        error instanceof HttpError
          ? `${error.route} answered ${error.status}: ${error.body.slice(0, 160)}`
          : String(error instanceof Error ? error.message : error);
    }
  }
  const ms = performance.now() - started;
  const endpoints: Record<string, number> = {};
  const endpointBytes: Record<string, number> = {};
  let calls = 0;
  let bytes = 0;
  let floorBytes = 0;
  for (const tenantId of tenantIds) {
    const counted = countTenantCalls(ctx.sandbox, tenantId);
    calls += counted.total;
    bytes += counted.bytes;
    floorBytes += counted.writeBytes;
    for (const [k, v] of Object.entries(counted.byEndpoint)) endpoints[k] = (endpoints[k] ?? 0) + v;
    for (const [k, v] of Object.entries(counted.bytesByEndpoint))
      endpointBytes[k] = (endpointBytes[k] ?? 0) + v;
  }
  return {
    status,
    calls,
    bytes,
    floorBytes: floorBytes + readFloor.bytes,
    naive: naiveCost.calls,
    naiveBytes: naiveCost.bytes,
    ms,
    endpoints,
    endpointBytes,
    note,
    refreshes: ctx.sandbox.ledger().refreshCount,
  };
}
