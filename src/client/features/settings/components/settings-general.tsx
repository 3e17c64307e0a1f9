import { formatCount } from '@/shared/counts';
import { useQueryClient } from '@tanstack/react-query';
import { Building2, FilePlus2, HardHat, PackageOpen, ReceiptText, Save } from 'lucide-react';
import { Link, useSearch } from 'wouter';
import { PROVIDER_NAME } from '@/shared/connection';
import type { FeatureKey } from '@/shared/feature-flags';
import { formatMoney } from '@/shared/money';
import {
  MARGIN_RATE_STEP,
  MIN_MARGIN_RATE,
  POSTING_STATUSES,
  SETTING_FIELD_LABELS,
  TAX_STATUSES,
  toConnectionDefaults,
  type Account,
  type PostingStatus,
  type TaxStatus,
  type VatRate,
} from '@/shared/settings';
import { getJournalAmountPence } from '@/shared/stock-journal';
import { paths } from '@/client/config/paths';
import { getAccountLabel } from '@/client/lib/account-labels';
import { getMessage } from '@/client/lib/api-client';
import type { Connection } from '@/client/lib/connection';
import { toast } from '@/client/lib/toast';
import { useUnsavedChangesWarning } from '@/client/lib/unsaved-changes';
import { sleep } from '@/client/lib/utils';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent } from '@/client/components/ui/card';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { PageSpinner, Spinner } from '@/client/components/ui/spinner';
import { useEffect, useState } from 'react';
import { getAssetAccounts, useAssetAccounts } from '../api/get-asset-accounts';
import { getBankAccounts, useBankAccounts } from '../api/get-bank-accounts';
import { getBillAccounts, useBillAccounts } from '../api/get-bill-accounts';
import { getContactGroups, useContactGroups } from '../api/get-contact-groups';
import { getContacts } from '../api/get-contacts';
import { getCostAccounts, useCostAccounts } from '../api/get-cost-accounts';
import { getSalesAccounts, useSalesAccounts } from '../api/get-sales-accounts';
import { getVatRates, useVatRates } from '../api/get-vat-rates';
import { settingsKeys } from '../api/query-keys';
import { useUpdateSettings } from '../api/update-settings';
import {
  findFieldOfMessage,
  toSettingsRequest,
  useSettingsForm,
  type SettingsField,
} from '../hooks/use-settings-form';
import { ContactSelect } from './contact-select';
import { FeatureCard } from './feature-card';
import { MaintenanceCard } from './maintenance-card';
import { ReferenceSelect, type SelectOption } from './reference-select';

/**
 * A refresh spinner stays at least 500 ms, so a quick answer still reads as "done"
 * (docs/product/shell.md §9).
 */
export const REFRESH_SPINNER_MS = 500;

const POSTING_LABELS: Record<PostingStatus, string> = { draft: 'Draft', posted: 'Posted' };

const accountOptions = (accounts: readonly Account[] | undefined): SelectOption[] =>
  (accounts ?? []).map((a) => ({ value: a.id, label: getAccountLabel(a) }));

const vatOptions = (rates: readonly VatRate[] | undefined, use: 'revenue' | 'expenses'): SelectOption[] =>
  (rates ?? [])
    .filter((r) => (use === 'revenue' ? r.canApplyToRevenue !== false : r.canApplyToExpenses !== false))
    .map((r) => ({ value: r.id, label: r.name.includes('%') ? r.name : `${r.name} (${r.rate}%)` }));

export interface SettingsGeneralProps {
  connection: Connection | undefined;
  isLoading: boolean;
  flags: Record<FeatureKey, boolean>;
}

/**
 * The General tab (docs/product/shell.md §2 Settings page): spinner, the no-connection state, or the five
 * cards.
 */
export function SettingsGeneral({ connection, isLoading, flags }: SettingsGeneralProps) {
  if (isLoading || !connection) return <PageSpinner label="Loading settings" />;
  if (
    !connection.connected ||
    connection.organizationId === undefined ||
    connection.organizationId === null
  ) {
    return (
      <Card>
        <CardContent className="flex flex-col items-center gap-3 py-12 text-center">
          <span className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <Building2 aria-hidden className="size-6" />
          </span>
          <p className="font-medium">No active {PROVIDER_NAME} connection found</p>
          <p className="max-w-sm text-sm text-muted-foreground">
            Choose the organization whose defaults you want to change.
          </p>
          <Button asChild>
            <Link href={paths.organizations.getHref()}>Select Organization</Link>
          </Button>
        </CardContent>
      </Card>
    );
  }
  return (
    <SettingsForm
      key={connection.organizationId}
      connection={connection}
      orgId={connection.organizationId}
      flags={flags}
    />
  );
}

type RefreshKey = 'pay-invoices' | 'add-invoices' | 'cis-bills' | 'stock-journal';

function SettingsForm({
  connection,
  orgId,
  flags,
}: {
  connection: Connection;
  orgId: number;
  flags: Record<FeatureKey, boolean>;
}) {
  const queryClient = useQueryClient();
  const form = useSettingsForm(toConnectionDefaults(connection));
  const save = useUpdateSettings(orgId);
  const [refreshing, setRefreshing] = useState<RefreshKey | null>(null);
  // `?field=` (a screen's "Choose the … in Settings" link, issue 33): that field in view, focused and ringed.
  const targetField = new URLSearchParams(useSearch()).get('field');
  useEffect(() => {
    if (!targetField) return;
    const wrapper = document.querySelector(`[data-field="${CSS.escape(targetField)}"]`);
    if (!wrapper) return;
    wrapper.scrollIntoView?.({ block: 'center' });
    wrapper.querySelector<HTMLElement>('button, input')?.focus({ preventScroll: true });
  }, [targetField]);

  const bank = useBankAccounts(orgId);
  const sales = useSalesAccounts(orgId);
  const vat = useVatRates(orgId);
  const bill = useBillAccounts(orgId);
  const groups = useContactGroups(orgId);
  // The stock journal account sections load only when that feature is on (docs/product/shell.md §2).
  const asset = useAssetAccounts(orgId, { enabled: flags['stock-journal'] });
  const cost = useCostAccounts(orgId, { enabled: flags['stock-journal'] });

  const errorOf = (field: SettingsField) =>
    form.fieldError?.field === field ? form.fieldError.message : undefined;

  async function refresh(key: RefreshKey, work: () => Promise<string>) {
    setRefreshing(key);
    try {
      const [description] = await Promise.all([work(), sleep(REFRESH_SPINNER_MS)]);
      toast(
        key === 'pay-invoices'
          ? { title: 'Bank Accounts Refreshed', description, variant: 'success' }
          : { title: 'Cache Refreshed', description, variant: 'success' },
      );
    } catch (error) {
      toast({
        title: 'Refresh Error',
        description:
          key === 'pay-invoices'
            ? `Failed to refresh bank accounts: ${getMessage(error, 'unknown error')}`
            : getMessage(error, `Could not refresh from ${PROVIDER_NAME}`),
        variant: 'destructive',
      });
    } finally {
      setRefreshing(null);
    }
  }

  async function refreshContacts() {
    await getContacts(orgId, { refresh: true });
    await queryClient.invalidateQueries({ queryKey: [...settingsKeys.all(orgId), 'contacts'] });
  }

  const refreshBank = () =>
    refresh('pay-invoices', async () => {
      const data = await getBankAccounts(orgId, true);
      queryClient.setQueryData(settingsKeys.list(orgId, 'bank-accounts'), data);
      return `${data.creditCardAccounts.length} card and ${formatCount(data.cashAccounts.length, 'cash account')} loaded from ${PROVIDER_NAME}.`;
    });
  const refreshAddInvoices = () =>
    refresh('add-invoices', async () => {
      const [s, v] = await Promise.all([
        getSalesAccounts(orgId, true),
        getVatRates(orgId, true),
        refreshContacts(),
      ]);
      queryClient.setQueryData(settingsKeys.list(orgId, 'sales-accounts'), s);
      queryClient.setQueryData(settingsKeys.list(orgId, 'vat-rates'), v);
      return `${formatCount(s.length, 'sales account')}, ${formatCount(v.length, 'VAT rate')} and the contacts are up to date.`;
    });
  const refreshCis = () =>
    refresh('cis-bills', async () => {
      const [b, v, g] = await Promise.all([
        getBillAccounts(orgId, true),
        getVatRates(orgId, true),
        getContactGroups(orgId, true),
      ]);
      queryClient.setQueryData(settingsKeys.list(orgId, 'bill-accounts'), b);
      queryClient.setQueryData(settingsKeys.list(orgId, 'vat-rates'), v);
      queryClient.setQueryData(settingsKeys.list(orgId, 'contact-groups'), g);
      return `${formatCount(b.length, 'bill account')}, ${formatCount(v.length, 'VAT rate')} and ${formatCount(g.length, 'contact group')} are up to date.`;
    });
  const refreshStock = () =>
    refresh('stock-journal', async () => {
      const [a, c] = await Promise.all([
        getAssetAccounts(orgId, true),
        getCostAccounts(orgId, true),
        refreshContacts(),
      ]);
      queryClient.setQueryData(settingsKeys.list(orgId, 'asset-accounts'), a);
      queryClient.setQueryData(settingsKeys.list(orgId, 'cost-accounts'), c);
      return `${formatCount(a.length, 'stock account')}, ${formatCount(c.length, 'cost account')} and the contacts are up to date.`;
    });

  useUnsavedChangesWarning(form.dirty);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    // A margin below the minimum is refused with the rule, not saved as 1 without a word (issue 17 item 11).
    const typedMargin = Number(form.values.marginText.trim());
    if (
      form.values.marginText.trim() !== '' &&
      Number.isFinite(typedMargin) &&
      typedMargin < MIN_MARGIN_RATE
    ) {
      const message = `Margin rate must be at least ${MIN_MARGIN_RATE}`;
      form.setFieldError({ field: 'defaultStockJournalMarginRate', message });
      toast({ title: 'Error', description: `Failed to save settings. ${message}.`, variant: 'destructive' });
      return;
    }
    save.mutate(toSettingsRequest(form.values), {
      onSuccess: (saved) => {
        form.markSaved(saved);
        toast({
          title: 'Settings Saved',
          description: 'Your settings have been updated successfully.',
          variant: 'success',
        });
      },
      onError: (error) => {
        const message = getMessage(error, '');
        const field = message ? findFieldOfMessage(message) : null;
        if (field) form.setFieldError({ field, message });
        toast({
          title: 'Error',
          description: message ? `Failed to save settings. ${message}` : 'Failed to save settings',
          variant: 'destructive',
        });
      },
    });
  }

  const anyRefreshing = refreshing !== null;
  const idSelect = (
    field: Parameters<typeof form.setId>[0],
    options: SelectOption[],
    loading: boolean,
    noun: string,
    enabled: boolean,
    hint?: string,
  ) => (
    <FormField
      label={SETTING_FIELD_LABELS[field]}
      error={errorOf(field)}
      {...(hint ? { hint } : {})}
      name={field}
      highlighted={field === targetField}
    >
      <ReferenceSelect
        value={form.values.ids[field]}
        options={options}
        onChange={(v) => form.setId(field, v)}
        loading={loading}
        noun={noun}
        disabled={!enabled}
      />
    </FormField>
  );
  const contactSelect = (
    field: 'defaultContactId' | 'defaultStockJournalContactId',
    enabled: boolean,
    hint: string,
  ) => (
    <FormField
      label={SETTING_FIELD_LABELS[field]}
      error={errorOf(field)}
      hint={hint}
      name={field}
      highlighted={field === targetField}
    >
      <ContactSelect
        orgId={orgId}
        value={form.values.ids[field]}
        onChange={(v) => form.setId(field, v)}
        disabled={!enabled}
      />
    </FormField>
  );
  const example = getJournalAmountPence(10_000, form.editingMarginRate);

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-5">
      <div className="grid grid-cols-1 gap-5 lg:grid-cols-2">
        <FeatureCard
          title="Pay Invoices"
          description="Where card and cash payments of sales invoices are recorded."
          icon={ReceiptText}
          enabled={flags['pay-invoices']}
          refreshLabel="Refresh Accounts"
          onRefresh={refreshBank}
          refreshing={refreshing === 'pay-invoices'}
          loading={bank.isLoading || anyRefreshing}
        >
          {idSelect(
            'defaultCreditCardAccountId',
            (bank.data?.creditCardAccounts ?? []).map((a) => ({ value: a.accountId, label: a.name })),
            bank.isLoading,
            'account',
            flags['pay-invoices'],
          )}
          {idSelect(
            'defaultCashAccountId',
            (bank.data?.cashAccounts ?? []).map((a) => ({ value: a.accountId, label: a.name })),
            bank.isLoading,
            'account',
            flags['pay-invoices'],
          )}
        </FeatureCard>

        <FeatureCard
          title="Add Invoices"
          description="How new cash-sale invoices are coded."
          icon={FilePlus2}
          enabled={flags['add-invoices']}
          refreshLabel="Refresh Settings"
          onRefresh={refreshAddInvoices}
          refreshing={refreshing === 'add-invoices'}
          loading={sales.isLoading || vat.isLoading || anyRefreshing}
        >
          {idSelect(
            'defaultSalesAccountId',
            accountOptions(sales.data),
            sales.isLoading,
            'account',
            flags['add-invoices'],
          )}
          {idSelect(
            'defaultVatRateId',
            vatOptions(vat.data, 'revenue'),
            vat.isLoading,
            'VAT rate',
            flags['add-invoices'],
          )}
          {contactSelect(
            'defaultContactId',
            flags['add-invoices'],
            'New invoices are raised to this customer.',
          )}
          <FormField label={SETTING_FIELD_LABELS.defaultTaxStatus} error={errorOf('defaultTaxStatus')}>
            <ReferenceSelect
              value={form.values.taxStatus}
              options={TAX_STATUSES.map((s) => ({ value: s, label: s }))}
              onChange={(v) => form.setTaxStatus(v as TaxStatus)}
              noun="tax status"
              allowNone={false}
              disabled={!flags['add-invoices']}
            />
          </FormField>
        </FeatureCard>

        <FeatureCard
          title="CIS Bills"
          description="How subcontractor bills are coded and who counts as a subcontractor."
          icon={HardHat}
          enabled={flags['cis-bills']}
          refreshLabel="Refresh CIS Settings"
          onRefresh={refreshCis}
          refreshing={refreshing === 'cis-bills'}
          loading={bill.isLoading || vat.isLoading || groups.isLoading || anyRefreshing}
        >
          {idSelect(
            'defaultBillAccountId',
            accountOptions(bill.data),
            bill.isLoading,
            'account',
            flags['cis-bills'],
            'A direct costs account, used when bills are approved.',
          )}
          {idSelect(
            'defaultBillVatRateId',
            vatOptions(vat.data, 'expenses'),
            vat.isLoading,
            'VAT rate',
            flags['cis-bills'],
            // Issue 42: a CIS bill's VAT follows the subcontractor; this rate is only the fallback.
            'Used on CIS bills from VAT-registered subcontractors whose Xero contact names no purchases VAT rate. Those without a VAT number are billed without VAT.',
          )}
          {idSelect(
            'defaultCisSubcontractorsGroupId',
            (groups.data ?? []).map((g) => ({ value: g.id, label: g.name })),
            groups.isLoading,
            'contact group',
            flags['cis-bills'],
            'Subcontractors are taken from this contact group.',
          )}
        </FeatureCard>

        <FeatureCard
          title="Stock Journal"
          description="The weekly journal that moves the cost of goods sold out of stock."
          icon={PackageOpen}
          enabled={flags['stock-journal']}
          refreshLabel="Refresh Accounts"
          onRefresh={refreshStock}
          refreshing={refreshing === 'stock-journal'}
          loading={(flags['stock-journal'] && (asset.isLoading || cost.isLoading)) || anyRefreshing}
        >
          {contactSelect(
            'defaultStockJournalContactId',
            flags['stock-journal'],
            'Sales of this customer feed the journal.',
          )}
          <FormField
            label={SETTING_FIELD_LABELS.defaultStockJournalMarginRate}
            error={errorOf('defaultStockJournalMarginRate')}
            hint={`Cost = net sales ÷ margin rate. £100.00 of net sales posts ${example === null ? '–' : formatMoney(example)}.`}
          >
            <Input
              type="number"
              inputMode="decimal"
              min={MIN_MARGIN_RATE}
              step={MARGIN_RATE_STEP}
              value={form.values.marginText}
              onChange={(event) => form.setMarginText(event.target.value)}
              disabled={!flags['stock-journal']}
            />
          </FormField>
          {idSelect(
            'defaultStockJournalStockAccountId',
            accountOptions(asset.data),
            flags['stock-journal'] && asset.isLoading,
            'account',
            flags['stock-journal'],
            'Credited: the stock leaves this account.',
          )}
          {idSelect(
            'defaultStockJournalCostAccountId',
            accountOptions(cost.data),
            flags['stock-journal'] && cost.isLoading,
            'account',
            flags['stock-journal'],
            'Debited: the cost of goods sold.',
          )}
          <FormField
            label={SETTING_FIELD_LABELS.defaultStockJournalPostingStatus}
            error={errorOf('defaultStockJournalPostingStatus')}
          >
            <ReferenceSelect
              value={form.values.postingStatus}
              options={POSTING_STATUSES.map((s) => ({ value: s, label: POSTING_LABELS[s] }))}
              onChange={(v) => form.setPostingStatus(v as PostingStatus)}
              noun="posting status"
              allowNone={false}
              disabled={!flags['stock-journal']}
            />
          </FormField>
        </FeatureCard>
      </div>

      <MaintenanceCard orgId={orgId} />

      <div className="sticky bottom-0 z-10 -mx-1 flex flex-col items-stretch gap-2 border-t border-border bg-background/95 px-1 py-3 backdrop-blur sm:flex-row sm:items-center sm:justify-end">
        {form.dirty ? (
          <p className="text-sm text-muted-foreground sm:mr-auto">You have unsaved changes.</p>
        ) : null}
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? (
            <Spinner className="size-4 text-current" label="Saving settings" />
          ) : (
            <Save aria-hidden />
          )}
          Save Settings
        </Button>
      </div>
    </form>
  );
}
