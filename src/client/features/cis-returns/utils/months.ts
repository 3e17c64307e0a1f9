import { formatDateShort } from '@/shared/dates';

/** "6 Nov – 5 Dec 2026": a tax month in a list or a heading. */
export function describeRange(month: { start: string; end: string }): string {
  const [startDay, startMonth] = formatDateShort(month.start).split(' ');
  return `${startDay} ${startMonth} – ${formatDateShort(month.end)}`;
}

/** The return someone comes to the screen to file: the newest month that has ended, else the current one. */
export function pickDefaultPeriod(months: ReadonlyArray<{ period: string; state: string }>): string | null {
  return months.find((m) => m.state !== 'current')?.period ?? months[0]?.period ?? null;
}
