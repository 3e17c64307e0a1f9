/** The activity-log lines of Stock Journal, in words (src/server/modules/audit/describe.ts). */
import {
  dateText,
  defineAuditActions,
  failureText,
  formatCount,
  numberOf,
  poundsOf,
  textOf,
} from '../audit/describe';

/** "1 Dec – 7 Dec 2026" from a recorded period key ('2026-12-01_2026-12-07'). */
function periodText(key: string | null): string | null {
  const [start, end] = (key ?? '').split('_');
  if (!start || !end) return null;
  const from = dateText(start);
  const to = dateText(end);
  if (!from || !to) return null;
  return start.slice(0, 4) === end.slice(0, 4) ? `${from.replace(/ \d{4}$/, '')} – ${to}` : `${from} – ${to}`;
}

/** Xero's journal statuses in words. */
function statusText(status: string | null): string {
  switch ((status ?? '').toUpperCase()) {
    case 'POSTED':
      return 'posted';
    case 'DRAFT':
      return 'draft';
    case 'DELETED':
      return 'deleted';
    case 'VOIDED':
      return 'voided';
    case 'NONE':
      return 'none';
    default:
      return (status ?? 'unknown').toLowerCase();
  }
}

export const stockJournalAuditActions = defineAuditActions({
  'stock-journal.create': {
    describe: (line) => {
      const period = periodText(textOf(line.detail, 'period'));
      const cost = poundsOf(line.detail, 'amountPence');
      const net = poundsOf(line.detail, 'netPence');
      const margin = numberOf(line.detail, 'marginRate');
      const what = `the stock journal${period ? ` for ${period}` : ''}`;
      if (line.result === 'failure') return `Posting ${what} failed${failureText(line)}`;
      const figures =
        cost && net
          ? `: cost of sales ${cost} from net sales ${net}${margin ? ` at margin ${margin}` : ''}`
          : '';
      return `Sent ${what} to Xero as ${statusText(textOf(line.detail, 'status'))}${figures}`;
    },
    example: {
      target: 'Stock journal 1 Dec – 7 Dec 2026',
      detail: {
        period: '2026-12-01_2026-12-07',
        status: 'draft',
        netPence: 796308,
        amountPence: 589858,
        marginRate: 1.35,
        date: '2026-12-07',
      },
    },
  },
  'stock-journal.sync-status': {
    describe: (line) => {
      const changes = Array.isArray(line.detail['changes'])
        ? (line.detail['changes'] as Array<Record<string, unknown>>)
        : [];
      const each = changes
        .map((c) => {
          const period = periodText(typeof c['period'] === 'string' ? c['period'] : null);
          const to = statusText(typeof c['to'] === 'string' ? c['to'] : null);
          return period ? `${period} now ${to}` : null;
        })
        .filter((text): text is string => text !== null);
      return `Read ${formatCount(changes.length, 'journal change')} from Xero${each.length > 0 ? `: ${each.join('; ')}` : ''}`;
    },
    example: {
      target: '2 journals',
      detail: {
        changes: [
          {
            period: '2026-12-01_2026-12-07',
            from: 'DRAFT',
            to: 'POSTED',
            journalId: 'a1b2c3d4-0000-4000-8000-000000000001',
          },
          {
            period: '2026-12-08_2026-12-14',
            from: 'NONE',
            to: 'DRAFT',
            journalId: 'a1b2c3d4-0000-4000-8000-000000000002',
          },
        ],
      },
    },
  },
});
