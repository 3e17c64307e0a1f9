/** The activity-log lines of filing with HMRC (issue 43), in words (src/server/modules/audit/describe.ts). */
import { getTaxMonth, parsePeriod } from '../../../shared/cis-returns';
import { formatMoney } from '../../../shared/money';
import { dateText, defineAuditActions, numberOf, recordOf, textOf } from '../audit/describe';

/** "the CIS return for 6 Dec 2025 – 5 Jan 2026" from a recorded period ('2026-01'). */
function returnText(period: string | null): string {
  if (!period || !parsePeriod(period)) return 'a CIS return';
  const month = getTaxMonth(period);
  return `the CIS return for ${dateText(month.start) ?? ''} – ${dateText(month.end) ?? ''}`;
}

/** HMRC's reasons as recorded ([{ message }]), joined; '' when none. */
function reasonsText(detail: Record<string, unknown>): string {
  const reasons = detail['reasons'];
  if (!Array.isArray(reasons)) return '';
  const messages = reasons
    .map((r) =>
      r !== null && typeof r === 'object' ? textOf(r as Record<string, unknown>, 'message') : null,
    )
    .filter((m): m is string => Boolean(m));
  return messages.length > 0 ? `: ${messages.join('; ')}` : '';
}

const TEST = (detail: Record<string, unknown>) =>
  detail['gatewayTest'] === true ? ' as a test submission' : '';

export const hmrcFilingAuditActions = defineAuditActions({
  'hmrc.return-sending': {
    describe: (line) => {
      const nil = line.detail['nil'] === true;
      const inactive = line.detail['inactive'] === true;
      const subs = numberOf(line.detail, 'subcontractors');
      const deducted = numberOf(line.detail, 'deductionAmount');
      const what = nil
        ? inactive
          ? 'a nil return with the scheme declared inactive'
          : 'a nil return'
        : `${subs ?? 'its'} subcontractor${subs === 1 ? '' : 's'}${deducted !== null ? `, ${formatMoney(Math.round(deducted * 100))} deducted` : ''}`;
      return `Sent ${returnText(textOf(line.detail, 'period') ?? line.target)} to HMRC${TEST(line.detail)} (${what})`;
    },
    example: {
      target: '2026-01',
      detail: {
        period: '2026-01',
        nil: false,
        inactive: false,
        subcontractors: 3,
        deductionAmount: 1423.71,
        gatewayTest: false,
      },
    },
  },
  'hmrc.return-accepted': {
    describe: (line) => {
      const receipt = recordOf(line.detail, 'receipt');
      // The IRmark itself is kept with the return (CIS Returns shows it); the log says a receipt came and when.
      const stamp = receipt ? textOf(receipt, 'timestamp') : null;
      const received = stamp ? dateText(stamp.slice(0, 10)) : null;
      const filed = line.detail['markedFiled'] === false ? ' (a test: the month stays to be filed)' : '';
      return `HMRC accepted ${returnText(textOf(line.detail, 'period') ?? line.target)}${receipt ? `, with its receipt${received ? ` of ${received}` : ''}` : ''}${filed}`;
    },
    example: {
      target: '2026-01',
      detail: {
        period: '2026-01',
        correlationId: 'A1B2C3',
        receipt: { irmark: 'tpwOaKfCHJDirqJn31ceHrX1XYc=', timestamp: '2026-01-14T09:00:00Z' },
        gatewayTest: false,
        markedFiled: true,
      },
    },
  },
  'hmrc.return-rejected': {
    describe: (line) =>
      `HMRC refused ${returnText(textOf(line.detail, 'period') ?? line.target)}${reasonsText(line.detail)}${line.detail['retryable'] === true ? ' (it can be sent again)' : ''}`,
    example: {
      target: '2026-01',
      detail: {
        period: '2026-01',
        reasons: [{ message: 'The UTR of R. Singh Tiling is not valid' }],
        retryable: false,
      },
    },
  },
  'hmrc.subcontractor-verified': {
    describe: (line) => {
      const name = textOf(line.detail, 'name') ?? 'a subcontractor';
      if (line.result === 'failure') return `Could not verify ${name} with HMRC${reasonsText(line.detail)}`;
      const rate = numberOf(line.detail, 'rate');
      const number = textOf(line.detail, 'verificationNumber');
      const matched = line.detail['matched'] === true;
      return `Verified ${name} with HMRC: ${matched ? 'matched' : 'not matched'}${rate !== null ? `, ${rate} % deduction` : ''}${number ? `, verification number ${number}` : ''}`;
    },
    example: {
      detail: {
        name: 'R. Singh Tiling',
        utr: '7100099999',
        matched: false,
        rate: 30,
        taxTreatment: 'unmatched',
        verificationNumber: 'V1234567890A',
      },
    },
  },
  'hmrc.credentials': {
    describe: (line) =>
      line.detail['change'] === 'removed'
        ? 'Removed the HMRC Government Gateway credentials'
        : `Saved the HMRC Government Gateway credentials${textOf(line.detail, 'userIdHint') ? ` (user ID ending ${textOf(line.detail, 'userIdHint')})` : ''}`,
    example: { detail: { change: 'saved', userIdHint: '…S01' } },
  },
  'hmrc.reminders': {
    describe: (line) =>
      line.detail['enabled'] === true
        ? `Turned on the CIS deadline reminders${textOf(line.detail, 'email') ? ` to ${textOf(line.detail, 'email')}` : ''}`
        : 'Turned off the CIS deadline reminders',
    example: { detail: { enabled: true, email: 'office@builders.example' } },
  },
  'hmrc.reminder': {
    describe: (line) => {
      const due = dateText(textOf(line.detail, 'dueDate'));
      return `Reminded ${textOf(line.detail, 'to') ?? 'the contractor'} that ${returnText(line.target)} is due${due ? ` on ${due}` : ''}`;
    },
    example: { target: '2026-01', detail: { to: 'office@builders.example', dueDate: '2026-01-19' } },
  },
});
