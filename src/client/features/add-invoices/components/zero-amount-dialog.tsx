import { useState } from 'react';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { getZeroAmountConfirmation } from '../utils/messages';

/**
 * "Confirm Zero Amount Approval" (docs/product/features.md §2, §4): ticking Approve on a row with zero or
 * empty cash asks first; confirming ticks it, cancelling (or Escape, or the close button) leaves it as it
 * was.
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
  // The dialog closes after the parent has cleared the number: keep the last one for giving the focus back.
  const [lastNumber, setLastNumber] = useState(invoiceNumber);
  if (invoiceNumber !== null && invoiceNumber !== lastNumber) setLastNumber(invoiceNumber);
  const texts = getZeroAmountConfirmation(invoiceNumber ?? lastNumber ?? '');
  return (
    <Dialog open={invoiceNumber !== null} onOpenChange={(open) => (open ? undefined : onCancel())}>
      <DialogContent
        // Opened by ticking a row's Approve, not by a trigger: closing hands the focus back to that box
        // (Escape used to drop it to the page body). Issue 17 item 16.
        onCloseAutoFocus={(event) => {
          event.preventDefault();
          const number = lastNumber;
          if (!number) return;
          const box = document.querySelector<HTMLElement>(
            `[role="checkbox"][aria-label="Approve ${CSS.escape(number)}"]`,
          );
          box?.focus();
        }}
      >
        <DialogHeader>
          <DialogTitle>{texts.title}</DialogTitle>
          <DialogDescription>{texts.description}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          {/* The safe choice has the focus: Enter must not approve with £0. */}
          <Button variant="outline" onClick={onCancel} autoFocus>
            {texts.cancelLabel}
          </Button>
          <Button onClick={onConfirm}>{texts.confirmLabel}</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
