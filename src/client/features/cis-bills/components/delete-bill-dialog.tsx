import { useEffect } from 'react';
import type { DraftBill } from '@/shared/cis-bills';
import { formatPounds } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { Spinner } from '@/client/components/ui/spinner';

/**
 * 'Confirm Deletion' (docs/product/features.md §2): contact, reference and amount, 'This action cannot be
 * undone.', Cancel/Delete.
 */
export function DeleteBillDialog({
  bill,
  isDeleting,
  onCancel,
  onConfirm,
}: {
  bill: DraftBill | null;
  isDeleting: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  // After a failed delete the error toast is the top layer and would take the first Escape: one Escape
  // closes this dialog whatever else is open (issue 17 item 16).
  const open = bill !== null;
  useEffect(() => {
    if (!open || isDeleting) return;
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onCancel();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, [open, isDeleting, onCancel]);
  return (
    <Dialog
      open={bill !== null}
      onOpenChange={(open) => {
        if (!open && !isDeleting) onCancel();
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Confirm Deletion</DialogTitle>
          <DialogDescription>Delete this draft bill in Xero?</DialogDescription>
        </DialogHeader>
        {bill ? (
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 rounded-lg bg-muted/50 p-3 text-sm">
            <dt className="text-muted-foreground">Contact</dt>
            <dd className="font-medium">{bill.contact.name}</dd>
            <dt className="text-muted-foreground">Reference</dt>
            <dd className="tabular-nums">{bill.reference || '—'}</dd>
            <dt className="text-muted-foreground">Amount</dt>
            <dd className="tabular-nums">{formatPounds(bill.total)}</dd>
          </dl>
        ) : null}
        <p className="text-sm font-medium text-destructive">This action cannot be undone.</p>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel} disabled={isDeleting}>
            Cancel
          </Button>
          <Button variant="destructive" onClick={onConfirm} disabled={isDeleting}>
            {isDeleting ? <Spinner className="size-4 text-current" label="Deleting" /> : null}
            {isDeleting ? 'Deleting...' : 'Delete'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
