import { Controller, type UseFormReturn } from 'react-hook-form';
import type { CisBillSetup } from '@/shared/cis-bills';
import type { Account } from '@/shared/settings';
import { Checkbox } from '@/client/components/ui/checkbox';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import type { BillForm } from '../utils/bill-form';
import { AccountCodeSelect } from './account-code-select';

/**
 * What every bill of the batch shares: the bill date, the tax-week reference, the account, the materials
 * account when the CIS settings name more than one (issue 42), and draft or not.
 */
export function BillSettingsFields({
  formId,
  form,
  onDateChange,
  onReferenceEdit,
  accounts,
  isLoadingAccounts,
  isAccountsError,
  onRefreshAccounts,
  materialsAccounts,
  disabled,
}: {
  formId: string;
  form: UseFormReturn<BillForm>;
  onDateChange: (date: string) => void;
  onReferenceEdit: () => void;
  accounts: Account[];
  isLoadingAccounts: boolean;
  isAccountsError: boolean;
  onRefreshAccounts: () => void;
  /** The materials accounts of the CIS settings: the first is used unless another is chosen. */
  materialsAccounts: CisBillSetup['materialsAccounts'];
  disabled: boolean;
}) {
  return (
    <>
      <div className="grid gap-4 sm:grid-cols-3">
        <div className="grid content-start gap-1.5">
          <Label htmlFor={`${formId}-date`}>Bill Date</Label>
          <Input
            id={`${formId}-date`}
            type="date"
            {...form.register('date', { onChange: (e) => onDateChange(e.target.value) })}
            disabled={disabled}
          />
        </div>
        <div className="grid content-start gap-1.5">
          <Label htmlFor={`${formId}-reference`}>Reference Number</Label>
          <Input
            id={`${formId}-reference`}
            placeholder="0123"
            maxLength={255}
            {...form.register('reference', { onChange: onReferenceEdit })}
            aria-describedby={`${formId}-reference-hint`}
            disabled={disabled}
          />
          <p id={`${formId}-reference-hint`} className="text-[13px] text-muted-foreground">
            Tax week and year, from the bill date
          </p>
        </div>
        <div className="grid content-start gap-1.5">
          <Label htmlFor={`${formId}-account`}>Account Code</Label>
          <Controller
            control={form.control}
            name="accountCode"
            render={({ field }) => (
              <AccountCodeSelect
                id={`${formId}-account`}
                accounts={accounts}
                value={field.value}
                onChange={field.onChange}
                isLoading={isLoadingAccounts}
                isError={isAccountsError}
                onRefresh={onRefreshAccounts}
              />
            )}
          />
        </div>
      </div>

      {materialsAccounts.length > 1 ? (
        <div className="grid gap-1.5 sm:max-w-xs">
          <Label htmlFor={`${formId}-materials-account`}>Materials Account</Label>
          <Controller
            control={form.control}
            name="materialsAccountCode"
            render={({ field }) => (
              <Select
                value={field.value || materialsAccounts[0]?.code}
                onValueChange={field.onChange}
                disabled={disabled}
              >
                <SelectTrigger id={`${formId}-materials-account`}>
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  {materialsAccounts.map((a) => (
                    <SelectItem key={a.code} value={a.code}>
                      {a.name} ({a.code})
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
            )}
          />
        </div>
      ) : null}

      <div className="flex items-center gap-2">
        <Controller
          control={form.control}
          name="createAsDraft"
          render={({ field }) => (
            <Checkbox
              id={`${formId}-draft`}
              checked={field.value}
              onCheckedChange={(checked) => field.onChange(checked === true)}
              disabled={disabled}
            />
          )}
        />
        <Label htmlFor={`${formId}-draft`} className="font-normal">
          Create as draft bills (uncheck to approve immediately)
        </Label>
      </div>
    </>
  );
}
