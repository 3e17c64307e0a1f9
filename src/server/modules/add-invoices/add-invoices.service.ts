import crypto from 'node:crypto';
import { createDraftApprovals } from './approve-drafts';
import { createCashWrites } from './cash';
import type { AddInvoicesDeps } from './context';
import { createNewInvoices } from './create-invoice';
import { createDraftReads } from './draft-reads';
import { createAddInvoicesWriteKinds } from './ledger-hooks';

export { describeCashFailure, describePendingCashChanged } from './cash';
export {
  MISSING_CASH_ACCOUNT_MESSAGE,
  NOT_A_DRAFT_MESSAGE,
  XERO_BATCH_SIZE,
  type AddInvoicesContext,
  type AddInvoicesDeps,
} from './context';

/**
 * Add Invoices (docs/product/features.md §2–§8, docs/architecture.md §4): draft sales invoices from the
 * cache, approval and cash payments in as few Xero calls as the API allows (one `POST /Invoices` for up to 50
 * approvals, one `PUT /Payments` for up to 50 payments), every item recorded in the write ledger, and new
 * invoices on the organisation's defaults. "Cash amount" is a payment to the default cash account; on a draft
 * not approved yet it is kept here as pending and paid when the draft is approved through Ledgerlink.
 *
 * The parts, where a reader looks for them: `draft-reads.ts` (the drafts, unfinished changes, New Invoice
 * defaults), `approve-drafts.ts` (Process one row / Process All: each row's intent, batched approvals),
 * `cash.ts` (cash payments and pending cash), `create-invoice.ts` (a new invoice with its cash),
 * `ledger-hooks.ts` (finders, step runners, confirm hooks and the held approval's retry), and `context.ts`
 * and `batch-write.ts` under them.
 */
export function createAddInvoicesService(deps: AddInvoicesDeps) {
  const cash = createCashWrites(deps);
  return {
    /**
     * How the ledger settles Add Invoices' writes and sends their intents' steps: registered by the wiring site
     * (src/server/wiring.ts).
     */
    ...createAddInvoicesWriteKinds(deps),
    ...createDraftReads(deps),
    ...createDraftApprovals(deps, cash),
    ...createNewInvoices(deps, cash),
  };
}
export type AddInvoicesService = ReturnType<typeof createAddInvoicesService>;

/** A fresh key for an action the browser sent without one. */
export function createActionKey(): string {
  return crypto.randomUUID();
}
