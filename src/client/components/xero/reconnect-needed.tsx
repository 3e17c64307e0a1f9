import { AlertTriangle, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { reconnectToXero } from '@/client/lib/xero-authorization';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';

/**
 * In place of a screen that needs Xero while Xero refuses the user's tokens (issue 33 item 3): says why and
 * offers Reconnect, instead of a spinner waiting on answers that cannot come.
 */
export function ReconnectNeeded({ what }: { what: string }) {
  const [starting, setStarting] = useState(false);
  async function start() {
    setStarting(true);
    if (!(await reconnectToXero())) setStarting(false);
  }
  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
        <span className="flex size-12 items-center justify-center rounded-full bg-destructive-soft text-destructive">
          <AlertTriangle aria-hidden className="size-6" />
        </span>
        <h2 className="text-lg font-semibold">Xero Connection Needs Refreshing</h2>
        <p className="max-w-md text-sm text-muted-foreground">
          Xero no longer accepts Ledgerlink&rsquo;s connection, so {what} cannot be read from Xero. Reconnect
          to carry on; nothing has been changed.
        </p>
        <Button disabled={starting} onClick={() => void start()}>
          {starting ? (
            <Spinner className="size-4 text-current" label="Reconnecting" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Reconnect
        </Button>
      </CardContent>
    </Card>
  );
}
