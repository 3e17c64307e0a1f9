/**
 * The soak's restarts (issue 44), apart from bench/soak.ts: what was in flight when an instance was killed, and
 * every list screen compared with Xero after each restart, read as a person's screen reads it (no refresh, no
 * webhook needed: the restarted instances must put their cache right themselves).
 */
import type pg from 'pg';
import type { Sandbox } from '../src/sandbox/sandbox';
import type { OrgRec } from '../src/sandbox/state';
import type { DraftInvoice } from '../src/shared/add-invoices';
import type { DraftBill } from '../src/shared/cis-bills';
import { roundPoundsToPence } from '../src/shared/money';
import type { Invoice } from '../src/shared/pay-invoices';
import type { ApiClient } from './lib/harness';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The soak's figures of this part. */
export const restartFigures = {
  /** Kills with a pending-cash write or a bill create open in the ledger at that moment. */
  killsWithPendingCash: 0,
  killsWithBillCreates: 0,
  /** Times every list was compared with Xero after a restart, and the rows compared. */
  comparisons: 0,
  rowsCompared: 0,
  /** Comparisons that found the ledger still busy after the wait (compared all the same). */
  unsettled: 0,
};

/**
 * Invoices and bills a person changed in Xero's own app (the soak's `personInXero`): without webhooks Ledgerlink
 * is told of those on the next refresh only (docs/decisions/018-webhooks.md), so they are left out of a
 * comparison made without one. Everything else Xero holds was written by Ledgerlink.
 */
export const changedInXeroByPerson = new Set<string>();

/** The people's requests on their way now, by what they do (counted around each request by the soak's `act`). */
const requestsInFlight = { pendingCash: 0, billCreates: 0 };

/** What a request does, as far as the kills are counted: saves pending cash, creates bills, or neither. */
function requestKind(url: string, body: unknown): keyof typeof requestsInFlight | null {
  if (url.startsWith('/api/xero/create-bill')) return 'billCreates';
  const b = (body ?? {}) as {
    invoices?: Array<{ approve?: boolean }>;
    approve?: boolean;
    cashAmount?: number;
  };
  if (url.startsWith('/api/xero/draft-invoices/update') && b.invoices?.some((i) => i.approve === false))
    return 'pendingCash';
  if (url.startsWith('/api/xero/draft-invoices/create') && b.approve === false && (b.cashAmount ?? 0) > 0)
    return 'pendingCash';
  return null;
}

/** Counts a request while it is on its way; answers what to call when its answer (or its failure) is in. */
export function trackRequest(url: string, body: unknown): () => void {
  const kind = requestKind(url, body);
  if (kind) requestsInFlight[kind] += 1;
  return () => {
    if (kind) requestsInFlight[kind] -= 1;
  };
}

/**
 * Before a kill: whether a request saving pending cash, or creating bills, is on its way, or such a write is open
 * in the ledger both instances share.
 */
export async function noteInFlight(db: pg.Client): Promise<void> {
  const rows = await db.query<{ kind: string }>(
    "select distinct kind from xero_writes where state in ('pending','sent','unknown')",
  );
  const kinds = new Set(rows.rows.map((r) => r.kind));
  if (kinds.has('cash.pending') || requestsInFlight.pendingCash > 0) restartFigures.killsWithPendingCash += 1;
  if (kinds.has('bill.create') || requestsInFlight.billCreates > 0) restartFigures.killsWithBillCreates += 1;
}

/**
 * A day to kill an instance while pending cash and bill creates are in flight: Xero answers `/Invoices` slowly
 * (bills, approvals and new invoices wait on it), and the kill lands in the first seconds of the day's writes.
 */
export const SLOW_INVOICES = { answerDelayMs: 2_500, pathPrefix: '/api.xro/2.0/Invoices' } as const;

/** Waits (bounded) until the ledger has nothing open and the cache has caught up with every settled write. */
async function waitForLedger(db: pg.Client): Promise<boolean> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const open = await db.query<{ n: string }>(
      "select count(*) as n from xero_writes where state in ('pending','sent','unknown') or views_due",
    );
    if (Number(open.rows[0]?.n ?? 0) === 0) return true;
    await sleep(1_000);
  }
  return false;
}

function orgOf(sandbox: Sandbox, name: string): OrgRec {
  const org = sandbox.state.orgs.find((o) => o.Name === name);
  if (!org) throw new Error(`${name} is not in the sandbox`);
  return org;
}

/**
 * After a restart: each list screen (Pay Invoices, Add Invoices' drafts, CIS Bills' drafts) read as a screen
 * reads it, without `?refresh=true`, against Xero's own records. A row missing, extra, or showing another amount
 * due or status is an untrue answer, named in `untrue`; those a person changed in Xero are left out. Answers how
 * many rows were compared.
 */
export async function compareListsWithXero(opts: {
  when: string;
  sandbox: Sandbox;
  db: pg.Client;
  shop: { name: string; tab: ApiClient };
  builders: { name: string; tab: ApiClient };
  untrue: string[];
}): Promise<number> {
  const { sandbox, shop, builders, untrue, when } = opts;
  if (!(await waitForLedger(opts.db))) restartFigures.unsettled += 1;
  restartFigures.comparisons += 1;
  let compared = 0;
  const skip = (id: string) => changedInXeroByPerson.has(id.toLowerCase());
  const differ = (what: string) => untrue.push(`${when}: ${what}`);

  // Pay Invoices: approved sales invoices with something left to pay.
  const paying = await shop.tab.send('GET', '/api/xero/invoices');
  if (paying.status === 200) {
    const listed = new Map(paying.json<Invoice[]>().map((i) => [i.invoiceId.toLowerCase(), i]));
    for (const inv of orgOf(sandbox, shop.name).invoices) {
      if (inv.Type !== 'ACCREC' || skip(inv.InvoiceID)) continue;
      const due = inv.total - inv.amountPaid;
      const open = inv.Status === 'AUTHORISED' && due > 0;
      const row = listed.get(inv.InvoiceID.toLowerCase());
      compared += 1;
      if (open && !row) differ(`Pay Invoices omits ${inv.InvoiceNumber} (${due}p due in Xero)`);
      else if (!open && row)
        differ(`Pay Invoices lists ${inv.InvoiceNumber}, ${inv.Status} with ${due}p due in Xero`);
      else if (row && roundPoundsToPence(row.amountDue) !== due)
        differ(
          `Pay Invoices shows ${inv.InvoiceNumber} with ${roundPoundsToPence(row.amountDue)}p due, Xero ${due}p`,
        );
    }
  } else differ(`Pay Invoices answered ${paying.status}`);

  // Add Invoices: draft sales invoices.
  const drafting = await shop.tab.send('GET', '/api/xero/draft-invoices');
  if (drafting.status === 200) {
    const listed = new Set(drafting.json<DraftInvoice[]>().map((d) => d.id.toLowerCase()));
    for (const inv of orgOf(sandbox, shop.name).invoices) {
      if (inv.Type !== 'ACCREC' || skip(inv.InvoiceID)) continue;
      const isDraft = inv.Status === 'DRAFT';
      compared += 1;
      if (isDraft !== listed.has(inv.InvoiceID.toLowerCase()))
        differ(
          `Add Invoices ${isDraft ? 'omits' : 'lists'} ${inv.InvoiceNumber || inv.InvoiceID}, ${inv.Status} in Xero`,
        );
    }
  } else differ(`Add Invoices answered ${drafting.status}`);

  // CIS Bills: draft bills.
  const billing = await builders.tab.send('GET', '/api/xero/draft-bills');
  if (billing.status === 200) {
    const listed = new Set(billing.json<DraftBill[]>().map((b) => b.invoiceID.toLowerCase()));
    for (const bill of orgOf(sandbox, builders.name).invoices) {
      if (bill.Type !== 'ACCPAY' || skip(bill.InvoiceID)) continue;
      const isDraft = bill.Status === 'DRAFT';
      compared += 1;
      if (isDraft !== listed.has(bill.InvoiceID.toLowerCase()))
        differ(
          `CIS Bills ${isDraft ? 'omits' : 'lists'} bill ${bill.InvoiceNumber || bill.InvoiceID}, ${bill.Status} in Xero`,
        );
    }
  } else differ(`CIS Bills answered ${billing.status}`);

  restartFigures.rowsCompared += compared;
  return compared;
}
