import { formatDateShort } from '@/shared/dates';

/** "6 Nov – 5 Dec 2026": a tax month in a list or a heading. */
export function describeRange(month: { start: string; end: string }): string {
  const [startDay, startMonth] = formatDateShort(month.start).split(' ');
  // Across a new year both years are given: "6 Dec 2025 – 5 Jan 2026" (issue 45 item 4).
  if (month.start.slice(0, 4) !== month.end.slice(0, 4))
    return `${formatDateShort(month.start)} – ${formatDateShort(month.end)}`;
  return `${startDay} ${startMonth} – ${formatDateShort(month.end)}`;
}

/** The return someone comes to the screen to file: the newest month that has ended, else the current one. */
export function pickDefaultPeriod(months: ReadonlyArray<{ period: string; state: string }>): string | null {
  return months.find((m) => m.state !== 'current')?.period ?? months[0]?.period ?? null;
}
