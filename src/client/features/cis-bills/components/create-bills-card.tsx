import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeftRight, Plus, RefreshCw, Send, Trash2, TriangleAlert } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { splitCisTotal, getCisGrossFromNetPence } from '@/shared/cis';
import {
  buildCreateBillRequest,
  convertCisAmount,
  createLocalBill,
  getDefaultBillReference,
  isCisChecked,
  validateBillEntry,
  validateBillSubmission,
  type CisContact,
  type CreateBillResult,
  type LocalBill,
  type UserMessage,
} from '@/shared/cis-bills';
import { DOCUMENT_DATE_RANGE_MESSAGE, getUkToday, isDocumentDate, isIsoDate } from '@/shared/dates';
import { findPence, formatPounds, fromPence, sumPence, toPence } from '@/shared/money';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Checkbox } from '@/client/components/ui/checkbox';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/client/components/ui/table';
import { Tooltip } from '@/client/components/ui/tooltip';
import { getAccountIdPreview } from '@/client/lib/account-labels';
import { getMessage, isApiError } from '@/client/lib/api-client';
import type { Connection } from '@/client/lib/connection';
import { toast } from '@/client/lib/toast';
import { useCreateBills } from '../api/create-bills';
import { getCisContacts, useCisContacts } from '../api/get-cis-contacts';
import { getDirectCostsAccounts, useDirectCostsAccounts } from '../api/get-direct-costs-accounts';
import { cisBillsKeys } from '../api/query-keys';
import { useCisContactChecks } from '../hooks/use-cis-contact-checks';
import { checkConnectionForWrite } from '../utils/check-connection';
import {
  CIS_CHECKING_TEXT,
  CIS_NOT_CHECKED_TEXT,
  describeBillCreationSummary,
  describeCreateBillError,
  getCreateBillsButtonLabel,
} from '../utils/messages';
import { AccountCodeSelect } from './account-code-select';
import { CreationProgress, type BillRun, type BillRunResult } from './creation-progress';
import { SubcontractorPicker } from './subcontractor-picker';
import { newIdempotencyKey } from '@/client/lib/idempotency';

/**
 * Bills per create request. The server sends each request's bills to Xero in one call, so 10 per request
 * costs 2 Xero calls for 20 bills and still lets the progress bar move on a long list.
 */
export const CREATE_BILLS_CHUNK_SIZE = 10;

/** A bill added to the list, waiting to be sent. */
export interface AddedBill extends LocalBill {
  /**
   * The id the bill is sent under: with the card's Idempotency-Key it names this bill on every retry, so a
   * retry whose first answer was lost never creates it twice. A bill Xero refused gets a new one.
   */
  attemptId: string;
  /**
   * False when Xero has no verified CIS rate for the subcontractor (no CIS, or the 30 % rate); null while its
   * CIS settings are being checked (issue 19), when the subcontractor list has the answer.
   */
  cisVerified: boolean | null;
}

type AmountBasis = 'gross' | 'net';

function showMessage(message: UserMessage, variant: 'destructive' | 'warning' = 'destructive') {
  toast({ title: message.title, description: message.description, variant });
}

/** A failed bill's text, with CIS configuration errors rewritten as docs/product/features.md §8 says. */
function describeFailure(message: string | undefined): UserMessage {
  return describeCreateBillError(message);
}

/** Outcomes that mean "Xero may have it": keep the bill's attempt id so the retry settles it, never duplicates it. */
function isUnknownOutcome(statusCode: number | undefined): boolean {
  return statusCode === undefined || statusCode === 409 || statusCode >= 500;
}

export function CreateBillsCard({ connection, orgId }: { connection: Connection; orgId: number }) {
  const queryClient = useQueryClient();
  const formId = useId();
  const contacts = useCisContacts(orgId);
  const cisChecks = useCisContactChecks(orgId);
  const accounts = useDirectCostsAccounts(orgId);
  const { mutateAsync: sendBills } = useCreateBills(orgId);
  // One key for the card: each bill's attempt id makes the key of that bill (see AddedBill.attemptId).
  const actionKey = useRef(newIdempotencyKey());

  const [date, setDate] = useState(() => getUkToday());
  const [reference, setReference] = useState(() => getDefaultBillReference(getUkToday()));
  const [referenceEdited, setReferenceEdited] = useState(false);
  const [accountCode, setAccountCode] = useState('');
  const [createAsDraft, setCreateAsDraft] = useState(true);
  const [contactId, setContactId] = useState('');
  const [amount, setAmount] = useState('');
  const [basis, setBasis] = useState<AmountBasis>('gross');
  const [bills, setBills] = useState<AddedBill[]>([]);
  const [run, setRun] = useState<BillRun | null>(null);
  const [refreshingAccounts, setRefreshingAccounts] = useState(false);
  const [refreshingContacts, setRefreshingContacts] = useState(false);

  const contactList: CisContact[] = useMemo(() => contacts.data ?? [], [contacts.data]);
  const accountList = useMemo(() => accounts.data ?? [], [accounts.data]);
  const selectedContact = contactList.find((c) => c.id === contactId);
  const contactById = useMemo(() => new Map(contactList.map((c) => [c.id, c])), [contactList]);
  /** A bill's CIS verification: the subcontractor's checked state when known, else what was known when added. */
  function isBillCisVerified(bill: AddedBill): boolean | null {
    const contact = contactById.get(bill.contactId);
    return contact && isCisChecked(contact) ? contact.hasValidUTR : bill.cisVerified;
  }

  // The subcontractor chosen is checked at once if its CIS settings are not known (or no longer are, after a
  // refresh found it changed in Xero).
  const { check: checkCis } = cisChecks;
  const selectedUnchecked = selectedContact && !isCisChecked(selectedContact) ? selectedContact.id : null;
  useEffect(() => {
    if (selectedUnchecked) void checkCis([selectedUnchecked], { immediate: true });
  }, [selectedUnchecked, checkCis]);
  const isProcessing = run?.isRunning === true;

  // Preselect the saved default bill account once the accounts are known.
  const defaultAccountCode = accountList.find((a) => a.id === connection.defaultBillAccountId)?.code ?? '';
  useEffect(() => {
    if (accountCode === '' && defaultAccountCode !== '') setAccountCode(defaultAccountCode);
  }, [accountCode, defaultAccountCode]);

  const contactsFailed = contacts.isError;
  useEffect(() => {
    if (contactsFailed)
      toast({
        title: 'Failed to fetch CIS subcontractors',
        description: getMessage(contacts.error, 'Please try again.'),
        variant: 'destructive',
      });
  }, [contactsFailed, contacts.error]);

  // The figure typed, as gross pence (a net figure is grossed up ÷ 0.8), or null when it is not an amount.
  const enteredPence = findPence(amount.trim());
  const grossPence =
    enteredPence === null || enteredPence < 0
      ? null
      : basis === 'net'
        ? getCisGrossFromNetPence(enteredPence)
        : enteredPence;
  const preview = grossPence === null ? null : splitCisTotal(grossPence);

  function changeDate(next: string) {
    setDate(next);
    if (!referenceEdited && isIsoDate(next)) setReference(getDefaultBillReference(next));
  }

  async function refreshAccounts() {
    setRefreshingAccounts(true);
    try {
      const fresh = await getDirectCostsAccounts(orgId, { refresh: true });
      queryClient.setQueryData(cisBillsKeys.accounts(orgId), fresh);
    } catch (error) {
      toast({
        title: 'Error Refreshing Accounts',
        description: getMessage(error, 'Could not refresh the accounts from Xero.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingAccounts(false);
    }
  }

  async function refreshContacts() {
    setRefreshingContacts(true);
    try {
      const fresh = await getCisContacts(orgId, { refresh: true });
      queryClient.setQueryData(cisBillsKeys.contacts(orgId), fresh);
      toast({
        title: 'Subcontractors Refreshed',
        description: 'Read again from Xero; CIS settings of changed subcontractors are checked again.',
        variant: 'success',
      });
    } catch (error) {
      toast({
        title: 'Failed to fetch CIS subcontractors',
        description: getMessage(error, 'Please try again.'),
        variant: 'destructive',
      });
    } finally {
      setRefreshingContacts(false);
    }
  }

  function convert() {
    const result = convertCisAmount(amount, basis === 'gross' ? 'to-net' : 'to-gross');
    if (!result) return;
    setAmount(result.amount);
    setBasis(basis === 'gross' ? 'net' : 'gross');
    toast({ title: result.title, description: result.description, variant: 'info' });
  }

  function addBill() {
    const problem = validateBillEntry({ contactId, amount, accountCode, contacts: contactList });
    if (problem) return showMessage(problem);
    if (!isIsoDate(date))
      return showMessage({ title: 'Missing information', description: 'Please select a bill date' });
    // The server refuses the same (issue 28): a year typed as 9999 is a slip, not a bill for Xero.
    if (!isDocumentDate(date))
      return showMessage({ title: 'Invalid date', description: DOCUMENT_DATE_RANGE_MESSAGE });
    const contact = contactList.find((c) => c.id === contactId);
    if (!contact || grossPence === null) return;
    const bill = createLocalBill({
      id: newIdempotencyKey(),
      contactId: contact.id,
      contactName: contact.name,
      date,
      reference: reference.trim(),
      grossPence,
      accountCode,
    });
    setBills((list) => [
      ...list,
      { ...bill, attemptId: bill.id, cisVerified: isCisChecked(contact) ? contact.hasValidUTR : null },
    ]);
    setContactId('');
    setAmount('');
    setBasis('gross');
  }

  function removeBill(id: string) {
    setBills((list) => list.filter((b) => b.id !== id));
  }

  async function submit() {
    const problem = validateBillSubmission(bills) ?? checkConnectionForWrite(connection);
    if (problem) return showMessage(problem);
    const sending = bills;
    const results = new Map<string, BillRunResult>(
      sending.map((b) => [
        b.id,
        { id: b.id, contactName: b.contactName, total: b.total, reference: b.reference, state: 'waiting' },
      ]),
    );
    const snapshot = (done: number, isRunning: boolean): BillRun => ({
      total: sending.length,
      done,
      isRunning,
      results: [...results.values()],
    });
    setRun(snapshot(0, true));
    let done = 0;
    for (let start = 0; start < sending.length; start += CREATE_BILLS_CHUNK_SIZE) {
      const chunk = sending.slice(start, start + CREATE_BILLS_CHUNK_SIZE);
      try {
        const answer = await sendBills({
          bills: chunk.map((b) => ({ id: b.attemptId, ...buildCreateBillRequest(b, createAsDraft) })),
          idempotencyKey: actionKey.current,
        });
        for (const bill of chunk) {
          const result: CreateBillResult | undefined = answer.results.find((r) => r.id === bill.attemptId);
          const previous = results.get(bill.id);
          if (!previous) continue;
          if (result?.ok)
            results.set(bill.id, {
              ...previous,
              state: 'created',
              ...(result.status ? { status: result.status } : {}),
            });
          else {
            const failure = describeFailure(result?.message);
            results.set(bill.id, {
              ...previous,
              state: isUnknownOutcome(result?.statusCode) ? 'unknown' : 'failed',
              title: failure.title,
              message: failure.description,
            });
          }
        }
      } catch (error) {
        // No answer for the whole request: whether Xero has these bills is unknown until they are sent again.
        const message = isApiError(error)
          ? error.message
          : 'Network error - please check your connection and try again';
        for (const bill of chunk) {
          const previous = results.get(bill.id);
          if (previous)
            results.set(bill.id, {
              ...previous,
              state: isApiError(error) && error.status < 500 && error.status !== 409 ? 'failed' : 'unknown',
              message,
            });
        }
      }
      done += chunk.length;
      setRun(snapshot(done, true));
    }
    setRun(snapshot(done, false));

    const outcome = [...results.values()];
    const created = outcome.filter((r) => r.state === 'created').length;
    const failed = outcome.length - created;
    setBills((list) =>
      list
        .filter((b) => results.get(b.id)?.state !== 'created')
        // A refused bill is a new attempt next time; an unknown one keeps its id so the retry settles it.
        .map((b) => (results.get(b.id)?.state === 'failed' ? { ...b, attemptId: newIdempotencyKey() } : b)),
    );
    const firstFailure = outcome.find((r) => r.state !== 'created' && r.state !== 'waiting');
    const summary = describeBillCreationSummary(created, failed);
    if (created === 0) {
      // All failed: 'Failed to create bills', or 'CIS Configuration Error' when that is the reason
      // (docs/product/features.md §8).
      toast({
        title: firstFailure?.title === 'CIS Configuration Error' ? firstFailure.title : summary.message,
        ...(firstFailure?.message ? { description: firstFailure.message } : {}),
        variant: 'destructive',
      });
    } else {
      toast({
        title: summary.message,
        ...(firstFailure?.message ? { description: firstFailure.message } : {}),
        variant: failed > 0 ? 'warning' : 'success',
      });
      await queryClient.invalidateQueries({ queryKey: cisBillsKeys.drafts(orgId) });
    }
  }

  const unverified = bills.filter((b) => isBillCisVerified(b) === false);
  const totals = {
    gross: sumPence(bills.map((b) => toPence(b.total))),
    deduction: sumPence(bills.map((b) => toPence(b.cisDeduction))),
    due: sumPence(bills.map((b) => toPence(b.amountDue))),
  };
  const accountsBusy = accounts.isFetching || refreshingAccounts;

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle>Create CIS Bills</CardTitle>
          <CardDescription>
            Bills for subcontractors with the 20% CIS deduction and the 80% amount due.
            {connection.defaultBillAccountId ? (
              <span className="mt-1 block">
                Default bill account:{' '}
                <span className="font-mono">{getAccountIdPreview(connection.defaultBillAccountId)}</span>
              </span>
            ) : null}
          </CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={() => void refreshAccounts()} disabled={accountsBusy}>
          {accountsBusy ? (
            <Spinner className="size-4" label="Refreshing accounts" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Refresh Accounts
        </Button>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-5">
        <div className="grid gap-4 sm:grid-cols-3">
          <div className="grid content-start gap-1.5">
            <Label htmlFor={`${formId}-date`}>Bill Date</Label>
            <Input
              id={`${formId}-date`}
              type="date"
              value={date}
              onChange={(e) => changeDate(e.target.value)}
              disabled={isProcessing}
            />
          </div>
          <div className="grid content-start gap-1.5">
            <Label htmlFor={`${formId}-reference`}>Reference Number</Label>
            <Input
              id={`${formId}-reference`}
              value={reference}
              placeholder="0123"
              maxLength={255}
              onChange={(e) => {
                setReference(e.target.value);
                setReferenceEdited(true);
              }}
              aria-describedby={`${formId}-reference-hint`}
              disabled={isProcessing}
            />
            <p id={`${formId}-reference-hint`} className="text-[13px] text-muted-foreground">
              Tax week and year, from the bill date
            </p>
          </div>
          <div className="grid content-start gap-1.5">
            <Label htmlFor={`${formId}-account`}>Account Code</Label>
            <AccountCodeSelect
              id={`${formId}-account`}
              accounts={accountList}
              value={accountCode}
              onChange={setAccountCode}
              isLoading={accounts.isLoading || (refreshingAccounts && accountList.length === 0)}
              isError={accounts.isError}
              onRefresh={() => void refreshAccounts()}
            />
          </div>
        </div>

        <div className="flex items-center gap-2">
          <Checkbox
            id={`${formId}-draft`}
            checked={createAsDraft}
            onCheckedChange={(checked) => setCreateAsDraft(checked === true)}
            disabled={isProcessing}
          />
          <Label htmlFor={`${formId}-draft`} className="font-normal">
            Create as draft bills (uncheck to approve immediately)
          </Label>
        </div>

        <div className="rounded-xl border border-border">
          <div className="hidden grid-cols-[minmax(0,2.2fr)_minmax(0,1.2fr)_6.5rem_minmax(0,1fr)_minmax(0,1fr)_5.5rem] items-center gap-3 border-b border-border bg-muted/60 px-3 py-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground md:grid">
            <span className="flex items-center gap-1">
              Subcontractor
              <Tooltip content="Read the subcontractors and their CIS settings again from Xero">
                <button
                  type="button"
                  aria-label="Refresh subcontractors"
                  className="rounded p-0.5 hover:bg-muted disabled:opacity-50"
                  onClick={() => void refreshContacts()}
                  disabled={refreshingContacts}
                >
                  <RefreshCw
                    aria-hidden
                    className={refreshingContacts ? 'size-3.5 animate-spin' : 'size-3.5'}
                  />
                </button>
              </Tooltip>
            </span>
            <span>Gross Amount</span>
            <span aria-hidden />
            <span>CIS Deduction (20%)</span>
            <span>Amount Due (80%)</span>
            <span>Actions</span>
          </div>
          <div className="grid grid-cols-2 items-start gap-3 p-3 md:grid-cols-[minmax(0,2.2fr)_minmax(0,1.2fr)_6.5rem_minmax(0,1fr)_minmax(0,1fr)_5.5rem] md:items-center">
            <div className="col-span-2 grid gap-1.5 md:col-span-1">
              <div className="flex items-center justify-between gap-2 md:contents">
                <Label htmlFor={`${formId}-contact`} className="md:sr-only">
                  Subcontractor
                </Label>
                <Button
                  variant="ghost"
                  size="sm"
                  className="h-7 px-2 text-xs md:hidden"
                  onClick={() => void refreshContacts()}
                  disabled={refreshingContacts}
                >
                  <RefreshCw aria-hidden className={refreshingContacts ? 'animate-spin' : undefined} />
                  Refresh subcontractors
                </Button>
              </div>
              <SubcontractorPicker
                id={`${formId}-contact`}
                contacts={contactList}
                value={contactId}
                onChange={setContactId}
                isLoading={contacts.isLoading || refreshingContacts}
                onCheck={cisChecks.check}
                failedIds={cisChecks.failedIds}
              />
              {selectedContact && isCisChecked(selectedContact) && !selectedContact.hasValidUTR ? (
                <p className="flex items-center gap-1 text-[13px] text-warning-foreground">
                  <TriangleAlert aria-hidden className="size-3.5 shrink-0" />
                  No verified CIS settings in Xero
                </p>
              ) : null}
            </div>
            <div className="col-span-2 grid gap-1.5 sm:col-span-1 md:col-span-1">
              <Label htmlFor={`${formId}-amount`} className="md:sr-only">
                {basis === 'net' ? 'Net Amount (80%)' : 'Gross Amount'}
              </Label>
              <div className="relative">
                <span
                  aria-hidden
                  className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-sm text-muted-foreground"
                >
                  £
                </span>
                <Input
                  id={`${formId}-amount`}
                  type="number"
                  inputMode="decimal"
                  min={0}
                  step={0.01}
                  placeholder="0.00"
                  className="pl-7 tabular-nums"
                  value={amount}
                  onChange={(e) => setAmount(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter') addBill();
                  }}
                />
              </div>
              {basis === 'net' ? (
                <p className="text-[13px] text-muted-foreground">Net figure: the bill is grossed up ÷ 0.8</p>
              ) : null}
            </div>
            <div className="col-span-2 sm:col-span-1 md:col-span-1">
              <Tooltip content={basis === 'gross' ? 'Convert to net (80%)' : 'Convert to gross (100%)'}>
                <Button
                  variant="outline"
                  size="sm"
                  className="w-full sm:mt-6 md:mt-0 md:w-auto"
                  // The name starts with the visible word (axe label-content-name-mismatch, issue 17 item 17).
                  aria-label={
                    basis === 'gross' ? 'Gross: convert to net (80%)' : 'Net: convert to gross (100%)'
                  }
                  onClick={convert}
                >
                  <ArrowLeftRight aria-hidden />
                  {basis === 'gross' ? 'Gross' : 'Net'}
                </Button>
              </Tooltip>
            </div>
            <div className="grid gap-1 text-sm">
              <span className="text-xs text-muted-foreground md:hidden">CIS Deduction (20%)</span>
              <span className="tabular-nums" aria-label="CIS Deduction (20%)">
                {preview ? formatPounds(fromPence(preview.cisDeductionPence)) : '—'}
              </span>
            </div>
            <div className="grid gap-1 text-sm">
              <span className="text-xs text-muted-foreground md:hidden">Amount Due (80%)</span>
              <span className="tabular-nums font-medium" aria-label="Amount Due (80%)">
                {preview ? formatPounds(fromPence(preview.amountDuePence)) : '—'}
              </span>
            </div>
            <div className="col-span-2 md:col-span-1">
              <Button onClick={addBill} className="w-full md:w-auto" disabled={isProcessing}>
                <Plus aria-hidden />
                Add
              </Button>
            </div>
          </div>
        </div>

        <Table aria-label="Bills to create">
          <TableHeader>
            <TableRow>
              <TableHead>Subcontractor</TableHead>
              <TableHead>Reference</TableHead>
              <TableHead className="text-right">Gross Amount</TableHead>
              <TableHead className="text-right">CIS Deduction (20%)</TableHead>
              <TableHead className="text-right">Amount Due (80%)</TableHead>
              <TableHead className="w-12">
                <span className="sr-only">Actions</span>
              </TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {bills.length === 0 ? (
              <TableRow>
                <TableCell colSpan={6} className="py-8 text-center text-muted-foreground">
                  No bills added yet. Add a bill using the form above.
                </TableCell>
              </TableRow>
            ) : (
              <>
                {bills.map((bill) => (
                  <TableRow key={bill.id}>
                    <TableCell>
                      <span className="font-medium">{bill.contactName}</span>
                      {isBillCisVerified(bill) === false ? (
                        <Badge variant="warning" className="ml-2">
                          <TriangleAlert aria-hidden className="size-3" />
                          CIS not verified
                        </Badge>
                      ) : isBillCisVerified(bill) === null ? (
                        <span className="ml-2 text-xs text-muted-foreground">
                          {cisChecks.failedIds.has(bill.contactId) ? CIS_NOT_CHECKED_TEXT : CIS_CHECKING_TEXT}
                        </span>
                      ) : null}
                    </TableCell>
                    <TableCell className="tabular-nums">{bill.reference || '—'}</TableCell>
                    <TableCell className="text-right tabular-nums">{formatPounds(bill.total)}</TableCell>
                    <TableCell className="text-right tabular-nums">
                      {formatPounds(bill.cisDeduction)}
                    </TableCell>
                    <TableCell className="text-right tabular-nums">{formatPounds(bill.amountDue)}</TableCell>
                    <TableCell>
                      <Button
                        variant="ghost"
                        size="icon"
                        className="size-8"
                        aria-label={`Remove bill for ${bill.contactName}`}
                        onClick={() => removeBill(bill.id)}
                        disabled={isProcessing}
                      >
                        <Trash2 aria-hidden />
                      </Button>
                    </TableCell>
                  </TableRow>
                ))}
                <TableRow className="bg-muted/40 font-medium hover:bg-muted/40">
                  <TableCell colSpan={2}>Total</TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatPounds(fromPence(totals.gross))}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatPounds(fromPence(totals.deduction))}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatPounds(fromPence(totals.due))}
                  </TableCell>
                  <TableCell />
                </TableRow>
              </>
            )}
          </TableBody>
        </Table>

        {unverified.length > 0 ? (
          <Alert variant="warning">
            <TriangleAlert aria-hidden />
            <div>
              <AlertTitle>Check CIS before sending</AlertTitle>
              <AlertDescription>
                {unverified.length === 1 ? '1 bill is' : `${unverified.length} bills are`} for subcontractors
                without verified CIS settings in Xero (CIS not enabled, or the 30% unverified rate):{' '}
                {[...new Set(unverified.map((b) => b.contactName))].join(', ')}. Check their UTR and
                verification before paying.
              </AlertDescription>
            </div>
          </Alert>
        ) : null}

        {run ? <CreationProgress run={run} onDismiss={() => setRun(null)} /> : null}

        <div className="flex justify-end">
          <Button
            size="lg"
            className="w-full sm:w-auto"
            onClick={() => void submit()}
            disabled={bills.length === 0 || isProcessing}
          >
            {isProcessing ? (
              <Spinner className="size-4 text-current" label="Creating bills" />
            ) : (
              <Send aria-hidden />
            )}
            {getCreateBillsButtonLabel(bills.length, isProcessing)}
          </Button>
        </div>
      </CardContent>
    </Card>
  );
}
