import { formatCount } from '@/shared/counts';
import { formatPounds } from '@/shared/money';
import type { TodayRow } from '@/shared/practice';
import { paths } from '@/client/config/paths';

/**
 * One figure of a Today row as the page shows it: its words, the screen it opens on that organisation (`?org=`,
 * which activates it there), and how loudly it speaks. Null `href`: nothing to open (the feature is not in use,
 * or Needs review for someone who is not an administrator).
 */
export interface Cell {
  key: 'invoices' | 'drafts' | 'bills' | 'cis' | 'stock' | 'review';
  label: string;
  text: string;
  /** A second, smaller line ("11 months overdue"), or null. */
  detail: string | null;
  /** Words for a screen reader where the text alone is terse ("3" → "3 drafts to approve"). */
  description: string;
  href: string | null;
  tone: 'none' | 'muted' | 'work' | 'warning' | 'danger' | 'done';
}

const NOT_IN_USE = '—';

function notInUse(key: Cell['key'], label: string): Cell {
  return {
    key,
    label,
    text: NOT_IN_USE,
    detail: null,
    description: `${label}: not in use`,
    href: null,
    tone: 'none',
  };
}

/** The answer's name of each figure. */
const FIGURE_OF: Record<Cell['key'], TodayRow['pending'][number] | null> = {
  invoices: 'invoicesAwaiting',
  drafts: 'draftInvoices',
  bills: 'draftBills',
  cis: 'cis',
  stock: 'stockJournalUnposted',
  review: null,
};

/** Every figure of a row, in the page's column order; one still being read says so. */
export function describeCells(row: TodayRow): Cell[] {
  return listCells(row).map((cell) => {
    const figure = FIGURE_OF[cell.key];
    if (!figure || !row.pending.includes(figure)) return cell;
    return {
      ...cell,
      text: 'Reading…',
      detail: null,
      description: `${cell.label}: still being read from Xero`,
      href: null,
      tone: 'muted',
    };
  });
}

function listCells(row: TodayRow): Cell[] {
  const org = row.organizationId;
  const cells: Cell[] = [];

  const invoices = row.invoicesAwaiting;
  if (!invoices) cells.push(notInUse('invoices', 'Invoices awaiting payment'));
  else {
    const soFar = !invoices.complete;
    const other =
      invoices.otherCurrencies > 0 ? ` (and ${invoices.otherCurrencies} in other currencies)` : '';
    cells.push({
      key: 'invoices',
      label: 'Invoices awaiting payment',
      text: `${invoices.count.toLocaleString('en-GB')} · ${formatPounds(invoices.amount)}`,
      detail: soFar
        ? `Read so far${invoices.total !== null ? `, of ${invoices.total.toLocaleString('en-GB')}` : ''}`
        : invoices.otherCurrencies > 0
          ? `+${invoices.otherCurrencies} in other currencies`
          : null,
      description: `${formatCount(invoices.count, 'invoice')} awaiting payment${soFar ? ' so far' : ''}, ${formatPounds(invoices.amount)} due${other}`,
      href: paths.invoices.getHref({ org }),
      tone: invoices.count > 0 ? 'work' : 'muted',
    });
  }

  const count = (
    key: Cell['key'],
    label: string,
    value: number | null,
    one: string,
    many: string,
    href: string,
  ): Cell =>
    value === null
      ? notInUse(key, label)
      : {
          key,
          label,
          text: value.toLocaleString('en-GB'),
          detail: null,
          description: formatCount(value, one, many),
          href,
          tone: value > 0 ? 'work' : 'muted',
        };

  cells.push(
    count(
      'drafts',
      'Drafts to approve',
      row.draftInvoices,
      'draft to approve',
      'drafts to approve',
      paths.addInvoices.getHref({ org }),
    ),
    count(
      'bills',
      'Draft CIS bills',
      row.draftBills,
      'draft CIS bill',
      'draft CIS bills',
      paths.cisInvoices.getHref({ org }),
    ),
  );

  const cis = row.cis;
  if (!cis) cells.push(notInUse('cis', 'CIS return'));
  else {
    const href = paths.cisReturns.getHref({ org, period: cis.period });
    const more = cis.overdueMonths > 1 ? `${cis.overdueMonths} months overdue` : null;
    const words: Record<typeof cis.state, { text: string; tone: Cell['tone'] }> = {
      overdue: {
        text: `Overdue${cis.penaltyAmount > 0 ? ` · ${formatPounds(cis.penaltyAmount)} penalty` : ''}`,
        tone: 'danger',
      },
      due: {
        text: cis.daysToDue <= 0 ? 'Due today' : `Due in ${formatCount(cis.daysToDue, 'day')}`,
        tone: 'warning',
      },
      filed: { text: 'Filed', tone: 'done' },
      current: { text: 'In progress', tone: 'muted' },
      'not-needed': { text: 'No return needed', tone: 'muted' },
    };
    const { text, tone } = words[cis.state];
    const detail = cis.state === 'overdue' ? more : null;
    cells.push({
      key: 'cis',
      label: 'CIS return',
      text,
      detail,
      description: `CIS return for the tax month ending ${cis.period}: ${text}${detail ? ` (${detail})` : ''}`,
      href,
      tone,
    });
  }

  const weeks = row.stockJournalWeeks;
  cells.push(
    row.stockJournalUnposted === null || !weeks
      ? notInUse('stock', 'Stock journal weeks not posted')
      : {
          key: 'stock',
          label: 'Stock journal weeks not posted',
          text: row.stockJournalUnposted.toLocaleString('en-GB'),
          detail: null,
          description: `${formatCount(row.stockJournalUnposted, 'week')} of stock journal not posted`,
          href: paths.stockJournal.getHref({
            org,
            from: weeks.fromDate,
            to: weeks.toDate,
            status: 'unposted',
          }),
          tone: row.stockJournalUnposted > 0 ? 'work' : 'muted',
        },
  );

  cells.push({
    key: 'review',
    label: 'Writes in Needs review',
    text: row.needsReview.toLocaleString('en-GB'),
    detail: null,
    description: `${formatCount(row.needsReview, 'write')} in Needs review`,
    href: row.canReview ? paths.settings.getHref(org, 'review') : null,
    tone: row.needsReview > 0 ? 'danger' : 'muted',
  });
  return cells;
}

/** The connection column: connected (with live updates or not), reconnect, not connected. */
export function describeConnection(row: TodayRow): { text: string; detail: string; tone: Cell['tone'] } {
  const { state, liveUpdates } = row.connection;
  if (state === 'not-connected')
    return { text: 'Not connected', detail: 'Connect it from Organizations', tone: 'muted' };
  if (state === 'reconnect')
    return { text: 'Reconnect to Xero', detail: 'Xero refuses the connection', tone: 'danger' };
  if (liveUpdates?.state === 'fallback')
    return { text: 'Connected', detail: 'Live updates off: Xero is checked on refresh', tone: 'warning' };
  return { text: 'Connected', detail: 'Live updates on', tone: 'done' };
}

/** What the row's status says when its figures are not all in. */
export function describeStatus(row: TodayRow): string | null {
  switch (row.status) {
    case 'waiting':
      return 'Waiting to be read from Xero';
    case 'reading':
      return 'Reading from Xero…';
    case 'failed':
      return row.message ?? 'Could not be read from Xero';
    default:
      return null;
  }
}
