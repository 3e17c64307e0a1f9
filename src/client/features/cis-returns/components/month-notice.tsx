import { AlertTriangle, CheckCircle2, FileText, Landmark } from 'lucide-react';
import { NIL_MARK_LABELS, type CisReturn } from '@/shared/cis-returns';
import { formatDateMedium } from '@/shared/dates';
import { formatPounds } from '@/shared/money';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';

/** The rules a penalty follows, in a sentence, when they are HMRC's ones for contractors new to CIS. */
function NewContractorNote({ ret }: { ret: CisReturn }) {
  if (!ret.penalty.newContractorRules) return null;
  return (
    <>
      {' '}
      HMRC's rules for contractors new to CIS apply: the £100 and £200 penalties of the returns due before
      your first return add up to £3,000 at most, and the later ones are 5 % of the deductions with no £300
      minimum (HMRC manual CH62540).
    </>
  );
}

/** What the month's state means for the person filing it: filed (late?), overdue, nil, or in progress. */
export function MonthNotice({ ret }: { ret: CisReturn }) {
  const due = formatDateMedium(ret.dueDate);
  if (ret.filing) {
    const late = ret.filing.late;
    return (
      <Alert variant={late ? 'warning' : 'info'}>
        <CheckCircle2 aria-hidden />
        <div>
          <AlertTitle>{late ? 'Filed late' : 'Filed'}</AlertTitle>
          <AlertDescription>
            Marked as filed with HMRC on {formatDateMedium(ret.filing.filedOn)} by {ret.filing.filedBy}.
            {ret.filing.receipt?.irmark ? (
              <>
                {' '}
                HMRC's receipt (IRmark){' '}
                {/* The IRmark is one word (base64): on a phone it breaks anywhere rather than widen the page. */}
                <span className="break-all">{ret.filing.receipt.irmark}</span>.
              </>
            ) : null}
            {late && ret.filing.penaltyAmount > 0 ? (
              <>
                {' '}
                It was due on {due}: HMRC's late-filing penalty of {formatPounds(ret.filing.penaltyAmount)}{' '}
                stands (HMRC manual CH62340).
                <NewContractorNote ret={ret} />
              </>
            ) : late ? (
              <>
                {' '}
                It was due on {due}.
                {ret.penalty.newContractorRules
                  ? ' No late-filing penalty is added for it: under HMRC’s rules for contractors new to CIS the £100 and £200 penalties of the returns due before the first one add up to £3,000 at most, and that is reached (HMRC manual CH62560).'
                  : ''}
              </>
            ) : null}
          </AlertDescription>
        </div>
      </Alert>
    );
  }
  if (ret.overdue)
    return (
      <Alert variant="destructive">
        <AlertTriangle aria-hidden />
        <div>
          <AlertTitle>Overdue: the return was due on {due}</AlertTitle>
          <AlertDescription>
            {ret.penalty.amount > 0 || !ret.penalty.newContractorRules
              ? `HMRC's late-filing penalty for this return is now ${formatPounds(ret.penalty.amount)}.`
              : 'No late-filing penalty is added for it yet: the £3,000 cap on the £100 and £200 penalties of a contractor new to CIS is reached (HMRC manual CH62560).'}
            {ret.penalty.next
              ? ` It rises by ${formatPounds(ret.penalty.next.amount)} on ${formatDateMedium(ret.penalty.next.from)} (${ret.penalty.next.label}).`
              : ''}
            {ret.penalty.amount > 0 ? <NewContractorNote ret={ret} /> : null}
          </AlertDescription>
        </div>
      </Alert>
    );
  if (ret.nilMark && !ret.nil)
    return (
      <Alert variant="warning">
        <AlertTriangle aria-hidden />
        <div>
          <AlertTitle>Marked “{NIL_MARK_LABELS[ret.nilMark.kind]}”, yet subcontractors were paid</AlertTitle>
          <AlertDescription>
            A payment dated in this month reached Xero after the mark: its return is due by {due}.
          </AlertDescription>
        </div>
      </Alert>
    );
  if (ret.nil)
    return (
      <Alert variant={ret.nilReturnRequired && !ret.nilMark ? 'warning' : 'default'}>
        <FileText aria-hidden />
        <div>
          <AlertTitle>No payments to subcontractors{ret.isCurrent ? ' so far' : ''} this month</AlertTitle>
          <AlertDescription>
            {ret.nilMark
              ? `Marked “${NIL_MARK_LABELS[ret.nilMark.kind]}” by ${ret.nilMark.markedBy} on ${formatDateMedium(ret.nilMark.markedAt.slice(0, 10))}: no nil return is needed.`
              : ret.nilReturnRequired
                ? `A nil return is due by ${due}, unless HMRC was told in advance that no payments would be made or the scheme is inactive.`
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

/** When the deductions must reach HMRC, and why it is not the 22nd when it is not. */
export function PaymentDueNotice({ ret }: { ret: CisReturn }) {
  if (!ret.paymentDueNote || ret.nil) return null;
  return (
    <Alert variant="default">
      <Landmark aria-hidden />
      <div>
        <AlertTitle>Pay the deductions to HMRC by {formatDateMedium(ret.paymentDueDate)}</AlertTitle>
        <AlertDescription>{ret.paymentDueNote}</AlertDescription>
      </div>
    </Alert>
  );
}
