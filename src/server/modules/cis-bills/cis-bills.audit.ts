/** The activity-log lines of CIS Bills, in words (src/server/modules/audit/describe.ts). */
import {
  accountText,
  dateText,
  defineAuditActions,
  failureText,
  isXeroId,
  poundsOf,
  textOf,
  type AuditLineFacts,
  type AuditNames,
} from '../audit/describe';

/** "bill 3327 for Hughes Groundworks Ltd": its reference (or number) and subcontractor, as far as known. */
function billText(line: AuditLineFacts, names: AuditNames): string {
  const reference = textOf(line.detail, 'reference') ?? line.targetLabel;
  const who = names.contact(line.detail['contactId']);
  const bill = reference && !isXeroId(reference) ? `bill ${reference}` : 'a bill';
  return who ? `${bill} for ${who}` : bill;
}

export const cisBillsAuditActions = defineAuditActions({
  'bill.create': {
    describe: (line, names) => {
      const amount = poundsOf(line.detail, 'amountPence');
      const date = dateText(textOf(line.detail, 'date'));
      const status = textOf(line.detail, 'status')?.toUpperCase() === 'AUTHORISED' ? 'approved' : 'draft';
      if (line.result === 'failure') return `Creating ${billText(line, names)} failed${failureText(line)}`;
      return `Created ${status} ${billText(line, names)}${amount ? `: ${amount} gross` : ''}${date ? `, dated ${date}` : ''}`;
    },
    example: {
      target: '3327',
      detail: {
        contactId: '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d',
        reference: '3327',
        date: '2026-11-20',
        status: 'DRAFT',
        amountPence: 100000,
      },
    },
  },
  'bill.update': {
    describe: (line, names) => {
      const before = poundsOf(line.detail, 'before');
      const after = poundsOf(line.detail, 'after');
      if (line.result === 'failure') return `Changing ${billText(line, names)} failed${failureText(line)}`;
      return `Changed the amount of ${billText(line, names)}${before && after ? ` from ${before} to ${after}` : ''}`;
    },
    example: { detail: { before: 100000, after: 120000 } },
  },
  'bill.approve': {
    describe: (line, names) => {
      const amount = poundsOf(line.detail, 'amountPence');
      if (line.result === 'failure') return `Approving ${billText(line, names)} failed${failureText(line)}`;
      const coded =
        line.detail['codedLines'] === true
          ? `; lines without an account were coded to ${accountText(names, line.detail['defaultAccountId'])}`
          : '';
      return `Approved ${billText(line, names)}${amount ? ` (${amount})` : ''}${coded}`;
    },
    example: {
      detail: {
        amountPence: 100000,
        defaultAccountId: '8c1f2d3e-4b5a-4c6d-8e7f-901234567890',
        codedLines: true,
      },
    },
  },
  'bill.delete': {
    describe: (line, names) => {
      if (line.result === 'failure') return `Deleting ${billText(line, names)} refused${failureText(line)}`;
      const amount = poundsOf(line.detail, 'amountPence');
      return `Deleted draft ${billText(line, names)}${amount ? ` (${amount})` : ''} in Xero`;
    },
    example: {
      detail: { amountPence: 100000, contactId: '6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d', reference: '3327' },
    },
  },
});
