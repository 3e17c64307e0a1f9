/** The activity-log lines of CIS Returns, in words (src/server/modules/audit/describe.ts). */
import { getTaxMonth, NIL_MARK_LABELS, parsePeriod } from '../../../shared/cis-returns';
import { dateText, defineAuditActions, recordOf, textOf } from '../audit/describe';

/** How a nil month was marked, in the screen's words. */
const NIL_KINDS: Record<string, string> = NIL_MARK_LABELS;

/** "the CIS return for 6 Dec 2025 – 5 Jan 2026" from a recorded period ('2026-01'). */
function returnText(period: string | null): string {
  if (!period || !parsePeriod(period)) return 'a CIS return';
  const month = getTaxMonth(period);
  return `the CIS return for ${dateText(month.start) ?? ''} – ${dateText(month.end) ?? ''}`;
}

/** What each CIS setting is called on the screen. */
const SETTINGS: Record<string, string> = {
  contractorName: 'contractor name',
  utr: 'UTR',
  employerReference: 'employer reference',
  accountsOfficeReference: 'Accounts Office reference',
  materialsAccountCodes: 'materials accounts',
  deductionAccountCode: 'CIS deductions account',
  reverseCharge: 'domestic reverse charge',
};

/** "UTR and employer reference": the settings whose value differs between before and after. */
function changedSettings(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  return Object.keys(after)
    .filter((key) => JSON.stringify(before[key] ?? null) !== JSON.stringify(after[key] ?? null))
    .map((key) => SETTINGS[key] ?? key);
}

function join(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1) ?? ''}`;
}

export const cisReturnsAuditActions = defineAuditActions({
  'cis-returns.filed': {
    describe: (line) => {
      const filed = dateText(textOf(line.detail, 'filedOn'));
      const due = dateText(textOf(line.detail, 'dueDate'));
      const late = line.detail['late'] === true;
      return `Marked ${returnText(textOf(line.detail, 'period') ?? line.target)} as filed${filed ? ` on ${filed}` : ''}${late && due ? ` (late: it was due ${due})` : ''}`;
    },
    example: {
      target: '2026-01',
      detail: { period: '2026-01', filedOn: '2026-01-14', dueDate: '2026-01-19', late: false },
    },
  },
  'cis-returns.unfiled': {
    describe: (line) => {
      const filed = dateText(textOf(line.detail, 'filedOn'));
      const by = textOf(line.detail, 'filedBy');
      return `Took the filed mark off ${returnText(textOf(line.detail, 'period') ?? line.target)}${filed ? ` (marked filed on ${filed}${by ? ` by ${by}` : ''})` : ''}`;
    },
    example: { target: '2026-01', detail: { period: '2026-01', filedOn: '2026-01-14', filedBy: 'sam' } },
  },
  'cis-returns.settings': {
    describe: (line) => {
      const changed = changedSettings(
        recordOf(line.detail, 'before') ?? {},
        recordOf(line.detail, 'after') ?? {},
      );
      return changed.length > 0
        ? `Changed the CIS settings: ${join(changed)}`
        : 'Saved the CIS settings (nothing changed)';
    },
    example: {
      target: '2',
      detail: {
        before: { utr: '', employerReference: '', materialsAccountCodes: [] },
        after: { utr: '1234567890', employerReference: '123/AB45678', materialsAccountCodes: ['310'] },
      },
    },
  },
  'cis-returns.subcontractor': {
    describe: (line) => {
      const name = textOf(line.detail, 'name') ?? 'a subcontractor';
      const changed = changedSettings(
        recordOf(line.detail, 'before') ?? {},
        recordOf(line.detail, 'after') ?? {},
      ).map((k) => (k === 'verificationNumber' ? 'verification number' : k));
      return `Changed the CIS references of ${name}${changed.length > 0 ? `: ${join(changed)}` : ''}`;
    },
    example: {
      detail: {
        name: 'Hughes Groundworks Ltd',
        before: null,
        after: { utr: '1234567890', verificationNumber: 'V1234567890' },
      },
    },
  },
  'cis-returns.nil-marked': {
    describe: (line) => {
      const kind = textOf(line.detail, 'label') ?? NIL_KINDS[textOf(line.detail, 'kind') ?? ''] ?? 'nil';
      return `Marked ${returnText(textOf(line.detail, 'period') ?? line.target)} as a month without payments: ${kind}`;
    },
    example: {
      target: '2026-01',
      detail: { period: '2026-01', kind: 'inactive', label: 'Scheme inactive' },
    },
  },
  'cis-returns.nil-unmarked': {
    describe: (line) => {
      const kind = NIL_KINDS[textOf(line.detail, 'kind') ?? ''];
      const by = textOf(line.detail, 'markedBy');
      return `Took the nil-month mark${kind ? ` ‘${kind}’` : ''} off ${returnText(textOf(line.detail, 'period') ?? line.target)}${by ? ` (marked by ${by})` : ''}`;
    },
    example: { target: '2026-01', detail: { period: '2026-01', kind: 'told-in-advance', markedBy: 'sam' } },
  },
  'cis-returns.statement-emailed': {
    describe: (line) => {
      const name = textOf(line.detail, 'name') ?? 'a subcontractor';
      const to = textOf(line.detail, 'to');
      const via = textOf(line.detail, 'via') === 'outbox' ? ' (kept in the demo outbox)' : '';
      return `Emailed ${name}'s CIS statement for ${returnText(textOf(line.detail, 'period')).replace('the CIS return for ', '')}${to ? ` to ${to}` : ''}${via}`;
    },
    example: {
      detail: {
        period: '2026-01',
        name: 'Hughes Groundworks Ltd',
        to: 'accounts@hughes.example',
        via: 'smtp',
      },
    },
  },
});
