import { createRoot } from 'react-dom/client';
import type { RedoSuspect } from '@/shared/redo-warning';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';

/**
 * The redo warning (issue 44): what Xero already has, and the choice to go on. Shown over the screen that
 * sent the change; nothing was sent yet.
 */
export function RedoWarningDialog({
  suspects,
  words,
  onChoose,
}: {
  suspects: readonly RedoSuspect[];
  words: { title: string; goOn: string };
  onChoose: (goOn: boolean) => void;
}) {
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onChoose(false))}>
      {/* Above the screen's own "Processing…" overlay (z-90), which stays while the person decides. */}
      <DialogContent aria-describedby="redo-warning-text" role="alertdialog" className="z-[100]">
        <DialogHeader>
          <DialogTitle>{words.title}</DialogTitle>
          <DialogDescription id="redo-warning-text">
            Ledgerlink&apos;s records were restored from a backup, so this screen may not show what was done
            since. Nothing has been sent yet.
          </DialogDescription>
        </DialogHeader>
        <ul className="grid gap-2 text-sm">
          {suspects.map((s) => (
            <li
              key={s.xeroId}
              className="rounded-md border border-warning/50 bg-warning-soft px-3 py-2 text-warning-foreground"
            >
              {s.message}.
            </li>
          ))}
        </ul>
        <p className="text-sm text-muted-foreground">
          Check it in Xero. Send this one as well only if it is another.
        </p>
        <DialogFooter>
          <Button variant="outline" onClick={() => onChoose(false)} autoFocus>
            Don&apos;t send
          </Button>
          <Button variant="destructive" onClick={() => onChoose(true)}>
            {words.goOn}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

/** Shows the warning on its own (any screen, no provider needed); answers whether the person chose to go on. */
export function askRedo(
  suspects: readonly RedoSuspect[],
  words: { title: string; goOn: string },
): Promise<boolean> {
  return new Promise((resolve) => {
    const host = document.createElement('div');
    document.body.appendChild(host);
    const root = createRoot(host);
    const choose = (goOn: boolean) => {
      root.unmount();
      host.remove();
      resolve(goOn);
    };
    root.render(<RedoWarningDialog suspects={suspects} words={words} onChoose={choose} />);
  });
}
