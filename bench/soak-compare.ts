/**
 * The soak's comparison at the end of the month (bench/soak.ts): with faults cleared and the ledger settled,
 * Xero's state (the sandbox's own records) against what every person was told, every screen's answer on every
 * instance, and the activity log. What it finds goes into the soak's problems (duplicates, lost writes, untrue
 * answers, untrue log lines).
 */
import type pg from 'pg';
import type { DraftInvoice } from '../src/shared/add-invoices';
import { fromPence, roundPoundsToPence } from '../src/shared/money';
import type { Invoice } from '../src/shared/pay-invoices';
import { getStockJournalReference } from '../src/shared/stock-journal';
import { actions, problems, type Action, type Told } from './soak-figures';
import { liveInstances } from './soak-instances';
import { tab } from './soak-people';
import { BUILDERS, SHOP, sleep } from './soak-settings';
import { orgOf, type World } from './soak-world';

export async function settle(db: pg.Client): Promise<number> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const open = await db.query<{ n: string }>(
      "select count(*) as n from xero_writes where state in ('pending','sent','unknown')",
    );
    const n = Number(open.rows[0]?.n ?? 0);
    if (n === 0 || Date.now() > deadline) return n;
    await sleep(2000);
  }
}

interface AuditRow {
  action: string;
  result: string;
  target: string | null;
  detail: Record<string, unknown> | null;
}

export async function compare(
  world: World,
  db: pg.Client,
  restoredWindow: { from: number; to: number } | null,
) {
  const sandboxWrites = world.sandbox.ledger().writes;
  const inRestoreWindow = (at: string) =>
    restoredWindow !== null && Date.parse(at) >= restoredWindow.from && Date.parse(at) <= restoredWindow.to;
  const shop = orgOf(world, SHOP);
  const builders = orgOf(world, BUILDERS);

  // Payments per invoice: what Xero holds from the API against what people were told.
  const apiPayments = new Map<string, number>();
  for (const w of sandboxWrites)
    if (w.kind === 'payment' && w.action === 'create' && w.tenantName === SHOP) {
      const payment = shop.payments.find((p) => p.PaymentID === w.id);
      if (payment) apiPayments.set(payment.InvoiceID, (apiPayments.get(payment.InvoiceID) ?? 0) + 1);
    }
  const byTarget = new Map<string, Action[]>();
  for (const a of actions) byTarget.set(a.target, [...(byTarget.get(a.target) ?? []), a]);
  /** What people did to a document, for a line that says it is untrue: who, what, and what they were told. */
  const describeActs = (target: string) =>
    (byTarget.get(target) ?? [])
      .map(
        (a) =>
          `${a.kind} by ${a.user} ${a.told} ${a.status}${a.afterBackup ? ' after the backup' : ''}${a.resent ? ' resent after the restore' : ''}`,
      )
      .join('; ') || 'nothing done here';
  const numberOf = (invoiceId: string) =>
    shop.invoices.find((i) => i.InvoiceID === invoiceId)?.InvoiceNumber ?? invoiceId;

  // New invoices: each action's total is its own, so Xero's copies are the API-created invoices with it.
  for (const key of new Set(actions.filter((a) => a.kind === 'new-invoice').map((a) => a.key))) {
    const acts = actions.filter((a) => a.key === key);
    const first = acts[0];
    if (!first) continue;
    const totalPence = Number(first.target.slice('new:'.length));
    const created = sandboxWrites.filter(
      (w) =>
        w.kind === 'invoice' &&
        w.action === 'create' &&
        w.tenantName === SHOP &&
        Math.round(Number(w.summary['total']) * 100) === totalPence,
    );
    const told = acts.filter((a) => a.told === 'success');
    const request = first.request as { approve: boolean };
    if (created.length > 1)
      problems.duplicates.push(
        `new invoice of £${fromPence(totalPence)}: ${created.length} invoices in Xero (${created.map((w) => String(w.summary['invoiceNumber'])).join(', ')}), one asked for`,
      );
    const made = created[0];
    if (!made) {
      if (told.length > 0)
        problems.lost.push(`new invoice of £${fromPence(totalPence)}: told created, not in Xero`);
      continue;
    }
    // Its cash is counted with the invoice's payments below, as one allowed payment.
    byTarget.set(made.id, [...(byTarget.get(made.id) ?? []), ...acts]);
    const invoice = shop.invoices.find((i) => i.InvoiceID === made.id);
    for (const a of told) {
      const answered = (() => {
        try {
          return (JSON.parse(a.answer) as { invoiceNumber?: string }).invoiceNumber;
        } catch {
          return undefined;
        }
      })();
      if (answered !== invoice?.InvoiceNumber)
        problems.untrueAnswers.push(
          `new invoice of £${fromPence(totalPence)}${a.resent ? ' resent after the restore' : ''}: told ${answered ?? 'no number'}, Xero made ${invoice?.InvoiceNumber ?? 'nothing'}`,
        );
    }
    if (told.length > 0 && request.approve && invoice?.Status === 'DRAFT')
      problems.lost.push(`new invoice ${invoice.InvoiceNumber}: told approved, a draft in Xero`);
    if (told.length > 0 && request.approve && (first.amountPence ?? 0) > 0 && !apiPayments.has(made.id))
      problems.lost.push(
        `new invoice ${invoice?.InvoiceNumber ?? made.id}: created with cash, no cash payment in Xero`,
      );
  }

  for (const [invoiceId, xero] of apiPayments) {
    const acts = byTarget.get(invoiceId) ?? [];
    const payments = acts.filter((a) => a.kind === 'payment');
    const approvals = acts.filter(
      (a) => a.kind === 'approve' || a.kind === 'pending-cash' || a.kind === 'new-invoice',
    );
    // One person's action is one key, however often it was sent (a resend after the restore included).
    const keys = (told: Told) => new Set(payments.filter((a) => a.told === told).map((a) => a.key));
    const successKeys = keys('success');
    const success = successKeys.size;
    const doubt = [...keys('in-doubt')].filter((k) => !successKeys.has(k)).length;
    // A draft (or a new invoice) gets at most one cash payment, whoever approved it and whatever was pending.
    const cashAllowed = approvals.some((a) => a.told !== 'refused') ? 1 : 0;
    const allowed = success + doubt + cashAllowed;
    if (xero > allowed)
      problems.duplicates.push(
        `invoice ${numberOf(invoiceId)}: ${xero} API payments in Xero, at most ${allowed} asked for (${acts
          .map(
            (a) =>
              `${a.kind} by ${a.user} ${a.told}${a.afterBackup ? ' after the backup' : ''}${a.resent ? ' resent after the restore' : ''}`,
          )
          .join('; ')})`,
      );
  }
  for (const [target, acts] of byTarget) {
    const told = new Set(acts.filter((a) => a.kind === 'payment' && a.told === 'success').map((a) => a.key))
      .size;
    if (told > (apiPayments.get(target) ?? 0))
      problems.lost.push(
        `invoice ${target}: ${told} payments told success, ${apiPayments.get(target) ?? 0} in Xero`,
      );
    const approved = acts.filter((a) => a.kind === 'approve' && a.told === 'success');
    const invoice = shop.invoices.find((i) => i.InvoiceID === target);
    if (approved.length > 0 && invoice && invoice.Status === 'DRAFT')
      problems.lost.push(`draft ${invoice.InvoiceNumber}: told approved, still a draft in Xero`);
    if (
      approved.length > 0 &&
      invoice &&
      !apiPayments.has(target) &&
      approved.some((a) => (a.amountPence ?? 0) > 0)
    )
      problems.lost.push(`draft ${invoice.InvoiceNumber}: approved with cash, no cash payment in Xero`);
  }

  // Bills: each tag exactly once when told created; never twice (a resend after the restore included). A batch
  // answers per bill, so a bill is told created when its own row is (a batch of two with one refused is told
  // "1 created, 1 failed", and the refused one is not expected in Xero).
  for (const key of new Set(actions.filter((x) => x.kind === 'bills').map((a) => a.key))) {
    const acts = actions.filter((a) => a.key === key);
    const billIds = ((acts[0]?.request as { bills?: Array<{ id: string }> } | undefined)?.bills ?? []).map(
      (b) => b.id,
    );
    const toldCreated = (tagIndex: number) =>
      acts.some((a) => a.told === 'success' && billRowCreated(a.answer, billIds[tagIndex]));
    for (const [tagIndex, tag] of (acts[0]?.billTags ?? []).entries()) {
      const found = builders.invoices.filter(
        (i) => i.Type === 'ACCPAY' && i.lines.some((l) => l.Description.endsWith(tag)),
      );
      if (found.length > 1)
        problems.duplicates.push(
          `bill ${tag}: ${found.length} bills in Xero${acts.some((a) => a.resent) ? ' (resent after the restore)' : ''}`,
        );
      if (found.length === 0 && toldCreated(tagIndex))
        problems.lost.push(`bill ${tag}: told created, not in Xero`);
    }
  }

  // A resend after the restore is answered with the first outcome: told success again, with the same payment,
  // invoice, journal or count. (Pending cash is Ledgerlink's own record, which the restore took back: not
  // compared here; its cash is counted with the draft's payments above.)
  for (const again of actions.filter((a) => a.resent && a.kind !== 'pending-cash')) {
    const first = actions.find((a) => a.key === again.key && !a.resent);
    if (!first || first.told !== 'success') continue;
    const fields = (text: string) => {
      try {
        const body = JSON.parse(text) as Record<string, unknown>;
        return ['paymentId', 'invoiceNumber', 'journalId', 'processed', 'created'].flatMap((f) =>
          body[f] === undefined ? [] : [`${f} ${JSON.stringify(body[f])}`],
        );
      } catch {
        return [];
      }
    };
    const was = fields(first.answer).join(', ');
    const now = fields(again.answer).join(', ');
    if (again.told !== 'success' || was !== now)
      problems.untrueAnswers.push(
        `${again.kind} ${again.target} resent after the restore: told ${again.status} ${now || again.message.slice(0, 120)}; the first answer was ${was || 'success'}`,
      );
  }
  for (const a of actions.filter((x) => x.kind === 'bill-approve' && x.told === 'success')) {
    const bill = builders.invoices.find((i) => i.InvoiceID === a.target);
    if (bill && bill.Status === 'DRAFT')
      problems.lost.push(`bill ${a.target}: told approved, still DRAFT in Xero`);
  }
  // Journals: one per week, whoever posted it.
  for (const period of world.periodsPosted) {
    const [start = '', end = ''] = period.split('_');
    const reference = getStockJournalReference(start, end);
    const found = shop.journals.filter(
      (j) => j.Status !== 'DELETED' && j.Status !== 'VOIDED' && j.Narration.startsWith(reference),
    );
    const told = actions.filter((a) => a.kind === 'journal' && a.target === period && a.told === 'success');
    if (found.length > 1) problems.duplicates.push(`journal ${period}: ${found.length} journals in Xero`);
    if (found.length === 0 && told.length > 0)
      problems.lost.push(`journal ${period}: told posted, not in Xero`);
  }

  // Screens: every list a person opens, on every instance, against Xero.
  for (const instance of liveInstances(world.instances)) {
    const admin = tab(world.admin, SHOP).on(instance.server?.url ?? '');
    const screen = async <T>(url: string, client = admin): Promise<T[]> => {
      const res = await client.send('GET', url);
      if (res.status === 200) return res.json<T[]>();
      problems.untrueAnswers.push(
        `${instance.name} GET ${url} answered ${res.status}: ${res.text.slice(0, 120)}`,
      );
      return [];
    };
    const invoices = await screen<Invoice>('/api/xero/invoices?refresh=true');
    for (const inv of invoices) {
      const x = shop.invoices.find((i) => i.InvoiceID === inv.invoiceId);
      // The sandbox keeps amounts in pence.
      const due = x ? x.total - x.amountPaid : null;
      if (!x || x.Status !== 'AUTHORISED' || due !== roundPoundsToPence(inv.amountDue))
        problems.untrueAnswers.push(
          `${instance.name} Pay Invoices: ${inv.invoiceNumber} due £${inv.amountDue}, Xero ${x ? `${x.Status} £${fromPence(due ?? 0)}` : 'has no such invoice'}`,
        );
    }
    const drafts = await screen<DraftInvoice>('/api/xero/draft-invoices?refresh=true');
    for (const d of drafts) {
      const x = shop.invoices.find((i) => i.InvoiceID === d.id);
      if (!x || x.Status !== 'DRAFT')
        problems.untrueAnswers.push(
          `${instance.name} Add Invoices: ${d.invoiceNumber} listed as a draft, Xero ${x?.Status ?? 'none'}`,
        );
    }
    const builderTab = tab(world.admin, BUILDERS).on(instance.server?.url ?? '');
    const bills = await screen<{ invoiceID: string; reference: string }>(
      '/api/xero/draft-bills?refresh=true',
      builderTab,
    );
    for (const b of bills) {
      const x = builders.invoices.find((i) => i.InvoiceID === b.invoiceID);
      if (!x || x.Status !== 'DRAFT')
        problems.untrueAnswers.push(
          `${instance.name} CIS Bills: ${b.reference} (${b.invoiceID}) listed as a draft, Xero ${x?.Status ?? 'none'} (${describeActs(b.invoiceID)})`,
        );
    }
  }

  // The activity log: every success line names something Xero has; every API write Xero has is logged.
  const audit = await db.query<AuditRow>('select action, result, target, detail from audit_log');
  const ids = new Set<string>();
  const logged = new Set<string>();
  for (const org of [shop, builders]) {
    for (const i of org.invoices) ids.add(i.InvoiceID);
    for (const p of org.payments) ids.add(p.PaymentID);
    for (const j of org.journals) ids.add(j.ManualJournalID);
  }
  for (const row of audit.rows) {
    if (row.result !== 'success') continue;
    const xeroId = row.detail?.['xeroId'];
    if (typeof xeroId === 'string') {
      logged.add(xeroId);
      if (!ids.has(xeroId))
        problems.untrueLog.push(`${row.action} ${row.target ?? ''}: ${xeroId} is not in Xero`);
    }
    for (const value of Object.values(row.detail ?? {}))
      if (typeof value === 'string' && ids.has(value)) logged.add(value);
  }
  let lostWithRestore = 0;
  for (const w of sandboxWrites) {
    if (w.action !== 'create' && w.action !== 'approve' && w.action !== 'post') continue;
    if (logged.has(w.id)) continue;
    if (inRestoreWindow(w.at)) {
      lostWithRestore += 1;
      continue;
    }
    // Approvals are logged under the invoice id they approved, payments and creations under their own id.
    problems.untrueLog.push(
      `Xero ${w.kind} ${w.action} ${w.id} (${JSON.stringify(w.summary)}) has no activity-log line`,
    );
  }
  return { lostWithRestore, xeroWrites: sandboxWrites.length };
}

/** Whether a CIS Bills answer told this bill created: its own row ok (an answer without rows: the batch's word). */
export function billRowCreated(answer: string, billId: string | undefined): boolean {
  try {
    const body = JSON.parse(answer) as { results?: Array<{ id: string; ok: boolean }> };
    if (!Array.isArray(body.results)) return true;
    return body.results.some((r) => r.id === billId && r.ok);
  } catch {
    return true;
  }
}
