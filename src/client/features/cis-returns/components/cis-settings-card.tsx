import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useSearch } from 'wouter';
import { CIS_SETTINGS_FIELDS } from '@/shared/cis-bills';
import { cisSettingsRequestSchema, FILED_UNDER_LOCKED_HINT, type CisSettings } from '@/shared/cis-returns';
import { accountSchema } from '@/shared/settings';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Checkbox } from '@/client/components/ui/checkbox';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/client/components/ui/select';
import { Spinner } from '@/client/components/ui/spinner';
import { Switch } from '@/client/components/ui/switch';
import { api, getMessage } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { toast } from '@/client/lib/toast';
import { cisReturnsKeys } from '../api/query-keys';
import { useCisSettings, useUpdateCisSettings } from '../api/settings';

type Field =
  | 'contractorName'
  | 'utr'
  | 'employerReference'
  | 'accountsOfficeReference'
  | 'materialsAccountCodes'
  | 'deductionAccountCode';

/** A reference shown read-only to a member: it looks set, not editable. */
const LOCKED_INPUT = 'bg-muted text-foreground';

/** Radix's Select has no empty value: this one stands for "no deductions account chosen". */
const NO_ACCOUNT = '__none__';

/** The bill accounts a materials line may be on (GET /api/xero/direct-costs-accounts). */
function useBillAccounts(orgId: number) {
  return useQuery({
    queryKey: [...cisReturnsKeys.settings(orgId), 'accounts'],
    queryFn: () =>
      api.get(orgUrl('/api/xero/direct-costs-accounts', orgId), { schema: accountSchema.array() }),
  });
}

/**
 * The accounts that can hold CIS deductions (GET /api/xero/cis-deduction-accounts, issue 42): ordinary
 * liability accounts; Xero's API refuses its CIS Liability system account on a bill line.
 */
function useDeductionAccounts(orgId: number) {
  return useQuery({
    queryKey: [...cisReturnsKeys.settings(orgId), 'deduction-accounts'],
    queryFn: () =>
      api.get(orgUrl('/api/xero/cis-deduction-accounts', orgId), { schema: accountSchema.array() }),
  });
}

/**
 * `?field=` (CIS Bills' "Choose … in Settings" links, issue 42): that field in view, focused and ringed, once
 * the card has loaded.
 */
function useLinkedField(): string | null {
  const field = new URLSearchParams(useSearch()).get('field');
  const known = Object.values(CIS_SETTINGS_FIELDS) as string[];
  const target = field && known.includes(field) ? field : null;
  useEffect(() => {
    if (!target) return;
    const wrapper = document.querySelector(`[data-field="${CSS.escape(target)}"]`);
    if (!wrapper) return;
    wrapper.scrollIntoView?.({ block: 'center' });
    wrapper.querySelector<HTMLElement>('button, input')?.focus({ preventScroll: true });
  }, [target]);
  return target;
}

function SettingsForm({ orgId, settings }: { orgId: number; settings: CisSettings }) {
  const accounts = useBillAccounts(orgId);
  const deductionAccounts = useDeductionAccounts(orgId);
  const linkedField = useLinkedField();
  const [deductionAccountCode, setDeductionAccountCode] = useState(settings.deductionAccountCode ?? '');
  const [reverseCharge, setReverseCharge] = useState(settings.reverseCharge);
  const save = useUpdateCisSettings(orgId);
  const [values, setValues] = useState({
    contractorName: settings.contractorName ?? '',
    utr: settings.utr ?? '',
    employerReference: settings.employerReference ?? '',
    accountsOfficeReference: settings.accountsOfficeReference ?? '',
  });
  const [materials, setMaterials] = useState<string[]>(settings.materialsAccountCodes);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  useEffect(() => setMaterials(settings.materialsAccountCodes), [settings.materialsAccountCodes]);

  const set = (field: keyof typeof values) => (event: { target: { value: string } }) =>
    setValues((v) => ({ ...v, [field]: event.target.value }));
  // Returns are filed under these: once set, a member sees them read-only and only an administrator changes
  // them (FILED_UNDER_FIELDS; the server refuses a member's change with 403).
  const lockedOf = (value: string | null) => !settings.canChangeFiledUnder && value !== null;
  const locked = {
    utr: lockedOf(settings.utr),
    employerReference: lockedOf(settings.employerReference),
    accountsOfficeReference: lockedOf(settings.accountsOfficeReference),
    deductionAccountCode: lockedOf(settings.deductionAccountCode),
  };
  const anyLocked = Object.values(locked).some(Boolean);

  function submit(event: FormEvent) {
    event.preventDefault();
    const request = {
      ...values,
      materialsAccountCodes: materials,
      deductionAccountCode: deductionAccountCode || null,
      reverseCharge,
    };
    const parsed = cisSettingsRequestSchema.safeParse(request);
    if (!parsed.success) {
      const found: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0] as Field;
        if (!found[key]) found[key] = issue.message;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    save.mutate(request, {
      onSuccess: () => toast({ title: 'CIS settings saved', variant: 'success' }),
      onError: (error) =>
        toast({
          title: 'Could not save',
          description: getMessage(error, 'Please try again'),
          variant: 'destructive',
        }),
    });
  }

  return (
    <form className="grid gap-4" onSubmit={submit} noValidate>
      {anyLocked ? (
        <p className="text-sm text-muted-foreground" data-testid="cis-settings-locked">
          Your returns are filed under the references set here: only an administrator can change them. Ask an
          administrator if one is wrong.
        </p>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField
          label="Contractor's name on statements"
          error={errors.contractorName}
          hint={`Empty: ${settings.defaultContractorName}`}
        >
          <Input
            value={values.contractorName}
            onChange={set('contractorName')}
            placeholder={settings.defaultContractorName}
          />
        </FormField>
        <FormField
          label="Contractor's UTR"
          error={errors.utr}
          hint={locked.utr ? FILED_UNDER_LOCKED_HINT : '10 digits'}
        >
          <Input
            value={values.utr}
            onChange={set('utr')}
            inputMode="numeric"
            autoComplete="off"
            readOnly={locked.utr}
            className={locked.utr ? LOCKED_INPUT : undefined}
          />
        </FormField>
        <FormField
          label="Employer reference"
          error={errors.employerReference}
          hint={locked.employerReference ? FILED_UNDER_LOCKED_HINT : 'Like 123/AB45678'}
        >
          <Input
            value={values.employerReference}
            onChange={set('employerReference')}
            autoComplete="off"
            readOnly={locked.employerReference}
            className={locked.employerReference ? LOCKED_INPUT : undefined}
          />
        </FormField>
        <FormField
          label="Accounts office reference"
          error={errors.accountsOfficeReference}
          hint={
            locked.accountsOfficeReference ? FILED_UNDER_LOCKED_HINT : '13 characters, like 123PA00012345'
          }
        >
          <Input
            value={values.accountsOfficeReference}
            onChange={set('accountsOfficeReference')}
            autoComplete="off"
            readOnly={locked.accountsOfficeReference}
            className={locked.accountsOfficeReference ? LOCKED_INPUT : undefined}
          />
        </FormField>
      </div>
      <div
        className={
          linkedField === CIS_SETTINGS_FIELDS.deductionAccount
            ? 'grid gap-1.5 rounded-lg ring-2 ring-primary ring-offset-4 ring-offset-card sm:max-w-md'
            : 'grid gap-1.5 sm:max-w-md'
        }
        data-field={CIS_SETTINGS_FIELDS.deductionAccount}
      >
        <Label htmlFor={`cis-deduction-account-${orgId}`}>CIS deductions account</Label>
        <Select
          value={deductionAccountCode || NO_ACCOUNT}
          onValueChange={(value) => setDeductionAccountCode(value === NO_ACCOUNT ? '' : value)}
          disabled={locked.deductionAccountCode}
        >
          <SelectTrigger
            id={`cis-deduction-account-${orgId}`}
            aria-describedby={`cis-deduction-account-${orgId}-hint`}
            aria-invalid={errors.deductionAccountCode ? true : undefined}
          >
            <SelectValue />
          </SelectTrigger>
          <SelectContent>
            <SelectItem value={NO_ACCOUNT}>None chosen</SelectItem>
            {(deductionAccounts.data ?? []).map((a) => (
              <SelectItem key={a.id} value={a.code}>
                {a.name} ({a.code})
              </SelectItem>
            ))}
            {deductionAccountCode &&
            !(deductionAccounts.data ?? []).some((a) => a.code === deductionAccountCode) ? (
              <SelectItem value={deductionAccountCode}>{deductionAccountCode}</SelectItem>
            ) : null}
          </SelectContent>
        </Select>
        <p id={`cis-deduction-account-${orgId}-hint`} className="text-[13px] text-muted-foreground">
          {locked.deductionAccountCode ? `${FILED_UNDER_LOCKED_HINT}. ` : null}An ordinary liability account,
          such as CIS Deductions Payable. Each bill books its CIS deduction to it as a line of its own, so
          paying the subcontractor the net marks the bill Paid; the month's deductions wait there until you
          pay HMRC. Xero's own CIS Liability account cannot be used: Xero's API refuses it.
        </p>
        {errors.deductionAccountCode ? (
          <p className="text-sm text-destructive">{errors.deductionAccountCode}</p>
        ) : null}
      </div>
      <div
        className={
          linkedField === CIS_SETTINGS_FIELDS.reverseCharge
            ? 'grid gap-1.5 rounded-lg ring-2 ring-primary ring-offset-4 ring-offset-card'
            : 'grid gap-1.5'
        }
        data-field={CIS_SETTINGS_FIELDS.reverseCharge}
      >
        <div className="flex items-center gap-2">
          <Switch
            id={`cis-reverse-charge-${orgId}`}
            checked={reverseCharge}
            onCheckedChange={setReverseCharge}
            aria-describedby={`cis-reverse-charge-${orgId}-hint`}
          />
          <Label htmlFor={`cis-reverse-charge-${orgId}`}>VAT domestic reverse charge</Label>
        </div>
        <p id={`cis-reverse-charge-${orgId}-hint`} className="text-[13px] text-muted-foreground">
          On: bills from VAT-registered subcontractors carry Xero's Domestic Reverse Charge rate (DRCHARGE20).
          No VAT is paid to them; you account for it on your VAT return. Off: they carry the VAT they charge.
          Subcontractors without a VAT number never carry VAT.
        </p>
      </div>
      <fieldset
        className={
          linkedField === CIS_SETTINGS_FIELDS.materialsAccounts
            ? 'grid gap-2 rounded-lg ring-2 ring-primary ring-offset-4 ring-offset-card'
            : 'grid gap-2'
        }
        data-field={CIS_SETTINGS_FIELDS.materialsAccounts}
      >
        <legend className="text-sm font-medium">Materials accounts</legend>
        <p className="text-sm text-muted-foreground">
          Bill lines on these accounts count as materials: no CIS deduction applies to them. A bill's
          materials go on the first one chosen (CIS Bills offers the others). Lines on Xero's CIS Materials
          account always count.
        </p>
        {accounts.isLoading ? (
          <Spinner />
        ) : (
          <ul className="grid gap-1 sm:grid-cols-2">
            {(accounts.data ?? []).map((a) => {
              const id = `materials-${a.id}`;
              return (
                <li key={a.id} className="flex items-center gap-2">
                  <Checkbox
                    id={id}
                    checked={materials.includes(a.code)}
                    onCheckedChange={(checked) =>
                      setMaterials((list) =>
                        checked === true ? [...new Set([...list, a.code])] : list.filter((c) => c !== a.code),
                      )
                    }
                  />
                  <Label htmlFor={id} className="font-normal">
                    {a.name} ({a.code})
                  </Label>
                </li>
              );
            })}
          </ul>
        )}
        {errors.materialsAccountCodes ? (
          <p className="text-sm text-destructive">{errors.materialsAccountCodes}</p>
        ) : null}
      </fieldset>
      <div>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? <Spinner /> : null} Save CIS settings
        </Button>
      </div>
    </form>
  );
}

/**
 * Settings → CIS month-end (issue 29): the contractor's name on statements, UTR, employer and accounts office
 * references, which accounts hold materials, and (issue 42) the liability account CIS deductions are booked to
 * and the VAT domestic reverse charge. Composed into the Settings screen by the app.
 */
export function CisSettingsCard({ orgId }: { orgId: number }) {
  const settings = useCisSettings(orgId);
  return (
    <Card className="mt-6">
      <CardHeader>
        <CardTitle>CIS month-end</CardTitle>
        <CardDescription>
          What the monthly return and the subcontractors' statements carry. Xero does not hold these
          references.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {settings.data ? (
          <SettingsForm key={orgId} orgId={orgId} settings={settings.data} />
        ) : settings.isError ? (
          <p className="text-sm text-destructive">
            {getMessage(settings.error, 'Could not load the CIS settings')}
          </p>
        ) : (
          <Spinner />
        )}
      </CardContent>
    </Card>
  );
}
