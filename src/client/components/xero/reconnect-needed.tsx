import { AlertTriangle, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { describeConnectionLoss, getConnectionState } from '@/shared/connection-rules';
import { useConnection } from '@/client/lib/connection';
import { reconnectToXero } from '@/client/lib/xero-authorization';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';

/**
 * In place of a screen that needs Xero while Xero refuses the user's tokens (issue 33 item 3): says what
 * happened, in the words every screen uses (issue 45 item 2), and offers Reconnect, instead of a spinner
 * waiting on answers that cannot come.
 */
export function ReconnectNeeded({ what }: { what: string }) {
  const { data: connection } = useConnection();
  const state = getConnectionState(connection);
  const loss = describeConnectionLoss(state.kind === 'lost' ? state.reason : null);
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
        <h2 className="text-lg font-semibold">{loss.title}</h2>
        <p className="max-w-md text-sm text-muted-foreground">{loss.explanation}</p>
        <p className="max-w-md text-sm text-muted-foreground">Until then {what} cannot be read from Xero.</p>
        <Button variant="xero" disabled={starting} onClick={() => void start()}>
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
