import { AlertTriangle, SkipForward } from 'lucide-react';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Button } from '@/client/components/ui/button';

/** The invoice on screen was paid or changed in Xero or another browser (issue 28): said in words. */
export function ChangedElsewhereNotice({ notice, onDismiss }: { notice: string; onDismiss: () => void }) {
  return (
    <Alert>
      <AlertTriangle aria-hidden />
      <div className="min-w-0 flex-1">
        <AlertTitle>Changed elsewhere</AlertTitle>
        <AlertDescription>{notice}</AlertDescription>
      </div>
      <Button size="sm" variant="outline" onClick={onDismiss}>
        Dismiss
      </Button>
    </Alert>
  );
}

/** Refresh Invoice failed: try again, or skip to the next invoice. */
export function RefreshErrorNotice({ onSkip, canSkip }: { onSkip: () => void; canSkip: boolean }) {
  return (
    <Alert variant="destructive">
      <AlertTriangle aria-hidden />
      <div className="min-w-0 flex-1">
        <AlertTitle>Refresh Failed</AlertTitle>
        <AlertDescription>
          This invoice could not be read from Xero. Try again, or skip to the next invoice.
        </AlertDescription>
      </div>
      <Button size="sm" variant="outline" onClick={onSkip} disabled={!canSkip}>
        <SkipForward aria-hidden />
        Skip
      </Button>
    </Alert>
  );
}
