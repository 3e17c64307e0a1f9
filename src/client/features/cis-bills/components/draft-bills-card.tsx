import { useQueryClient } from '@tanstack/react-query';
import { Check, Pencil, RefreshCw, Trash2, X } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { checkCanApproveBill, validateBillAmountEdit, type DraftBill } from '@/shared/cis-bills';
import { formatDateMedium } from '@/shared/dates';
import { findPence, formatPounds, fromPence } from '@/shared/money';
import { paths } from '@/client/config/paths';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { Tooltip } from '@/client/components/ui/tooltip';
import { getMessage, isApiError } from '@/client/lib/api-client';
import { useNarrowScreen } from '@/client/lib/narrow-screen';
import { readSavedDefaults, type Connection } from '@/client/lib/connection';
import { queryKeys } from '@/client/lib/query-client';
import { toast } from '@/client/lib/toast';
import { useApproveBill } from '../api/approve-bill';
import { useDeleteBill } from '../api/delete-bill';
import { getDraftBills, useDraftBills } from '../api/get-draft-bills';
import { cisBillsKeys } from '../api/query-keys';
import { useUpdateBill } from '../api/update-bill';
import { checkConnectionForWrite } from '../utils/check-connection';
import {
  describeApproveBillError,
  describeApproveBillRefusal,
  describeDeleteBillError,
  SESSION_EXPIRED_TOAST,
} from '../utils/messages';
import { describeDeduction } from '../utils/bill-entry';
import { DeleteBillDialog } from './delete-bill-dialog';
import { newIdempotencyKey } from '@/client/lib/idempotency';

/** A server message worth showing after the spec's own text, when it says more. */
function readServerMessage(error: unknown): string | null {
  return isApiError(error) && error.message.trim() !== '' && !/^HTTP Error/.test(error.message)
    ? error.message
    : null;
}

/** The VAT of a draft: its amount, or that it carries none or is under the reverse charge (issue 42). */
function DraftVat({ bill }: { bill: DraftBill }) {
  return (
    <>
      {formatPounds(bill.vatAmount)}
      {bill.vatTreatment === 'reverse-charge' ? (
        <span className="block text-xs text-muted-foreground">Reverse charge</span>
      ) : null}
    </>
  );
}

/** The note under a draft's deduction: its rate when not 20 %, or Xero's own CIS (issue 42). */
function DeductionNote({ bill }: { bill: DraftBill }) {
  const note = describeDeduction(bill.cisRate, bill.cisSource);
  return note ? <span className="block text-xs font-medium text-warning-foreground">{note}</span> : null;
}

/** What a draft's row or card shows while it is edited, saved, approved or deleted. */
interface RowState {
  isEditing: boolean;
  isSaving: boolean;
  isApproving: boolean;
  busy: boolean;
}

/**
 * 'Draft CIS Bills' (docs/product/features.md §2): Refresh, the drafts with Subcontractor, Reference, Date,
 * Gross Amount, CIS Deduction, Amount Due, and per row Edit amount (Save/Cancel), Approve (spinner) and
 * Delete (confirmation). Issue 42: the VAT and materials in the gross beside them, the deduction at the
 * subcontractor's rate (said when not 20 %) on the labour alone.
 */
export function DraftBillsCard({
  connection,
  orgId,
  onSessionExpired,
}: {
  connection: Connection;
  orgId: number;
  onSessionExpired: () => void;
}) {
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const drafts = useDraftBills(orgId);
  const { mutateAsync: saveAmount } = useUpdateBill(orgId);
  const { mutateAsync: sendApproval } = useApproveBill(orgId);
  const { mutateAsync: sendDeletion } = useDeleteBill(orgId);
  const narrow = useNarrowScreen();
  const [refreshing, setRefreshing] = useState(false);
  const [editing, setEditing] = useState<{ id: string; amount: string; original: number } | null>(null);
  const [savingId, setSavingId] = useState<string | null>(null);
  const [approvingIds, setApprovingIds] = useState<ReadonlySet<string>>(new Set());
  const [toDelete, setToDelete] = useState<DraftBill | null>(null);
  const [deleting, setDeleting] = useState(false);
  // Each row's Edit button, so leaving an inline edit gives the focus back to it (issue 17 item 16).
  const editButtons = useRef(new Map<string, HTMLButtonElement>());
  const [refocusEditOf, setRefocusEditOf] = useState<string | null>(null);
  useEffect(() => {
    if (refocusEditOf === null || editing) return;
    editButtons.current.get(refocusEditOf)?.focus();
    setRefocusEditOf(null);
  }, [refocusEditOf, editing]);

  function leaveEdit() {
    if (editing) setRefocusEditOf(editing.id);
    setEditing(null);
  }

  const bills = drafts.data ?? [];
  const key = cisBillsKeys.drafts(orgId);

  function replaceBill(id: string, next: DraftBill | null) {
    queryClient.setQueryData<DraftBill[]>(key, (list) =>
      (list ?? []).flatMap((b) =>
        b.invoiceID === id ? (next && next.status === 'DRAFT' ? [next] : []) : [b],
      ),
    );
  }

  async function refresh() {
    setRefreshing(true);
    try {
      queryClient.setQueryData(key, await getDraftBills(orgId, { refresh: true }));
    } catch (error) {
      toast({
        title: 'Error Refreshing Bills',
        description: getMessage(error, 'Could not read the draft bills from Xero.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(false);
    }
  }

  async function save() {
    if (!editing) return;
    const problem = validateBillAmountEdit(editing.amount);
    if (problem) {
      toast({ title: problem.title, description: problem.description, variant: 'destructive' });
      return;
    }
    const pence = findPence(editing.amount.trim()) ?? 0;
    if (fromPence(pence) === editing.original) {
      setEditing(null);
      return;
    }
    setSavingId(editing.id);
    try {
      const updated = await saveAmount({
        id: editing.id,
        amount: fromPence(pence),
        idempotencyKey: newIdempotencyKey(),
      });
      replaceBill(editing.id, updated);
      setEditing(null);
      toast({
        title: 'Bill Updated',
        description: `${updated.contact.name}: gross amount now ${formatPounds(updated.total)}`,
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Error updating bill',
        description: getMessage(error, 'Failed to update bill'),
        variant: 'destructive',
      });
    } finally {
      setSavingId(null);
    }
  }

  async function approve(bill: DraftBill) {
    const connectionProblem = checkConnectionForWrite(connection);
    if (connectionProblem) {
      toast({
        title: connectionProblem.title,
        description: connectionProblem.description,
        variant: 'destructive',
      });
      return;
    }
    const accountId = connection.defaultBillAccountId || readSavedDefaults().defaultBillAccountId || '';
    const missing = checkCanApproveBill(accountId);
    if (missing) {
      toast({ title: missing.title, description: missing.description, variant: 'destructive' });
      navigate(paths.settings.getHref(orgId));
      return;
    }
    setApprovingIds((ids) => new Set(ids).add(bill.invoiceID));
    try {
      await sendApproval({ id: bill.invoiceID, accountId, idempotencyKey: newIdempotencyKey() });
      replaceBill(bill.invoiceID, null);
      toast({
        title: 'Bill Approved',
        description: `${bill.contact.name} ${bill.reference} for ${formatPounds(bill.total)} is approved in Xero.`,
        variant: 'success',
      });
    } catch (error) {
      const described = describeApproveBillError(isApiError(error) ? error.status : 'network');
      if (described.isAuthError) {
        toast({ title: 'Session Expired', description: SESSION_EXPIRED_TOAST, variant: 'destructive' });
        void queryClient.invalidateQueries({ queryKey: queryKeys.connection });
        void queryClient.invalidateQueries({ queryKey: queryKeys.currentUser });
        onSessionExpired();
      } else if (isApiError(error) && error.code === 'XERO_REJECTED' && readServerMessage(error)) {
        toast({ ...describeApproveBillRefusal(error.message), variant: 'destructive' });
      } else {
        const detail = readServerMessage(error);
        toast({
          title: described.message,
          ...(detail ? { description: detail } : {}),
          variant: 'destructive',
        });
      }
    } finally {
      setApprovingIds((ids) => {
        const next = new Set(ids);
        next.delete(bill.invoiceID);
        return next;
      });
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    setDeleting(true);
    try {
      await sendDeletion({ id: toDelete.invoiceID, idempotencyKey: newIdempotencyKey() });
      replaceBill(toDelete.invoiceID, null);
      toast({
        title: 'Bill Deleted',
        description: `${toDelete.contact.name} ${toDelete.reference} was deleted in Xero.`,
        variant: 'success',
      });
      setToDelete(null);
    } catch (error) {
      const message = isApiError(error)
        ? describeDeleteBillError(error.status, error.message)
        : 'Network error - please check your connection and try again';
      toast({ title: 'Error deleting bill', description: message, variant: 'destructive' });
    } finally {
      setDeleting(false);
    }
  }

  function rowState(bill: DraftBill): RowState {
    const isSaving = savingId === bill.invoiceID;
    const isApproving = approvingIds.has(bill.invoiceID);
    return {
      isEditing: editing?.id === bill.invoiceID,
      isSaving,
      isApproving,
      busy: isSaving || isApproving || (deleting && toDelete?.invoiceID === bill.invoiceID),
    };
  }

  /** The gross amount, or its input while the row is being edited. */
  function renderAmount(bill: DraftBill, row: RowState) {
    if (!row.isEditing || !editing) return formatPounds(bill.total);
    return (
      <Input
        type="number"
        min={0}
        step={0.01}
        autoFocus
        aria-label={`Gross amount for ${bill.contact.name}`}
        className="ml-auto h-8 w-28 text-right tabular-nums"
        value={editing.amount}
        onChange={(e) => setEditing({ ...editing, amount: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter') void save();
          if (e.key === 'Escape') leaveEdit();
        }}
        disabled={row.isSaving}
      />
    );
  }

  /** Save/Cancel while editing, else Edit, Approve and Delete; named with the bill, labelled on cards. */
  function renderActions(bill: DraftBill, row: RowState, labelled = false) {
    if (row.isEditing) {
      return (
        <>
          <Button size="sm" onClick={() => void save()} disabled={row.isSaving}>
            {row.isSaving ? (
              <Spinner className="size-4 text-current" label="Saving" />
            ) : (
              <Check aria-hidden />
            )}
            Save
          </Button>
          <Button size="sm" variant="outline" onClick={leaveEdit} disabled={row.isSaving}>
            <X aria-hidden />
            Cancel
          </Button>
        </>
      );
    }
    const iconOnly = labelled ? 'h-9 min-w-0 flex-1 px-2' : 'size-8';
    return (
      <>
        <Tooltip content="Edit amount">
          <Button
            variant={labelled ? 'outline' : 'ghost'}
            size={labelled ? 'sm' : 'icon'}
            className={iconOnly}
            aria-label={`Edit amount of ${bill.contact.name} ${bill.reference}`}
            ref={(el) => {
              if (el) editButtons.current.set(bill.invoiceID, el);
              else editButtons.current.delete(bill.invoiceID);
            }}
            onClick={() =>
              setEditing({ id: bill.invoiceID, amount: bill.total.toFixed(2), original: bill.total })
            }
            disabled={row.busy}
          >
            <Pencil aria-hidden />
            {labelled ? 'Edit' : null}
          </Button>
        </Tooltip>
        <Tooltip content="Approve bill">
          <Button
            variant={labelled ? 'outline' : 'ghost'}
            size={labelled ? 'sm' : 'icon'}
            className={`${iconOnly} text-success`}
            aria-label={`Approve bill ${bill.contact.name} ${bill.reference}`}
            onClick={() => void approve(bill)}
            disabled={row.busy}
          >
            {row.isApproving ? <Spinner className="size-4" label="Approving" /> : <Check aria-hidden />}
            {labelled ? 'Approve' : null}
          </Button>
        </Tooltip>
        <Tooltip content="Delete bill">
          <Button
            variant={labelled ? 'outline' : 'ghost'}
            size={labelled ? 'sm' : 'icon'}
            className={`${iconOnly} text-destructive`}
            aria-label={`Delete bill ${bill.contact.name} ${bill.reference}`}
            onClick={() => setToDelete(bill)}
            disabled={row.busy}
          >
            <Trash2 aria-hidden />
            {labelled ? 'Delete' : null}
          </Button>
        </Tooltip>
      </>
    );
  }

  /** Below 640 px each draft is a card: every amount and button in view, no sideways scroll (issue 17 item 13). */
  function renderCards() {
    if (drafts.isLoading) {
      return (
        <p className="inline-flex items-center gap-2 py-6 text-muted-foreground">
          <Spinner className="size-4" label="Loading" />
          Loading draft bills...
        </p>
      );
    }
    if (drafts.isError && bills.length === 0) {
      return (
        <p className="py-6 text-destructive">
          {getMessage(drafts.error, 'Could not load the draft bills.')}{' '}
          <Button variant="link" className="h-auto p-0" onClick={() => void drafts.refetch()}>
            Try again
          </Button>
        </p>
      );
    }
    if (bills.length === 0) {
      return (
        <p className="py-6 text-muted-foreground">
          No draft bills found. Create a new bill above or check your Xero account.
        </p>
      );
    }
    return (
      <ul className="flex list-none flex-col gap-3 p-0" aria-label="Draft CIS bills">
        {bills.map((bill) => {
          const row = rowState(bill);
          return (
            <li key={bill.invoiceID} data-bill-id={bill.invoiceID} className="rounded-lg border p-3">
              <p className="font-medium break-words">{bill.contact.name}</p>
              <p className="text-sm text-muted-foreground tabular-nums">
                {bill.reference || '—'} · {bill.date ? formatDateMedium(bill.date) : '—'}
              </p>
              <div className="mt-2 grid grid-cols-3 gap-2 text-sm">
                <div className="min-w-0">
                  <p className="text-xs text-muted-foreground">Gross Amount</p>
                  <div className="tabular-nums [&_input]:ml-0 [&_input]:w-full">
                    {renderAmount(bill, row)}
                  </div>
                </div>
                <div className="min-w-0">
                  <p className="text-xs text-muted-foreground">VAT</p>
                  <p className="tabular-nums">
                    <DraftVat bill={bill} />
                  </p>
                </div>
                <div className="min-w-0">
                  <p className="text-xs text-muted-foreground">Materials</p>
                  <p className="tabular-nums">{formatPounds(bill.materialsAmount)}</p>
                </div>
                <div className="min-w-0">
                  <p className="text-xs text-muted-foreground">CIS Deduction</p>
                  <p className="tabular-nums">
                    {formatPounds(bill.cisDeduction)}
                    <DeductionNote bill={bill} />
                  </p>
                </div>
                <div className="min-w-0">
                  <p className="text-xs text-muted-foreground">Amount Due</p>
                  <p className="font-medium tabular-nums">{formatPounds(bill.amountDue)}</p>
                </div>
              </div>
              <div className="mt-3 flex justify-end gap-2">{renderActions(bill, row, true)}</div>
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle>Draft CIS Bills</CardTitle>
          <CardDescription>Draft bills for your CIS subcontractors in Xero.</CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={() => void refresh()} disabled={refreshing}>
          {refreshing ? <Spinner className="size-4" label="Refreshing bills" /> : <RefreshCw aria-hidden />}
          Refresh
        </Button>
      </CardHeader>
      <CardContent>
        {narrow ? (
          renderCards()
        ) : (
          <Table aria-label="Draft CIS bills">
            <TableHeader>
              <TableRow>
                <TableHead>Subcontractor</TableHead>
                <TableHead>Reference</TableHead>
                <TableHead>Date</TableHead>
                <TableHead className="text-right">Gross Amount</TableHead>
                <TableHead className="text-right">VAT</TableHead>
                <TableHead className="text-right">Materials</TableHead>
                <TableHead className="text-right">CIS Deduction</TableHead>
                <TableHead className="text-right">Amount Due</TableHead>
                <TableHead className="text-right">Actions</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {drafts.isLoading ? (
                <TableRow>
                  <TableCell colSpan={9} className="py-8 text-center text-muted-foreground">
                    <span className="inline-flex items-center gap-2">
                      <Spinner className="size-4" label="Loading" />
                      Loading draft bills...
                    </span>
                  </TableCell>
                </TableRow>
              ) : drafts.isError && bills.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={9} className="py-8 text-center text-destructive">
                    {getMessage(drafts.error, 'Could not load the draft bills.')}{' '}
                    <Button variant="link" className="h-auto p-0" onClick={() => void drafts.refetch()}>
                      Try again
                    </Button>
                  </TableCell>
                </TableRow>
              ) : bills.length === 0 ? (
                <TableRow>
                  <TableCell colSpan={9} className="py-8 text-center text-muted-foreground">
                    No draft bills found. Create a new bill above or check your Xero account.
                  </TableCell>
                </TableRow>
              ) : (
                bills.map((bill) => {
                  const row = rowState(bill);
                  return (
                    <TableRow key={bill.invoiceID}>
                      <TableCell className="font-medium">{bill.contact.name}</TableCell>
                      <TableCell className="tabular-nums">{bill.reference || '—'}</TableCell>
                      <TableCell className="whitespace-nowrap">
                        {bill.date ? formatDateMedium(bill.date) : '—'}
                      </TableCell>
                      <TableCell className="text-right tabular-nums">{renderAmount(bill, row)}</TableCell>
                      <TableCell className="text-right tabular-nums">
                        <DraftVat bill={bill} />
                      </TableCell>
                      <TableCell className="text-right tabular-nums">
                        {formatPounds(bill.materialsAmount)}
                      </TableCell>
                      <TableCell className="text-right tabular-nums">
                        {formatPounds(bill.cisDeduction)}
                        <DeductionNote bill={bill} />
                      </TableCell>
                      <TableCell className="text-right tabular-nums">
                        {formatPounds(bill.amountDue)}
                      </TableCell>
                      <TableCell>
                        <div className="flex justify-end gap-1">{renderActions(bill, row)}</div>
                      </TableCell>
                    </TableRow>
                  );
                })
              )}
            </TableBody>
          </Table>
        )}
      </CardContent>
      <DeleteBillDialog
        bill={toDelete}
        isDeleting={deleting}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      />
    </Card>
  );
}
