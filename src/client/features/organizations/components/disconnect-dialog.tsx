import { Unplug } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/client/components/ui/dialog';
import { Spinner } from '@/client/components/ui/spinner';

/**
 * Disconnect on an organisation card (issue 33 item 4): a confirmation that says what happens, then
 * POST /api/xero/disconnect. The dialog stays open while the request runs and closes when it succeeded.
 */
export function DisconnectDialog({
  name,
  disabled,
  onDisconnect,
}: {
  name: string;
  disabled: boolean;
  /** Resolves true when the organisation was disconnected (a failure has been told in a toast). */
  onDisconnect: () => Promise<boolean>;
}) {
  const [open, setOpen] = useState(false);
  const [running, setRunning] = useState(false);

  async function confirm() {
    setRunning(true);
    const done = await onDisconnect();
    setRunning(false);
    if (done) setOpen(false);
  }

  return (
    <Dialog open={open} onOpenChange={(next) => (running ? undefined : setOpen(next))}>
      <DialogTrigger asChild>
        {/* Xero's Disconnect button (issue 45 item 6): outlined in Xero's blue. */}
        <Button size="sm" variant="xeroOutline" disabled={disabled} aria-label={`Disconnect ${name}`}>
          <Unplug aria-hidden /> Disconnect
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Disconnect {name} from Xero?</DialogTitle>
          <DialogDescription>
            Ledgerlink stops working with this organisation until you connect it again.
          </DialogDescription>
        </DialogHeader>
        <ul className="grid list-disc gap-1.5 pl-5 text-sm">
          <li>Ledgerlink&rsquo;s connection to {name} is removed in Xero. Nothing in Xero itself changes.</li>
          <li>
            Its history here is kept: the activity log and every payment, bill and journal already recorded.
          </li>
          <li>
            Pay Invoices, Add Invoices, CIS Bills, Stock Journal and Settings are off for it until you connect
            it again (Connect on its card).
          </li>
        </ul>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline" disabled={running}>
              Cancel
            </Button>
          </DialogClose>
          <Button variant="destructive" disabled={running} onClick={() => void confirm()}>
            {running ? (
              <Spinner className="size-4 text-current" label="Disconnecting" />
            ) : (
              <Unplug aria-hidden />
            )}
            Disconnect
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
