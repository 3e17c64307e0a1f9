import { useState, type FormEvent } from 'react';
import { FIRST_RETURN_MESSAGE, type CisSettings } from '@/shared/cis-returns';
import { formatDateMedium, isIsoDate } from '@/shared/dates';
import { Button } from '@/client/components/ui/button';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { useUpdateCisSettings } from '../api/settings';

/**
 * What the penalties are worked out from (issue 42): HMRC's steps (CH62380), and the day of the contractor's first
 * CIS return, on which HMRC's rules for contractors new to CIS hinge (CH62540). A contractor who filed returns
 * before Ledgerlink says when.
 */
export function PenaltyBasis({
  orgId,
  firstReturnOn,
  settings,
}: {
  orgId: number;
  firstReturnOn: string | null;
  settings: CisSettings | undefined;
}) {
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState(settings?.firstReturnOn ?? '');
  const [error, setError] = useState<string | undefined>();
  const save = useUpdateCisSettings(orgId);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!settings) return;
    const day = value.trim();
    if (day !== '' && !isIsoDate(day)) {
      setError(FIRST_RETURN_MESSAGE);
      return;
    }
    setError(undefined);
    save.mutate(
      {
        contractorName: settings.contractorName,
        utr: settings.utr,
        employerReference: settings.employerReference,
        accountsOfficeReference: settings.accountsOfficeReference,
        materialsAccountCodes: settings.materialsAccountCodes,
        firstReturnOn: day === '' ? null : day,
      },
      {
        onSuccess: () => {
          toast({
            title: 'Saved',
            description: 'Penalties are worked out again from that day.',
            variant: 'success',
          });
          setOpen(false);
        },
        onError: (e) =>
          toast({
            title: 'Could not save',
            description: getMessage(e, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }

  return (
    <div className="grid gap-2 rounded-lg bg-muted/40 p-3 text-xs text-muted-foreground">
      <p>
        Late returns are charged by HMRC's steps: £100 the day after the 19th, £200 more two months on, then
        £300 or 5 % of the deductions at six and at twelve months (HMRC manual CH62380).{' '}
        {firstReturnOn
          ? `Your first CIS return was made on ${formatDateMedium(firstReturnOn)}.`
          : 'No return is marked filed yet: HMRC’s rules for contractors new to CIS apply until one is (CH62540).'}
      </p>
      {open ? (
        <form className="grid gap-2" onSubmit={submit} noValidate>
          <FormField
            label="First CIS return made before Ledgerlink, on"
            error={error}
            hint="Leave empty when the first return marked filed here was your first"
          >
            <Input type="date" value={value} onChange={(e) => setValue(e.target.value)} />
          </FormField>
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={save.isPending || !settings}>
              {save.isPending ? <Spinner /> : null} Save
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <Button size="sm" variant="link" className="h-auto justify-start p-0" onClick={() => setOpen(true)}>
          Filed CIS returns before Ledgerlink?
        </Button>
      )}
    </div>
  );
}
