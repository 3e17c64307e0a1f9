import { RefreshCw, Send } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { getCisGrossFromNetPence, type CisRate } from '@/shared/cis';
import {
  convertCisAmount,
  createLocalBill,
  getDefaultBillReference,
  isCisChecked,
  NO_DEDUCTION_ACCOUNT_MESSAGE,
  validateBillEntry,
} from '@/shared/cis-bills';
import { DOCUMENT_DATE_RANGE_MESSAGE, getUkToday, isDocumentDate, isIsoDate } from '@/shared/dates';
import { findPence } from '@/shared/money';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { getAccountIdPreview, getAccountLabel } from '@/client/lib/account-labels';
import type { Connection } from '@/client/lib/connection';
import { useSubcontractorStatuses } from '@/client/lib/hmrc';
import { newIdempotencyKey } from '@/client/lib/idempotency';
import { toast } from '@/client/lib/toast';
import { useCisBillSetup } from '../api/get-cis-bill-setup';
import { useBillLists } from '../hooks/use-bill-lists';
import { showMessage, useBillRun } from '../hooks/use-bill-run';
import { useCisContactChecks } from '../hooks/use-cis-contact-checks';
import { createBillForm, type AmountBasis, type BillForm } from '../utils/bill-form';
import { getContactTax, previewBill, type ContactTax } from '../utils/bill-entry';
import { keepUnsentBills, type AddedBill } from '../utils/bill-run';
import { getCreateBillsButtonLabel } from '../utils/messages';
import { AddedBillsTable, UnverifiedBillsAlert } from './added-bills-table';
import { BillEntryRow } from './bill-entry-row';
import { BillSettingsFields } from './bill-settings-fields';
import { CisSetupNotice } from './cis-setup-notice';
import { CreationProgress } from './creation-progress';

/**
 * The labour typed, as gross pence (a net figure is grossed up at the subcontractor's rate: ÷ 0.8 at 20 %), or
 * null when it is not an amount.
 */
function toGrossPence(amount: string, basis: AmountBasis, rate: CisRate): number | null {
  const entered = findPence(amount.trim());
  if (entered === null || entered < 0) return null;
  return basis === 'net' ? getCisGrossFromNetPence(entered, rate) : entered;
}

/** The row before a subcontractor is chosen: docs/product/features.md §9's 20 % on a bill without VAT. */
const SPEC_CASE: ContactTax = {
  state: 'cis',
  rate: 20,
  vatTreatment: 'none',
  vatPercent: 0,
  vatShownPercent: 0,
};

/** The materials typed in pence: 0 when left empty (or not an amount: Add says why). */
function toMaterialsPence(materials: string): number {
  const pence = findPence(materials.trim());
  return pence !== null && pence > 0 ? pence : 0;
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

  const setup = useCisBillSetup(orgId);
  const form = useForm<BillForm>({ defaultValues: createBillForm(getUkToday()) });
  const [accountCode, contactId, amount, basis, materials, materialsAccountCode] = useWatch({
    control: form.control,
    name: ['accountCode', 'contactId', 'amount', 'basis', 'materials', 'materialsAccountCode'],
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

  // Issue 42: the subcontractor's own rate and VAT, and the materials beside the labour.
  const tax = getContactTax(selectedContact, setup.data);
  // Issue 43: HMRC's rule for the picked subcontractor (the same list the verification card reads: one request).
  const statuses = useSubcontractorStatuses(orgId);
  const verificationStatus = selectedContact
    ? statuses.data?.subcontractors.find(
        (s) => s.contactId.toLowerCase() === selectedContact.id.toLowerCase(),
      )
    : undefined;
  const rowRate: CisRate = tax.rate ?? (tax.state === 'not-cis' ? 0 : 20);
  const materialsAccounts = setup.data?.materialsAccounts ?? [];
  const materialsCode = materialsAccountCode || materialsAccounts[0]?.code || '';
  const typedGross = toGrossPence(amount, basis, rowRate);
  // Before a subcontractor is chosen the row shows the spec's case: 20 %, no VAT.
  const preview = previewBill(selectedContact ? tax : SPEC_CASE, {
    labourPence: typedGross,
    materialsPence: toMaterialsPence(materials),
  });

  function followDate(date: string) {
    if (!referenceEdited.current && isIsoDate(date)) setValue('reference', getDefaultBillReference(date));
  }

  function convert() {
    const result = convertCisAmount(amount, basis === 'gross' ? 'to-net' : 'to-gross', rowRate);
    if (!result) return;
    setValue('amount', result.amount);
    setValue('basis', basis === 'gross' ? 'net' : 'gross');
    toast({ title: result.title, description: result.description, variant: 'info' });
  }

  function addBill() {
    const values = form.getValues();
    const { date, reference, contactId, amount, accountCode, basis } = values;
    const problem = validateBillEntry({
      contactId,
      amount,
      accountCode,
      contacts: lists.contacts,
      materials: values.materials,
      materialsAccountCode: materialsCode,
    });
    if (problem) return showMessage(problem);
    if (!isIsoDate(date))
      return showMessage({ title: 'Missing information', description: 'Please select a bill date' });
    // The server refuses the same (issue 28): a year typed as 9999 is a slip, not a bill for Xero.
    if (!isDocumentDate(date))
      return showMessage({ title: 'Invalid date', description: DOCUMENT_DATE_RANGE_MESSAGE });
    const contact = contactById.get(contactId);
    if (!contact) return;
    const contactTax = getContactTax(contact, setup.data);
    // Issue 42: the deduction follows the subcontractor's rate, so it is known before the bill is added.
    if (contactTax.state === 'checking')
      return showMessage(
        {
          title: 'Checking CIS settings',
          description: `Ledgerlink is reading ${contact.name}'s CIS settings from Xero: add the bill in a moment.`,
        },
        'warning',
      );
    if (contactTax.state === 'unknown')
      return showMessage({
        title: 'CIS Configuration Error',
        description: 'Please set up the CIS rate for this subcontractor in your Xero account.',
      });
    if (contactTax.state === 'not-cis' && !values.withoutCisDeduction)
      return showMessage({
        title: 'Not a CIS subcontractor',
        description: `${contact.name} is not a CIS subcontractor in Xero. Tick "No CIS deduction" if the work is outside CIS, or set up their CIS rate in Xero.`,
      });
    const grossPence = toGrossPence(amount, basis, contactTax.rate ?? 0);
    if (grossPence === null) return;
    const materialsPence = toMaterialsPence(values.materials);
    const bill = createLocalBill({
      id: newIdempotencyKey(),
      contactId: contact.id,
      contactName: contact.name,
      date,
      reference: reference.trim(),
      labourPence: grossPence,
      materialsPence,
      materialsAccountCode: materialsCode || null,
      accountCode,
      cisRate: contactTax.rate,
      vatTreatment: contactTax.vatTreatment,
      vatPercent: contactTax.vatPercent,
      withoutCisDeduction: contactTax.state === 'not-cis',
    });
    if (bill.cisDeduction > 0 && setup.data && !setup.data.deductionAccount)
      return showMessage({
        title: 'CIS deductions account needed',
        description: NO_DEDUCTION_ACCOUNT_MESSAGE,
      });
    setBills((list) => [
      ...list,
      { ...bill, attemptId: bill.id, cisVerified: isCisChecked(contact) ? contact.hasValidUTR : null },
    ]);
    setValue('contactId', '');
    setValue('amount', '');
    setValue('basis', 'gross');
    setValue('materials', '');
    setValue('withoutCisDeduction', false);
  }

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <CardTitle>Create CIS Bills</CardTitle>
          <CardDescription>
            Bills for subcontractors with the CIS deduction at each one's rate (20% for most) on the labour,
            not on VAT or materials, and the amount due.
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
        <CisSetupNotice setup={setup.data} orgId={orgId} />
        <BillSettingsFields
          formId={formId}
          form={form}
          onDateChange={followDate}
          onReferenceEdit={() => (referenceEdited.current = true)}
          accounts={lists.accounts}
          isLoadingAccounts={lists.isLoadingAccounts}
          isAccountsError={lists.isAccountsError}
          onRefreshAccounts={lists.refreshAccounts}
          materialsAccounts={materialsAccounts}
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
          tax={tax}
          verificationStatus={verificationStatus}
          hasMaterialsAccount={materialsCode !== ''}
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
