import { useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, CheckCircle2, Download, FileText, Pencil, RefreshCw, Undo2 } from 'lucide-react';
import { useState } from 'react';
import { Link, useSearch } from 'wouter';
import {
  getPenaltySchedule,
  type CisMonthSummary,
  type CisReturn,
  type CisReturnLine,
} from '@/shared/cis-returns';
import { formatDateMedium, formatDateShort } from '@/shared/dates';
import { formatPounds, toPence } from '@/shared/money';
import { paths } from '@/client/config/paths';
import { PageHeader } from '@/client/components/layouts/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { getMessage } from '@/client/lib/api-client';
import { useUser } from '@/client/lib/auth';
import { useConnection } from '@/client/lib/connection';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { toast } from '@/client/lib/toast';
import { useCisFiling } from '../api/filing';
import { getCisMonths, useCisMonths } from '../api/get-months';
import { cisDownloads, getCisReturn, useCisReturn } from '../api/get-return';
import { cisReturnsKeys } from '../api/query-keys';
import { useCisSettings } from '../api/settings';
import { SubcontractorRefsDialog } from './subcontractor-refs-dialog';

/** "6 Nov – 5 Dec 2026": a tax month in a list. */
function describeRange(month: { start: string; end: string }): string {
  const [startDay, startMonth] = formatDateShort(month.start).split(' ');
  return `${startDay} ${startMonth} – ${formatDateShort(month.end)}`;
}

/** The state of a month as a badge: in progress, due in N days, overdue with the penalty now, filed. */
function MonthBadge({ month }: { month: CisMonthSummary }) {
  if (month.state === 'filed' && month.filing)
    return (
      <Badge variant="success">
        <CheckCircle2 aria-hidden className="size-3" /> Filed {formatDateShort(month.filing.filedOn)}
      </Badge>
    );
  if (month.state === 'current') return <Badge variant="secondary">In progress</Badge>;
  if (month.state === 'overdue')
    return (
      <Badge variant="destructive">
        Overdue{month.penaltyAmount > 0 ? ` · ${formatPounds(month.penaltyAmount)} penalty` : ''}
      </Badge>
    );
  if (month.nil && !month.nilReturnRequired) return <Badge variant="outline">No return needed</Badge>;
  return (
    <Badge variant="warning">
      {month.daysToDue === 0
        ? 'Due today'
        : `Due in ${month.daysToDue} day${month.daysToDue === 1 ? '' : 's'}`}
    </Badge>
  );
}

function MonthsCard({
  months,
  selected,
  onSelect,
}: {
  months: CisMonthSummary[];
  selected: string;
  onSelect: (period: string) => void;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Tax months</CardTitle>
        <CardDescription>The last year, newest first. Each runs from the 6th to the 5th.</CardDescription>
      </CardHeader>
      <CardContent className="p-2 pt-0">
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
                <MonthBadge month={m} />
              </button>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

/** What the month's state means for the person filing it, in a sentence or two. */
function MonthNotice({
  ret,
  summary,
  today,
}: {
  ret: CisReturn;
  summary: CisMonthSummary | undefined;
  today: string;
}) {
  const due = formatDateMedium(ret.dueDate);
  if (ret.filing)
    return (
      <Alert variant="info">
        <CheckCircle2 aria-hidden />
        <div>
          <AlertTitle>Filed</AlertTitle>
          <AlertDescription>
            Marked as filed with HMRC on {formatDateMedium(ret.filing.filedOn)} by {ret.filing.filedBy}.
          </AlertDescription>
        </div>
      </Alert>
    );
  if (summary?.state === 'overdue') {
    const next = getPenaltySchedule(ret.dueDate, toPence(ret.totals.deductionAmount)).find(
      (step) => step.from > today,
    );
    return (
      <Alert variant="destructive">
        <AlertTriangle aria-hidden />
        <div>
          <AlertTitle>Overdue: the return was due on {due}</AlertTitle>
          <AlertDescription>
            HMRC's late-filing penalty for this return is now {formatPounds(summary.penaltyAmount)}.
            {next ? ` It rises by ${formatPounds(next.pence / 100)} on ${formatDateMedium(next.from)}.` : ''}
          </AlertDescription>
        </div>
      </Alert>
    );
  }
  if (ret.nil)
    return (
      <Alert variant={ret.nilReturnRequired ? 'warning' : 'default'}>
        <FileText aria-hidden />
        <div>
          <AlertTitle>No payments to subcontractors{ret.isCurrent ? ' so far' : ''} this month</AlertTitle>
          <AlertDescription>
            {ret.nilReturnRequired
              ? `A nil return is due by ${due}, unless HMRC was told in advance that no payments would be made.`
              : 'Tax months before 6 April 2026 needed no nil return.'}
          </AlertDescription>
        </div>
      </Alert>
    );
  if (ret.isCurrent)
    return (
      <Alert variant="info">
        <FileText aria-hidden />
        <div>
          <AlertTitle>This tax month ends on {formatDateMedium(ret.end)}</AlertTitle>
          <AlertDescription>
            The figures are what has been paid so far. The return is due by {due}.
          </AlertDescription>
        </div>
      </Alert>
    );
  return null;
}

/** Below `sm` the return's rows are cards (a phone cannot show eight columns). */
function LineCards({
  orgId,
  ret,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  const figure = (label: string, amount: number) => (
    <div>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="tabular-nums font-medium">{formatPounds(amount)}</dd>
    </div>
  );
  return (
    <ul className="grid gap-3" aria-label={`Payments to subcontractors, ${describeRange(ret)}`}>
      {ret.lines.map((line) => (
        <li
          key={line.contactId}
          data-contact-id={line.contactId}
          className="rounded-xl border border-border p-3"
        >
          <div className="flex items-start justify-between gap-2">
            <div className="min-w-0">
              <p className="font-medium">{line.name}</p>
              <p className="text-xs text-muted-foreground">
                UTR {line.utr ?? 'missing'}
                {line.rate === 30 ? ` · Verification ${line.verificationNumber ?? 'missing'}` : ''}
                {line.rate === null ? '' : ` · ${line.rate}%`}
              </p>
            </div>
            <Button
              size="sm"
              variant="ghost"
              aria-label={`Edit UTR and verification number of ${line.name}`}
              onClick={() => onEditRefs(line)}
            >
              <Pencil aria-hidden />
            </Button>
          </div>
          <dl className="mt-2 grid grid-cols-3 gap-2 text-sm">
            {figure('Gross paid', line.grossAmount)}
            {figure('Materials', line.materialsAmount)}
            {figure('Deducted', line.deductionAmount)}
          </dl>
          <Button asChild size="sm" variant="outline" className="mt-3">
            <a
              href={cisDownloads.statement(orgId, ret.period, line.contactId)}
              download
              aria-label={`Statement for ${line.name} (PDF)`}
            >
              <FileText aria-hidden /> Statement
            </a>
          </Button>
        </li>
      ))}
      <li className="rounded-xl bg-muted/40 p-3">
        <p className="font-semibold">Total</p>
        <dl className="mt-2 grid grid-cols-3 gap-2 text-sm">
          {figure('Gross paid', ret.totals.grossAmount)}
          {figure('Materials', ret.totals.materialsAmount)}
          {figure('Deducted', ret.totals.deductionAmount)}
        </dl>
      </li>
    </ul>
  );
}

function ReturnCard({
  orgId,
  ret,
  summary,
  today,
  isAdmin,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  summary: CisMonthSummary | undefined;
  today: string;
  isAdmin: boolean;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  const filing = useCisFiling(orgId);
  const narrow = useNarrowScreen();
  const canFile = !ret.isCurrent && !ret.filing && (!ret.nil || ret.nilReturnRequired);

  function markFiled() {
    filing.mark.mutate(
      { period: ret.period },
      {
        onSuccess: (f) =>
          toast({
            title: 'Return marked as filed',
            description: `${describeRange(ret)} filed on ${formatDateMedium(f.filedOn)} by ${f.filedBy}.`,
            variant: 'success',
          }),
        onError: (error) =>
          toast({
            title: 'Could not mark as filed',
            description: getMessage(error, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }

  function undoFiled() {
    filing.unmark.mutate(
      { period: ret.period },
      {
        onSuccess: () => toast({ title: 'Filed mark removed', description: describeRange(ret) }),
        onError: (error) =>
          toast({
            title: 'Could not undo',
            description: getMessage(error, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }

  return (
    <Card>
      <CardHeader className="gap-3">
        <div className="flex flex-col gap-1">
          <CardTitle>Monthly return (CIS300): {describeRange(ret)}</CardTitle>
          <CardDescription>
            Return due <strong>{formatDateMedium(ret.dueDate)}</strong> (the 19th, even at a weekend) ·
            statements to subcontractors by {formatDateMedium(ret.statementDueDate)} · deductions paid to HMRC
            by {formatDateMedium(ret.paymentDueDate)}
          </CardDescription>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button asChild size="sm" variant="outline">
            <a href={cisDownloads.csv(orgId, ret.period)} download>
              <Download aria-hidden /> CSV
            </a>
          </Button>
          {ret.nil ? null : (
            <Button asChild size="sm" variant="outline">
              <a href={cisDownloads.allStatements(orgId, ret.period)} download>
                <FileText aria-hidden /> All statements (PDF)
              </a>
            </Button>
          )}
          {canFile ? (
            <Button size="sm" onClick={markFiled} disabled={filing.mark.isPending}>
              {filing.mark.isPending ? <Spinner /> : <CheckCircle2 aria-hidden />}
              {ret.nil ? 'Mark nil return as filed' : 'Mark as filed'}
            </Button>
          ) : null}
          {ret.filing && isAdmin ? (
            <Button size="sm" variant="ghost" onClick={undoFiled} disabled={filing.unmark.isPending}>
              <Undo2 aria-hidden /> Undo filed
            </Button>
          ) : null}
        </div>
      </CardHeader>
      <CardContent className="grid gap-4">
        <MonthNotice ret={ret} summary={summary} today={today} />
        {ret.nil ? null : narrow ? (
          <LineCards orgId={orgId} ret={ret} onEditRefs={onEditRefs} />
        ) : (
          <Table aria-label={`Payments to subcontractors, ${describeRange(ret)}`}>
            <TableHeader>
              <TableRow>
                <TableHead>Subcontractor</TableHead>
                <TableHead>UTR</TableHead>
                <TableHead>Verification no.</TableHead>
                <TableHead className="text-right">Rate</TableHead>
                <TableHead className="text-right">Gross paid (excl. VAT)</TableHead>
                <TableHead className="text-right">Materials</TableHead>
                <TableHead className="text-right">Deducted</TableHead>
                <TableHead>
                  <span className="sr-only">Actions</span>
                </TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {ret.lines.map((line) => (
                <TableRow key={line.contactId} data-contact-id={line.contactId}>
                  <TableCell className="font-medium">{line.name}</TableCell>
                  <TableCell className="tabular-nums">
                    {line.utr ?? <span className="text-warning-foreground">Missing</span>}
                  </TableCell>
                  <TableCell className="tabular-nums">
                    {line.rate === 30 ? (
                      (line.verificationNumber ?? <span className="text-warning-foreground">Missing</span>)
                    ) : (
                      <span className="text-muted-foreground">Not needed</span>
                    )}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">
                    {line.rate === null ? '–' : `${line.rate}%`}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatPounds(line.grossAmount)}</TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatPounds(line.materialsAmount)}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatPounds(line.deductionAmount)}
                  </TableCell>
                  <TableCell>
                    <div className="flex justify-end gap-1">
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Edit UTR and verification number of ${line.name}`}
                        onClick={() => onEditRefs(line)}
                      >
                        <Pencil aria-hidden />
                      </Button>
                      <Button asChild size="sm" variant="ghost">
                        <a
                          href={cisDownloads.statement(orgId, ret.period, line.contactId)}
                          download
                          aria-label={`Statement for ${line.name} (PDF)`}
                          title="Statement (PDF)"
                        >
                          <FileText aria-hidden /> PDF
                        </a>
                      </Button>
                    </div>
                  </TableCell>
                </TableRow>
              ))}
              <TableRow className="bg-muted/40 font-semibold">
                <TableCell>Total</TableCell>
                <TableCell />
                <TableCell />
                <TableCell />
                <TableCell className="text-right tabular-nums">
                  {formatPounds(ret.totals.grossAmount)}
                </TableCell>
                <TableCell className="text-right tabular-nums">
                  {formatPounds(ret.totals.materialsAmount)}
                </TableCell>
                <TableCell className="text-right tabular-nums">
                  {formatPounds(ret.totals.deductionAmount)}
                </TableCell>
                <TableCell />
              </TableRow>
            </TableBody>
          </Table>
        )}
      </CardContent>
    </Card>
  );
}

function CisReturnsMain({ orgId, tenantName }: { orgId: number; tenantName: string | null }) {
  const queryClient = useQueryClient();
  const months = useCisMonths(orgId);
  const user = useUser();
  // A link may name the month (`?period=YYYY-MM`, the Today page's CIS return, issue 47).
  const linked = new URLSearchParams(useSearch()).get('period');
  const [chosen, setChosen] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [editing, setEditing] = useState<CisReturnLine | null>(null);
  // The newest month that has ended, else the current one: the return someone comes here to file.
  const list = months.data?.months ?? [];
  const fallback = list.find((m) => m.state !== 'current')?.period ?? list[0]?.period ?? null;
  const period = chosen ?? (linked && list.some((m) => m.period === linked) ? linked : null) ?? fallback;
  const ret = useCisReturn(orgId, period);
  const settings = useCisSettings(orgId);
  const missingReference = settings.data ? !settings.data.employerReference : false;

  async function refresh() {
    setRefreshing(true);
    try {
      // Asks Xero what changed (bills paid meanwhile), then reads both answers from the fresh cache.
      const [freshMonths, freshReturn] = await Promise.all([
        getCisMonths(orgId, { refresh: true }),
        period ? getCisReturn(orgId, period, { refresh: true }) : Promise.resolve(null),
      ]);
      queryClient.setQueryData(cisReturnsKeys.months(orgId), freshMonths);
      if (period && freshReturn) queryClient.setQueryData(cisReturnsKeys.return(orgId, period), freshReturn);
    } catch (error) {
      toast({
        title: 'Error refreshing',
        description: getMessage(error, 'Please try again'),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(false);
    }
  }

  return (
    <div>
      <PageHeader
        title="CIS Returns"
        description={`The monthly return (CIS300) and subcontractors' payment and deduction statements${tenantName ? ` for ${tenantName}` : ''}, from the payments Xero has.`}
        actions={
          <>
            <Button variant="outline" size="sm" onClick={() => void refresh()} disabled={refreshing}>
              {refreshing ? <Spinner /> : <RefreshCw aria-hidden />} Refresh from Xero
            </Button>
            <Button asChild variant="ghost" size="sm">
              <Link href={paths.cisInvoices.getHref()}>CIS Bills</Link>
            </Button>
          </>
        }
      />
      {missingReference ? (
        <Alert variant="warning" className="mb-6">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>Statements need your employer reference</AlertTitle>
            <AlertDescription>
              HMRC asks every statement to carry the contractor's employer reference. Add it, with your UTR,
              in{' '}
              <Link href={paths.settings.getHref(orgId)} className="underline">
                Settings
              </Link>
              .
            </AlertDescription>
          </div>
        </Alert>
      ) : null}
      {months.isLoading ? (
        <PageSpinner label="Reading the month's payments" />
      ) : months.isError ? (
        <Alert variant="destructive">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>Could not load the tax months</AlertTitle>
            <AlertDescription>{getMessage(months.error, 'Please try again')}</AlertDescription>
          </div>
        </Alert>
      ) : (
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-[18rem_minmax(0,1fr)]">
          <div className="order-2 lg:order-1">
            <MonthsCard months={list} selected={period ?? ''} onSelect={setChosen} />
          </div>
          <div className="order-1 min-w-0 lg:order-2">
            {ret.data ? (
              <ReturnCard
                orgId={orgId}
                ret={ret.data}
                summary={list.find((m) => m.period === ret.data.period)}
                today={months.data?.today ?? ''}
                isAdmin={Boolean(user.data?.isAdmin)}
                onEditRefs={setEditing}
              />
            ) : ret.isError ? (
              <Alert variant="destructive">
                <AlertTriangle aria-hidden />
                <div>
                  <AlertTitle>Could not load the return</AlertTitle>
                  <AlertDescription>{getMessage(ret.error, 'Please try again')}</AlertDescription>
                </div>
              </Alert>
            ) : (
              <PageSpinner label="Reading the month's payments" />
            )}
          </div>
        </div>
      )}
      {editing ? (
        <SubcontractorRefsDialog orgId={orgId} line={editing} onClose={() => setEditing(null)} />
      ) : null}
    </div>
  );
}

/**
 * CIS Returns (issue 29): the tax months of the last year with their state, the chosen month's return per
 * subcontractor with totals, CSV and statement downloads, and "Mark as filed". The router's feature guard has
 * checked the connection and the CIS Bills flag.
 */
export function CisReturnsPage() {
  const { data: connection, isLoading } = useConnection();
  if (isLoading || !connection || connection.organizationId === null)
    return <PageSpinner label="Checking the Xero connection" />;
  return (
    <CisReturnsMain
      key={connection.organizationId}
      orgId={connection.organizationId}
      tenantName={connection.tenantName ?? null}
    />
  );
}
