import { getZeroAmountConfirmation } from '@/shared/add-invoices';
import { Button } from '@/client/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/client/components/ui/dialog';

/**
 * "Confirm Zero Amount Approval" (001 §2, §4): ticking Approve on a row with zero or empty cash asks first;
 * confirming ticks it, cancelling (or Escape, or the close button) leaves it as it was.
 */
export function ZeroAmountDialog({
  invoiceNumber,
  onConfirm,
  onCancel,
}: {
  invoiceNumber: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const texts = getZeroAmountConfirmation(invoiceNumber ?? '');
  return (
    <Dialog open={invoiceNumber !== null} onOpenChange={(open) => (open ? undefined : onCancel())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{texts.title}</DialogTitle>
          <DialogDescription>{texts.description}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            {texts.cancelLabel}
          </Button>
          <Button onClick={onConfirm} autoFocus>
            {texts.confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
