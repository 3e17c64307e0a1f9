import { CalendarClock } from 'lucide-react';
import { formatDateMedium } from '@/shared/dates';
import { useCisDeadline } from '@/client/lib/hmrc';

/**
 * What is due and when (issue 43), on an organisation's card: the CIS return of the month that ended most
 * recently, due on the 19th, and whether it is filed; earlier months still not filed are counted.
 */
export function CisDeadlineItem({ orgId }: { orgId: number }) {
  const deadline = useCisDeadline(orgId);
  const d = deadline.data;
  if (!d) return null;
  const text =
    d.state === 'filed'
      ? `Return to ${formatDateMedium(d.end)} filed`
      : d.state === 'overdue'
        ? `Return to ${formatDateMedium(d.end)} overdue since ${formatDateMedium(d.returnDueDate)}`
        : `Return to ${formatDateMedium(d.end)} due ${formatDateMedium(d.returnDueDate)} (${d.daysToDue === 0 ? 'today' : `in ${d.daysToDue} day${d.daysToDue === 1 ? '' : 's'}`})`;
  return (
    <>
      <dt className="flex items-center gap-1.5 text-muted-foreground">
        <CalendarClock aria-hidden className="size-3.5" /> CIS
      </dt>
      <dd className={d.state === 'overdue' ? 'text-destructive' : undefined} data-cis-deadline={d.state}>
        {text}
        {d.overdueEarlier > 0
          ? ` · ${d.overdueEarlier} earlier month${d.overdueEarlier === 1 ? '' : 's'} not filed`
          : ''}
      </dd>
    </>
  );
}
