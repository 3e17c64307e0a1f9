import { RefreshCw, Send } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { getCisGrossFromNetPence, splitCisTotal } from '@/shared/cis';
import {
  convertCisAmount,
  createLocalBill,
  getDefaultBillReference,
  isCisChecked,
  validateBillEntry,
} from '@/shared/cis-bills';
import { DOCUMENT_DATE_RANGE_MESSAGE, getUkToday, isDocumentDate, isIsoDate } from '@/shared/dates';
import { findPence } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { getAccountIdPreview, getAccountLabel } from '@/client/lib/account-labels';
import type { Connection } from '@/client/lib/connection';
import { newIdempotencyKey } from '@/client/lib/idempotency';
import { toast } from '@/client/lib/toast';
import { useBillLists } from '../hooks/use-bill-lists';
import { showMessage, useBillRun } from '../hooks/use-bill-run';
import { useCisContactChecks } from '../hooks/use-cis-contact-checks';
import { createBillForm, type AmountBasis, type BillForm } from '../utils/bill-form';
import { keepUnsentBills, type AddedBill } from '../utils/bill-run';
import { getCreateBillsButtonLabel } from '../utils/messages';
import { AddedBillsTable, UnverifiedBillsAlert } from './added-bills-table';
import { BillEntryRow } from './bill-entry-row';
import { BillSettingsFields } from './bill-settings-fields';
import { CreationProgress } from './creation-progress';

/** The figure typed, as gross pence (a net figure is grossed up ÷ 0.8), or null when it is not an amount. */
function toGrossPence(amount: string, basis: AmountBasis): number | null {
  const entered = findPence(amount.trim());
  if (entered === null || entered < 0) return null;
  return basis === 'net' ? getCisGrossFromNetPence(entered) : entered;
}

/**
 * Create CIS Bills (docs/product/features.md §2): the batch's settings, an entry row per bill, the bills
 * added so far, and "Create N Bill(s) in Xero". The form is react-hook-form's; the lists it picks from
 * (`useBillLists`) and the run that sends the batch (`useBillRun`) are hooks of their own.
 */
export function CreateBillsCard({ connection, orgId }: { connection: Connection; orgId: number }) {
  const formId = useId();
  const lists = useBillLists(orgId);
  const cisChecks = useCisContactChecks(orgId);
  const [bills, setBills] = useState<AddedBill[]>([]);
  const billRun = useBillRun({
    orgId,
    connection,
    onSettled: (results) => setBills((list) => keepUnsentBills(list, results)),
  });
  const isProcessing = billRun.isProcessing;
  // The default bill account by its name and code (issue 45 item 4); the spec's 8-character id stays beside it.
  const defaultAccount = lists.accounts.find((a) => a.id === connection.defaultBillAccountId);

  const form = useForm<BillForm>({ defaultValues: createBillForm(getUkToday()) });
  const [accountCode, contactId, amount, basis] = useWatch({
    control: form.control,
    name: ['accountCode', 'contactId', 'amount', 'basis'],
  });
  /** Once the user types a reference, a new bill date no longer rewrites it. */
  const referenceEdited = useRef(false);

  const contactById = useMemo(() => new Map(lists.contacts.map((c) => [c.id, c])), [lists.contacts]);
  const selectedContact = contactById.get(contactId);
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

  // Preselect the saved default bill account once the accounts are known.
  const defaultAccountCode = lists.accounts.find((a) => a.id === connection.defaultBillAccountId)?.code ?? '';
  const { setValue } = form;
  useEffect(() => {
    if (accountCode === '' && defaultAccountCode !== '') setValue('accountCode', defaultAccountCode);
  }, [accountCode, defaultAccountCode, setValue]);

  const typedGross = toGrossPence(amount, basis);
  const preview = typedGross === null ? null : splitCisTotal(typedGross);

  function followDate(date: string) {
    if (!referenceEdited.current && isIsoDate(date)) setValue('reference', getDefaultBillReference(date));
  }

  function convert() {
    const result = convertCisAmount(amount, basis === 'gross' ? 'to-net' : 'to-gross');
    if (!result) return;
    setValue('amount', result.amount);
    setValue('basis', basis === 'gross' ? 'net' : 'gross');
    toast({ title: result.title, description: result.description, variant: 'info' });
  }

  function addBill() {
    const { date, reference, contactId, amount, accountCode, basis } = form.getValues();
    const problem = validateBillEntry({ contactId, amount, accountCode, contacts: lists.contacts });
    if (problem) return showMessage(problem);
    if (!isIsoDate(date))
      return showMessage({ title: 'Missing information', description: 'Please select a bill date' });
    // The server refuses the same (issue 28): a year typed as 9999 is a slip, not a bill for Xero.
    if (!isDocumentDate(date))
      return showMessage({ title: 'Invalid date', description: DOCUMENT_DATE_RANGE_MESSAGE });
    const contact = contactById.get(contactId);
    const grossPence = toGrossPence(amount, basis);
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
    setValue('contactId', '');
    setValue('amount', '');
    setValue('basis', 'gross');
  }

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle>Create CIS Bills</CardTitle>
          <CardDescription>
            Bills for subcontractors with the 20% CIS deduction and the 80% amount due.
            {connection.defaultBillAccountId ? (
              <span className="mt-1 block">
                Default bill account: {defaultAccount ? getAccountLabel(defaultAccount) : null}{' '}
                <span className="font-mono text-xs">
                  {getAccountIdPreview(connection.defaultBillAccountId)}
                </span>
              </span>
            ) : null}
          </CardDescription>
        </div>
        <Button variant="outline" size="sm" onClick={lists.refreshAccounts} disabled={lists.isAccountsBusy}>
          {lists.isAccountsBusy ? (
            <Spinner className="size-4" label="Refreshing accounts" />
          ) : (
            <RefreshCw aria-hidden />
          )}
          Refresh Accounts
        </Button>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-5">
        <BillSettingsFields
          formId={formId}
          form={form}
          onDateChange={followDate}
          onReferenceEdit={() => (referenceEdited.current = true)}
          accounts={lists.accounts}
          isLoadingAccounts={lists.isLoadingAccounts}
          isAccountsError={lists.isAccountsError}
          onRefreshAccounts={lists.refreshAccounts}
          disabled={isProcessing}
        />
        <BillEntryRow
          formId={formId}
          form={form}
          contacts={lists.contacts}
          selectedContact={selectedContact}
          isLoadingContacts={lists.isLoadingContacts}
          isRefreshingContacts={lists.isRefreshingContacts}
          onRefreshContacts={lists.refreshContacts}
          cisChecks={cisChecks}
          preview={preview}
          onConvert={convert}
          onAdd={addBill}
          disabled={isProcessing}
        />
        <AddedBillsTable
          bills={bills}
          isCisVerified={isBillCisVerified}
          uncheckedIds={cisChecks.failedIds}
          onRemove={(id) => setBills((list) => list.filter((b) => b.id !== id))}
          disabled={isProcessing}
        />
        <UnverifiedBillsAlert bills={bills.filter((b) => isBillCisVerified(b) === false)} />

        {billRun.run ? <CreationProgress run={billRun.run} onDismiss={billRun.dismiss} /> : null}

        <div className="flex justify-end">
          <Button
            size="lg"
            className="w-full sm:w-auto"
            onClick={() => void billRun.send(bills, form.getValues('createAsDraft'))}
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
