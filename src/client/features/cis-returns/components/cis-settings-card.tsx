import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { cisSettingsRequestSchema, type CisSettings } from '@/shared/cis-returns';
import { accountSchema } from '@/shared/settings';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Checkbox } from '@/client/components/ui/checkbox';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import { api, getMessage } from '@/client/lib/api-client';
import { orgUrl } from '@/client/lib/org-url';
import { toast } from '@/client/lib/toast';
import { cisReturnsKeys } from '../api/query-keys';
import { useCisSettings, useUpdateCisSettings } from '../api/settings';

type Field =
  'contractorName' | 'utr' | 'employerReference' | 'accountsOfficeReference' | 'materialsAccountCodes';

/** The bill accounts a materials line may be on (GET /api/xero/direct-costs-accounts). */
function useBillAccounts(orgId: number) {
  return useQuery({
    queryKey: [...cisReturnsKeys.settings(orgId), 'accounts'],
    queryFn: () =>
      api.get(orgUrl('/api/xero/direct-costs-accounts', orgId), { schema: accountSchema.array() }),
  });
}

function SettingsForm({ orgId, settings }: { orgId: number; settings: CisSettings }) {
  const accounts = useBillAccounts(orgId);
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

  function submit(event: FormEvent) {
    event.preventDefault();
    const request = { ...values, materialsAccountCodes: materials };
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
        <FormField label="Contractor's UTR" error={errors.utr} hint="10 digits">
          <Input value={values.utr} onChange={set('utr')} inputMode="numeric" autoComplete="off" />
        </FormField>
        <FormField label="Employer reference" error={errors.employerReference} hint="Like 123/AB45678">
          <Input value={values.employerReference} onChange={set('employerReference')} autoComplete="off" />
        </FormField>
        <FormField
          label="Accounts office reference"
          error={errors.accountsOfficeReference}
          hint="13 characters, like 123PA00012345"
        >
          <Input
            value={values.accountsOfficeReference}
            onChange={set('accountsOfficeReference')}
            autoComplete="off"
          />
        </FormField>
      </div>
      <fieldset className="grid gap-2">
        <legend className="text-sm font-medium">Materials accounts</legend>
        <p className="text-sm text-muted-foreground">
          Bill lines on these accounts count as materials: no CIS deduction applies to them. None by default,
          so Ledgerlink's own one-line bills stay all labour. Lines on Xero's CIS Materials account always
          count.
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
 * references, and which accounts hold materials. Composed into the Settings screen by the app.
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
