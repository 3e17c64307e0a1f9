import { TriangleAlert } from 'lucide-react';
import { Alert, AlertDescription } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { formatPeriodMoney } from '../utils/messages';
import type { JournalPart } from '../utils/periods';

export interface PendingConfirmation {
  part: JournalPart;
  journalDate: string;
  amount: number;
  customerName: string;
  /** The week has not ended yet (today is on or before its last day). */
  unfinished?: boolean;
  /** The organisation posts journals as POSTED, not as drafts. */
  posted?: boolean;
}

/**
 * 'Confirm Stock Journal' (docs/product/features.md §2): Period, Net Sales, Cost Amount, Customer and the
 * warning about duplicate entries. Ledgerlink asks for it when journals go straight to POSTED (the
 * organisation's posting status), where a mistake is harder to take back than a draft.
 */
export function ConfirmJournalDialog({
  pending,
  onCancel,
  onConfirm,
}: {
  pending: PendingConfirmation | null;
  onCancel: () => void;
  onConfirm: (pending: PendingConfirmation) => void;
}) {
  return (
    <Dialog open={pending !== null} onOpenChange={(open) => (!open ? onCancel() : undefined)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Confirm Stock Journal</DialogTitle>
          <DialogDescription>
            {pending?.posted === false
              ? 'This journal will be created in Xero as a draft.'
              : 'This journal will be posted to Xero straight away, not kept as a draft.'}
          </DialogDescription>
        </DialogHeader>
        {pending?.unfinished ? (
          <Alert variant="warning">
            <TriangleAlert aria-hidden />
            <AlertDescription className="mt-0">
              The week {pending.part.period.formattedRange} has not ended yet: sales still to come this week
              will not be in this journal.
            </AlertDescription>
          </Alert>
        ) : null}
        {pending ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
            <dt className="text-muted-foreground">Period</dt>
            <dd>{pending.part.period.formattedRange}</dd>
            <dt className="text-muted-foreground">Net Sales</dt>
            <dd className="tabular-nums">{formatPeriodMoney(pending.part.period.netTotal)}</dd>
            <dt className="text-muted-foreground">Cost Amount</dt>
            <dd className="tabular-nums">{formatPeriodMoney(pending.amount)}</dd>
            <dt className="text-muted-foreground">Customer</dt>
            <dd>{pending.customerName}</dd>
          </dl>
        ) : null}
        <Alert variant="warning">
          <TriangleAlert aria-hidden />
          <AlertDescription className="mt-0">
            If a journal for this period was already entered in Xero by hand, posting another one creates a
            duplicate entry in Xero.
          </AlertDescription>
        </Alert>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button onClick={() => pending && onConfirm(pending)}>Post Journal to Xero</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
