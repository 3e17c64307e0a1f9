/**
 * What the Add Invoices screen says beyond its validation (docs/product/features.md §2): the zero-amount
 * confirmation dialog. The rule that opens it (`needsZeroAmountConfirmation`) and the validation texts stay
 * in `@/shared/add-invoices`, where the server's 400 answers take theirs.
 */

/** The zero-amount confirmation dialog (docs/product/features.md §2), with the invoice number filled in. */
export function getZeroAmountConfirmation(invoiceNumber: string): {
  title: string;
  description: string;
  cancelLabel: string;
  confirmLabel: string;
} {
  return {
    title: 'Confirm Zero Amount Approval',
    description: `You're about to approve invoice ${invoiceNumber} with £0 cash amount. Are you sure you want to continue?`,
    cancelLabel: 'Cancel',
    confirmLabel: 'Approve with £0',
  };
}
