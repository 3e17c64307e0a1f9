import { CheckCircle2, Download, FileText, Undo2 } from 'lucide-react';
import type { CisReturn, CisReturnLine } from '@/shared/cis-returns';
import { formatDateMedium } from '@/shared/dates';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { cisDownloads } from '../api/get-return';
import { useReturnActions } from '../hooks/use-return-actions';
import { describeRange } from '../utils/months';
import { canMakeStatement } from '../utils/statements';
import { FiledChanges } from './filed-changes';
import { FilingChecklist } from './filing-checklist';
import { MonthNotice, PaymentDueNotice } from './month-notice';
import { ReturnLineCards, ReturnLinesTable } from './return-lines';

/** The nil month's ways out of a nil return (issue 42): HMRC told in advance, or the scheme inactive. */
function NilMarkActions({
  ret,
  isAdmin,
  actions,
}: {
  ret: CisReturn;
  isAdmin: boolean;
  actions: ReturnType<typeof useReturnActions>;
}) {
  if (ret.filing || !ret.nil) return null;
  if (ret.nilMark)
    return isAdmin ? (
      <Button size="sm" variant="ghost" onClick={actions.unmarkNil} disabled={actions.pending}>
        <Undo2 aria-hidden /> Remove mark
      </Button>
    ) : null;
  if (!ret.nilReturnRequired) return null;
  return (
    <>
      <Button
        size="sm"
        variant="outline"
        onClick={() => actions.markNil('told-in-advance')}
        disabled={actions.pending}
      >
        HMRC told in advance
      </Button>
      <Button
        size="sm"
        variant="outline"
        onClick={() => actions.markNil('inactive')}
        disabled={actions.pending}
      >
        Scheme inactive
      </Button>
    </>
  );
}

/** A month's return: its dates, downloads, filing, what changed since, the checklist and the lines. */
export function ReturnCard({
  orgId,
  ret,
  isAdmin,
  onEditRefs,
}: {
  orgId: number;
  ret: CisReturn;
  isAdmin: boolean;
  onEditRefs: (line: CisReturnLine) => void;
}) {
  const actions = useReturnActions(orgId, ret);
  const narrow = useNarrowScreen();
  const needsReturn = !ret.nil || (ret.nilReturnRequired && !ret.nilMark);
  const canFile = !ret.isCurrent && !ret.filing && needsReturn;
  const missing = ret.checks.filter((c) => !c.ok).length;

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
        <div className="flex flex-wrap items-center gap-2">
          <Button asChild size="sm" variant="outline">
            <a href={cisDownloads.csv(orgId, ret.period)} download>
              <Download aria-hidden /> CSV
            </a>
          </Button>
          {ret.nil ? null : canMakeStatement(ret) ? (
            <Button asChild size="sm" variant="outline">
              <a href={cisDownloads.allStatements(orgId, ret.period)} download>
                <FileText aria-hidden /> All statements (PDF)
              </a>
            </Button>
          ) : (
            <Button
              size="sm"
              variant="outline"
              disabled
              title="Add the missing references first: HMRC asks every statement to carry them"
            >
              <FileText aria-hidden /> All statements (PDF)
            </Button>
          )}
          {canFile ? (
            <Button
              size="sm"
              onClick={actions.markFiled}
              disabled={actions.pending || missing > 0}
              aria-describedby={missing > 0 ? `checks-${ret.period}` : undefined}
            >
              {actions.pending ? <Spinner /> : <CheckCircle2 aria-hidden />}
              {ret.nil ? 'Mark nil return as filed' : 'Mark as filed'}
            </Button>
          ) : null}
          <NilMarkActions ret={ret} isAdmin={isAdmin} actions={actions} />
          {ret.filing && isAdmin ? (
            <Button size="sm" variant="ghost" onClick={actions.undoFiled} disabled={actions.pending}>
              <Undo2 aria-hidden /> Undo filed
            </Button>
          ) : null}
        </div>
        {canFile && missing > 0 ? (
          <p className="text-sm text-muted-foreground">
            Filing needs every reference below: {missing === 1 ? 'one is' : `${missing} are`} missing.
          </p>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-4">
        <MonthNotice ret={ret} />
        <FiledChanges ret={ret} />
        <PaymentDueNotice ret={ret} />
        {canFile ? <FilingChecklist orgId={orgId} ret={ret} onEditRefs={onEditRefs} /> : null}
        {ret.nil ? null : narrow ? (
          <ReturnLineCards orgId={orgId} ret={ret} onEditRefs={onEditRefs} />
        ) : (
          <ReturnLinesTable orgId={orgId} ret={ret} onEditRefs={onEditRefs} />
        )}
      </CardContent>
    </Card>
  );
}
