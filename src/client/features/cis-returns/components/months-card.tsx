import { AlertTriangle, CheckCircle2 } from 'lucide-react';
import { NIL_MARK_LABELS, type CisMonthSummary } from '@/shared/cis-returns';
import { formatDateShort } from '@/shared/dates';
import { formatPounds } from '@/shared/money';
import { Badge } from '@/client/components/ui/badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { describeRange } from '../utils/months';

/** The state of a month as badges: in progress, due, overdue with its penalty, filed (late, changed since). */
export function MonthBadges({ month }: { month: CisMonthSummary }) {
  if (month.state === 'filed' && month.filing)
    return (
      <span className="flex flex-wrap justify-end gap-1">
        <Badge variant="success">
          <CheckCircle2 aria-hidden className="size-3" /> Filed {formatDateShort(month.filing.filedOn)}
        </Badge>
        {month.penaltyAmount > 0 ? (
          <Badge variant="destructive">Late · {formatPounds(month.penaltyAmount)} penalty</Badge>
        ) : null}
        {month.changedSinceFiling ? (
          <Badge variant="warning">
            <AlertTriangle aria-hidden className="size-3" /> Changed since filing
          </Badge>
        ) : null}
      </span>
    );
  if (month.state === 'current') return <Badge variant="secondary">In progress</Badge>;
  if (month.state === 'not-needed')
    return (
      <Badge variant="outline">
        {month.nilMark ? NIL_MARK_LABELS[month.nilMark.kind] : 'No return needed'}
      </Badge>
    );
  if (month.state === 'overdue')
    return (
      <Badge variant="destructive">
        Overdue{month.penaltyAmount > 0 ? ` · ${formatPounds(month.penaltyAmount)} penalty` : ''}
      </Badge>
    );
  return (
    <Badge variant="warning">
      {month.daysToDue === 0
        ? 'Due today'
        : `Due in ${month.daysToDue} day${month.daysToDue === 1 ? '' : 's'}`}
    </Badge>
  );
}

/** Every tax month since the first CIS payment, newest first; the one chosen is the return shown. */
export function MonthsCard({
  months,
  selected,
  onSelect,
  footer,
}: {
  months: CisMonthSummary[];
  selected: string;
  onSelect: (period: string) => void;
  footer?: React.ReactNode;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Tax months</CardTitle>
        <CardDescription>
          Every month since the first payment to a subcontractor, newest first. Each runs from the 6th to the
          5th.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 p-2 pt-0">
        <ul className="grid gap-1" aria-label="Tax months">
          {months.map((m) => (
            <li key={m.period}>
              <button
                type="button"
                aria-current={m.period === selected ? 'true' : undefined}
                data-period={m.period}
                onClick={() => onSelect(m.period)}
                className={`flex w-full flex-wrap items-center justify-between gap-2 rounded-lg px-3 py-2 text-left text-sm hover:bg-muted/60 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring ${m.period === selected ? 'bg-accent text-accent-foreground' : ''}`}
              >
                <span className="min-w-0">
                  <span className="block font-medium">{describeRange(m)}</span>
                  <span className="block text-xs text-muted-foreground">
                    {m.nil
                      ? 'Nil: no payments'
                      : `${m.subcontractors} subcontractor${m.subcontractors === 1 ? '' : 's'} · ${formatPounds(m.deductionAmount)} deducted`}
                  </span>
                </span>
                <MonthBadges month={m} />
              </button>
            </li>
          ))}
        </ul>
        {footer}
      </CardContent>
    </Card>
  );
}
