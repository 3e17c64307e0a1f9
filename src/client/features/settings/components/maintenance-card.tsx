import { formatCount } from '@/shared/counts';
import { Database, Eraser, Landmark } from 'lucide-react';
import { useState } from 'react';
import { PROVIDER_NAME } from '@/shared/connection';
import { OLD_DATA_MONTHS } from '@/shared/settings';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { Spinner } from '@/client/components/ui/spinner';
import { useCleanupBankAccounts } from '../api/cleanup-bank-accounts';
import { useCleanupData } from '../api/cleanup-data';
import type { OrgId } from '@/client/lib/org-url';

type Job = 'bank-accounts' | 'data';

const JOBS: Record<Job, { title: string; button: string; confirm: string; description: string }> = {
  'bank-accounts': {
    title: 'Clean up duplicate bank accounts',
    button: 'Clean Up Bank Accounts',
    confirm: 'Clean up bank accounts?',
    description: `Bank accounts that ${PROVIDER_NAME} no longer has are removed from Ledgerlink's copy, so each account appears once in the card and cash lists. Nothing is changed in ${PROVIDER_NAME}.`,
  },
  data: {
    title: `Clean up data older than ${OLD_DATA_MONTHS} months`,
    button: 'Clean Up Old Data',
    confirm: 'Clean up old invoices and payments?',
    description: `Paid, voided and deleted invoices dated more than ${OLD_DATA_MONTHS} months ago, and the record of payments confirmed more than ${OLD_DATA_MONTHS} months ago, are removed from Ledgerlink's copy. Open and draft invoices stay. Nothing is changed in ${PROVIDER_NAME}; older data is fetched again when a screen needs it.`,
  },
};

/**
 * Database Maintenance (docs/product/shell.md §2): the two clean-ups of Ledgerlink's cache, each after a
 * confirmation.
 */
export function MaintenanceCard({ orgId }: { orgId: OrgId }) {
  const [confirming, setConfirming] = useState<Job | null>(null);
  const bankCleanup = useCleanupBankAccounts(orgId);
  const dataCleanup = useCleanupData(orgId);
  const busy = bankCleanup.isPending || dataCleanup.isPending;

  function run(job: Job) {
    setConfirming(null);
    if (job === 'bank-accounts') {
      bankCleanup.mutate(undefined, {
        onSuccess: ({ deletedCount }) =>
          toast({
            title: 'Duplicate Accounts Cleaned Up',
            description:
              deletedCount === 0
                ? 'No duplicate bank accounts were found.'
                : `Removed ${formatCount(deletedCount, 'duplicate bank account', 'duplicate bank accounts')}.`,
            variant: 'success',
          }),
        onError: (error) =>
          toast({
            title: 'Cleanup Error',
            description: getMessage(error, 'Failed to clean up duplicate bank accounts'),
            variant: 'destructive',
          }),
      });
    } else {
      dataCleanup.mutate(undefined, {
        onSuccess: ({ deletedInvoices, deletedPayments }) =>
          toast({
            title: 'Data Cleaned Up',
            description: `Removed ${formatCount(deletedInvoices, 'invoice', 'invoices')} and ${formatCount(deletedPayments, 'payment', 'payments')} older than ${OLD_DATA_MONTHS} months.`,
            variant: 'success',
          }),
        onError: (error) =>
          toast({
            title: 'Cleanup Error',
            description: getMessage(error, 'Failed to clean up processed invoices and payments'),
            variant: 'destructive',
          }),
      });
    }
  }

  const job = confirming ? JOBS[confirming] : null;
  return (
    <Card role="region" aria-label="Database Maintenance" className="min-w-0">
      <CardHeader className="flex-row items-start gap-3">
        <span className="mt-0.5 flex size-9 shrink-0 items-center justify-center rounded-lg bg-accent text-accent-foreground">
          <Database aria-hidden className="size-4" />
        </span>
        <div>
          <CardTitle>Database Maintenance</CardTitle>
          <CardDescription className="mt-1">
            Tidy Ledgerlink&apos;s copy of your {PROVIDER_NAME} data. Your {PROVIDER_NAME} books are never
            touched.
          </CardDescription>
        </div>
      </CardHeader>
      <CardContent className="grid gap-3 md:grid-cols-2">
        {(Object.keys(JOBS) as Job[]).map((key) => {
          const item = JOBS[key];
          const pending = key === 'bank-accounts' ? bankCleanup.isPending : dataCleanup.isPending;
          return (
            <div key={key} className="flex flex-col gap-3 rounded-lg border border-border p-4">
              <div>
                <p className="text-sm font-medium">{item.title}</p>
                <p className="mt-1 text-sm text-muted-foreground">{item.description}</p>
              </div>
              <Button
                variant="outline"
                className="mt-auto self-start"
                disabled={busy}
                onClick={() => setConfirming(key)}
              >
                {pending ? (
                  <Spinner className="size-4" label="Cleaning up" />
                ) : key === 'bank-accounts' ? (
                  <Landmark aria-hidden />
                ) : (
                  <Eraser aria-hidden />
                )}
                {item.button}
              </Button>
            </div>
          );
        })}
      </CardContent>
      <Dialog open={confirming !== null} onOpenChange={(open) => (open ? undefined : setConfirming(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{job?.confirm}</DialogTitle>
            <DialogDescription>{job?.description}</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="outline">Cancel</Button>
            </DialogClose>
            <Button onClick={() => confirming && run(confirming)}>{job?.button}</Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
