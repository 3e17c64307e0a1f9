/** The activity-log lines of Pay Invoices, in words (src/server/modules/audit/describe.ts). */
import {
  accountText,
  defineAuditActions,
  failureText,
  invoiceText,
  poundsOf,
  textOf,
} from '../audit/describe';

export const payInvoicesAuditActions = defineAuditActions({
  'payment.create': {
    describe: (line, names) => {
      const amount = poundsOf(line.detail, 'amountPence') ?? 'a payment';
      const account = accountText(names, line.detail['accountId'], textOf(line.detail, 'accountName'));
      const card = line.detail['isCard'] === true;
      if (line.result === 'failure')
        return `Payment of ${amount} on ${invoiceText(line)} not made${failureText(line)}`;
      return card
        ? `Paid ${amount} on ${invoiceText(line)} with ${account}`
        : `Paid ${amount} on ${invoiceText(line)} from ${account}`;
    },
    example: {
      target: '0b7d1c52-3f0e-4c57-9a43-62f0d3a1b9c4',
      detail: {
        invoiceNumber: 'INV-0042',
        amountPence: 12000,
        accountId: '5a1f4c3e-7b2d-4e8a-9c6f-1d0e2b3a4c5d',
        accountName: 'Business Credit Card',
        isCard: true,
        writeId: 31,
        xeroId: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
      },
    },
  },
  'payment.undo': {
    describe: (line) => {
      const amount = poundsOf(line.detail, 'amountPence');
      if (line.result === 'failure')
        return `Undo of the ${amount ?? ''} payment on ${invoiceText(line)} not done${failureText(line)}`.replace(
          'the  payment',
          'the payment',
        );
      return `Undid the ${amount ? `${amount} ` : ''}payment on ${invoiceText(line)} (deleted in Xero)`;
    },
    example: {
      detail: {
        paymentId: '3c2b1a0f-9e8d-4c7b-8a69-5f4e3d2c1b0a',
        invoiceNumber: 'INV-0042',
        amountPence: 12000,
      },
    },
  },
});
