import { formatDateShort } from '@/shared/dates';
import {
  getJournalAmount,
  getJournalState,
  isSplitPeriod,
  splitSalesPeriod,
  type JournalPeriod,
  type JournalState,
  type SalesPeriod,
  type StockJournalEntry,
} from '@/shared/stock-journal';
import { getJournalStatusBadge, getSplitPeriodBadge } from './messages';

export type BadgeTone = 'neutral' | 'amber' | 'green' | 'red' | 'partial';

/** One journal period of a week (the week itself, or one half of a week split at a month end). */
export interface JournalPart {
  period: JournalPeriod;
  entry: StockJournalEntry | undefined;
  status: JournalState;
}

/**
 * A week as the list shows it: its parts, and the badge of docs/product/features.md §4 (combined for a split
 * week).
 */
export interface WeekRow {
  key: string;
  week: SalesPeriod;
  parts: JournalPart[];
  badge: { label: string; tone: BadgeTone };
}

const SPLIT_TONES: Record<ReturnType<typeof getSplitPeriodBadge>, BadgeTone> = {
  Posted: 'green',
  Draft: 'amber',
  Partial: 'partial',
  Unposted: 'neutral',
};

/**
 * Builds the rows of the weekly list from the sales periods and the journal entries (looked up by key,
 * docs/product/features.md §3).
 */
export function buildWeekRows(
  periods: readonly SalesPeriod[],
  entries: ReadonlyMap<string, StockJournalEntry>,
): WeekRow[] {
  return periods.map((week) => {
    const parts = splitSalesPeriod(week).map((period) => {
      const entry = entries.get(period.key);
      return { period, entry, status: getJournalState(entry) };
    });
    const badge = isSplitPeriod(week)
      ? (() => {
          const label = getSplitPeriodBadge(parts[0]?.entry, parts[1]?.entry);
          return { label, tone: SPLIT_TONES[label] };
        })()
      : getJournalStatusBadge(parts[0]?.status ?? 'none');
    return { key: `${week.weekStart}_${week.weekEnd}`, week, parts, badge };
  });
}

/** The amount of a part: the journal's own when one was posted, else net ÷ the margin rate on screen. */
export function getPartAmount(part: JournalPart, marginRate: number): number {
  if (part.entry?.amount !== undefined && part.entry.amount !== null && part.status !== 'none')
    return part.entry.amount;
  return getJournalAmount(part.period.netTotal, marginRate);
}

/** What the chart marks a week with. */
export type ChartStatus = 'posted' | 'draft' | 'partial' | 'unposted' | 'unclear';

export interface ChartPoint {
  key: string;
  label: string;
  range: string;
  net: number;
  cost: number;
  status: ChartStatus;
}

function getChartStatus(row: WeekRow): ChartStatus {
  const statuses = row.parts.map((p) => p.status);
  if (statuses.some((s) => s === 'unclear')) return 'unclear';
  if (statuses.every((s) => s === 'posted')) return 'posted';
  if (statuses.every((s) => s === 'posted' || s === 'draft')) return 'draft';
  if (statuses.some((s) => s !== 'none')) return 'partial';
  return 'unposted';
}

/** One point per week: net sales and cost of sales (journal amounts where posted, else as computed now). */
export function buildChartPoints(rows: readonly WeekRow[], marginRate: number): ChartPoint[] {
  return rows.map((row) => {
    const cost =
      Math.round(row.parts.reduce((sum, part) => sum + getPartAmount(part, marginRate) * 100, 0)) / 100;
    return {
      key: row.key,
      label: formatDateShort(row.week.weekStart).replace(/ \d{4}$/, ''),
      range: row.week.formattedRange,
      net: row.week.netTotal,
      cost,
      status: getChartStatus(row),
    };
  });
}

/** The margin rate typed in the filter, as a number (NaN when not a number). */
export function parseMarginRate(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}
