import type { WriteKindHandlers } from '../../ledger/index';
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
 * Xero and same-key replays, answered to the ledger as `writeKinds`), pay-invoices.context.ts (what they share).
 */
export function createPayInvoicesService(deps: PayInvoicesDeps) {
  const core = createPayInvoicesCore(deps);
  const finders = createPaymentFinders(deps, core);
  const writes = createPaymentWrites(deps, core, finders);
  /** How the ledger settles Pay Invoices' writes (registered by the wiring site, src/server/wiring.ts). */
  const writeKinds: WriteKindHandlers[] = [
    // A payment's lost answer is looked up in Xero instead of paying again; after a restore, a payment under
    // a key the database forgot is looked up by its mark. A held one Xero does not have can be sent again
    // by an administrator (issue 20).
    {
      kind: 'payment',
      find: finders.findPaymentInXero,
      afterRestore: finders.findMarkedPaymentInXero,
      retry: (row, by, key) => writes.retryHeldPayment(row, by, key),
    },
    { kind: 'payment.delete', find: finders.findPaymentDeletionInXero, afterRestore: 'find' },
  ];
  return {
    writeKinds,
    ...createPayInvoicesReads(deps, core),
    ...writes,
  };
}
export type PayInvoicesService = ReturnType<typeof createPayInvoicesService>;
