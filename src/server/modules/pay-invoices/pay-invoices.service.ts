import { createPayInvoicesCore, type PayInvoicesDeps } from './pay-invoices.context';
import { createPaymentFinders } from './pay-invoices.finders';
import { createPaymentWrites } from './pay-invoices.payments';
import { createPayInvoicesReads } from './pay-invoices.reads';

export { FRESH_FROM_XERO_MS, type PayContext } from './pay-invoices.context';
export { toInvoiceDto, type AttachmentContent } from './pay-invoices.reads';

/**
 * Pay Invoices (docs/product/features.md §2–§9; docs/architecture.md §4): outstanding sales invoices from the
 * cache, single-invoice refresh, attachments streamed through the server, bank accounts, and payments that go
 * through the write ledger so a retried request never pays twice.
 *
 * Its parts, where a reader looks for each: pay-invoices.reads.ts (the list, one invoice, attachments, bank
 * accounts), pay-invoices.payments.ts (a payment, its Undo, "Send again"), pay-invoices.finders.ts (look-ups in
 * Xero and same-key replays), pay-invoices.context.ts (what they share).
 */
export function createPayInvoicesService(deps: PayInvoicesDeps) {
  const core = createPayInvoicesCore(deps);
  const finders = createPaymentFinders(deps, core);
  const { findPaymentInXero, findMarkedPaymentInXero, findPaymentDeletionInXero } = finders;
  return {
    findPaymentInXero,
    findMarkedPaymentInXero,
    findPaymentDeletionInXero,
    ...createPayInvoicesReads(deps, core),
    ...createPaymentWrites(deps, core, finders),
  };
}
export type PayInvoicesService = ReturnType<typeof createPayInvoicesService>;
