/** The activity-log lines of Add Invoices, in words (src/server/modules/audit/describe.ts). */
import {
  accountText,
  dateText,
  defineAuditActions,
  failureText,
  invoiceText,
  numberOf,
  poundsOf,
  textOf,
} from '../audit/describe';

export const addInvoicesAuditActions = defineAuditActions({
  'add-invoices.create': {
    describe: (line) => {
      const total = poundsOf(line.detail, 'totalPence');
      const date = dateText(textOf(line.detail, 'date'));
      const what = `${line.detail['approve'] === true ? 'an approved' : 'a draft'} invoice${total ? ` for ${total}` : ''}${date ? ` dated ${date}` : ''}`;
      if (line.result === 'failure') return `Could not create ${what}${failureText(line)}`;
      const known = invoiceText(line);
      return `Created ${what}${known === 'an invoice' ? '' : ` (${known.replace('invoice ', '')})`}`;
    },
    example: { detail: { date: '2026-03-02', totalPence: 24000, approve: true, writeId: 7, xeroId: null } },
  },
  'add-invoices.approve': {
    describe: (line) => {
      const total = poundsOf(line.detail, 'totalPence');
      if (line.result === 'failure') return `Approving ${invoiceText(line)} failed${failureText(line)}`;
      return `Approved ${invoiceText(line)}${total ? ` (${total})` : ''}`;
    },
    example: { detail: { invoiceNumber: 'INV-0107', totalPence: 24000 } },
  },
  'add-invoices.cash-payment': {
    describe: (line, names) => {
      const amount = poundsOf(line.detail, 'amountPence') ?? 'cash';
      const pending = numberOf(line.detail, 'fromPendingPence') ?? 0;
      const into = accountText(names, line.detail['accountId']);
      if (line.result === 'failure')
        return `Cash payment of ${amount} on ${invoiceText(line)} not made${failureText(line)}`;
      return `Paid ${amount} cash into ${into} on ${invoiceText(line)}${pending > 0 ? ` (${poundsOf(line.detail, 'fromPendingPence')} of it had been kept pending)` : ''}`;
    },
    example: {
      detail: {
        invoiceNumber: 'INV-0107',
        amountPence: 2550,
        fromPendingPence: 2550,
        accountId: '2f3e4d5c-6b7a-4890-a1b2-c3d4e5f60718',
      },
    },
  },
  'add-invoices.cash-pending': {
    describe: (line) => {
      const amount = poundsOf(line.detail, 'amountPence') ?? 'cash';
      if (line.result === 'failure') return `Keeping ${amount} cash pending failed${failureText(line)}`;
      return `Kept ${amount} cash pending on draft ${invoiceText(line)}: it is paid into the cash account when the invoice is approved`;
    },
    example: { detail: { invoiceNumber: 'INV-0108', amountPence: 2550, pendingBeforePence: 0 } },
  },
});
