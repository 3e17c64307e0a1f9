import { RefreshCw } from 'lucide-react';
import { useState } from 'react';
import type { AdminReviewWrite, AdminSettleWriteRequest, XeroLookup } from '@/shared/admin';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { useReviewWrite, useReviewWrites, useSettleWrite } from '../api/review-writes';

const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
const pounds = (pence: number | null) => (pence === null ? '—' : `£${(pence / 100).toFixed(2)}`);

export const NO_REVIEW_TEXT = 'Nothing needs review: every write to Xero has been settled.';

/** What Xero says now, in words. */
export function describeXero(xero: XeroLookup): string {
  // A change that never goes to Xero (pending cash) is looked up in Ledgerlink's own records (issue 44).
  if (xero.status !== 'unavailable' && xero.keptBy === 'ledgerlink')
    return xero.status === 'found'
      ? 'Saved in Ledgerlink (this change never goes to Xero): cancelling it takes it back out'
      : 'Not saved in Ledgerlink (this change never goes to Xero): marking it done saves it';
  if (xero.status === 'found') return `Xero has it${xero.xeroId ? ` (${xero.xeroId})` : ''}`;
  if (xero.status === 'missing') return 'Xero does not have it';
  return `Could not ask Xero: ${xero.message}`;
}

function ReviewItem({ write, onClose }: { write: AdminReviewWrite; onClose: () => void }) {
  const detail = useReviewWrite(write.id);
  const settle = useSettleWrite();
  const [xeroId, setXeroId] = useState('');
  const found = detail.data?.xero.status === 'found' ? detail.data.xero.xeroId : null;

  const missing = detail.data?.xero.status === 'missing';

  async function run(body: AdminSettleWriteRequest, title: string) {
    try {
      const settled = await settle.mutateAsync({ writeId: write.id, body });
      const description = settled.retriedAs
        ? `Xero has it now${settled.retriedAs.xeroId ? ` (${settled.retriedAs.xeroId})` : ''}; it is write ${settled.retriedAs.writeId} in the activity log.`
        : undefined;
      toast({ title, ...(description ? { description } : {}), variant: 'success' });
      onClose();
    } catch (error) {
      toast({
        title: body.action === 'retry' ? 'Not sent again' : 'Could not settle this write',
        description: getMessage(error, 'Please try again.'),
        variant: 'destructive',
      });
      // What Xero has may have changed (or the write was settled elsewhere): ask again.
      void detail.refetch();
    }
  }

  return (
    <div className="grid gap-3 rounded-md border p-4" aria-label={`Write ${write.id}`} role="region">
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-muted-foreground">Request</dt>
        <dd className="break-all font-mono text-xs">{JSON.stringify(write.request)}</dd>
        <dt className="text-muted-foreground">Last error</dt>
        <dd>{write.error ?? 'none'}</dd>
        <dt className="text-muted-foreground">Xero now</dt>
        <dd>
          {detail.isFetching ? (
            <Spinner label="Asking Xero" />
          ) : detail.data ? (
            describeXero(detail.data.xero)
          ) : (
            `Could not ask Xero: ${getMessage(detail.error, 'no answer')}`
          )}
          <Button
            variant="ghost"
            size="sm"
            className="ml-2"
            onClick={() => void detail.refetch()}
            disabled={detail.isFetching}
          >
            <RefreshCw aria-hidden className="size-4" /> Ask Xero again
          </Button>
        </dd>
      </dl>
      <div className="flex flex-wrap items-end gap-2">
        <div className="grid gap-1.5">
          <Label htmlFor={`xero-id-${write.id}`}>Xero id (optional)</Label>
          <Input
            id={`xero-id-${write.id}`}
            value={xeroId}
            placeholder={found ?? ''}
            onChange={(e) => setXeroId(e.target.value)}
          />
        </div>
        <Button
          disabled={settle.isPending}
          onClick={() =>
            void run(
              {
                action: 'done',
                ...(xeroId.trim() || found ? { xeroId: xeroId.trim() || (found ?? undefined) } : {}),
              },
              'Marked as done',
            )
          }
        >
          Mark done
        </Button>
        {write.canRetry ? (
          <Button
            variant="outline"
            disabled={settle.isPending || !missing}
            onClick={() => void run({ action: 'retry' }, 'Sent again')}
          >
            Send again
          </Button>
        ) : null}
        <Button
          variant="destructive"
          disabled={settle.isPending}
          onClick={() => void run({ action: 'cancel' }, 'Write cancelled')}
        >
          Cancel write
        </Button>
      </div>
      <p className="text-xs text-muted-foreground">
        {write.canRetry
          ? 'Send again is open once Xero, asked just now, does not have it; it goes through the same checks as on its screen.'
          : 'To send it again, cancel it and make the change again on its screen.'}
      </p>
    </div>
  );
}

/** Admin → Needs review: writes the ledger could not settle, and settling them (issue 20 part 4). */
export function ReviewTab() {
  const list = useReviewWrites(true);
  const [open, setOpen] = useState<number | null>(null);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Writes that need a person</CardTitle>
        <CardDescription>
          Ledgerlink could not tell whether Xero applied these. Open one to ask Xero, then settle it.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {list.isLoading ? (
          <Spinner label="Loading writes" />
        ) : list.isError ? (
          <p>{getMessage(list.error, 'Could not load the writes that need review.')}</p>
        ) : !list.data?.length ? (
          <p>{NO_REVIEW_TEXT}</p>
        ) : (
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Organisation</TableHead>
                <TableHead>Kind</TableHead>
                <TableHead>Amount</TableHead>
                <TableHead>Target</TableHead>
                <TableHead>Who</TableHead>
                <TableHead>When</TableHead>
                <TableHead>Summary</TableHead>
                <TableHead />
              </TableRow>
            </TableHeader>
            <TableBody>
              {list.data.map((w) => (
                <TableRow key={w.id}>
                  <TableCell>{w.organizationName ?? `Organisation ${w.organizationId}`}</TableCell>
                  <TableCell>{w.kind}</TableCell>
                  <TableCell>{pounds(w.amountPence)}</TableCell>
                  <TableCell>{w.targetId ?? '—'}</TableCell>
                  <TableCell>{w.username ?? '—'}</TableCell>
                  <TableCell>{when.format(new Date(w.createdAt))}</TableCell>
                  <TableCell>{w.summary ?? '—'}</TableCell>
                  <TableCell>
                    <Button variant="outline" size="sm" onClick={() => setOpen(open === w.id ? null : w.id)}>
                      {open === w.id ? 'Close' : 'Review'}
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
        {list.data
          ?.filter((w) => w.id === open)
          .map((w) => (
            <ReviewItem key={w.id} write={w} onClose={() => setOpen(null)} />
          ))}
      </CardContent>
    </Card>
  );
}
