import { useState, type FormEvent } from 'react';
import {
  FILED_UNDER_LOCKED_HINT,
  subcontractorRefsRequestSchema,
  type CisReturnLine,
} from '@/shared/cis-returns';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { FormField } from '@/client/components/ui/form-field';
import { Input } from '@/client/components/ui/input';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { toast } from '@/client/lib/toast';
import { useUpdateSubcontractorRefs } from '../api/update-subcontractor';

const LOCKED_HINT = FILED_UNDER_LOCKED_HINT;

/**
 * A subcontractor's UTR and verification number (issue 29): Xero's API has neither, so Ledgerlink keeps them.
 * The shared schema checks them here and on the server alike.
 */
export function SubcontractorRefsDialog({
  orgId,
  line,
  canChangeFiledUnder,
  onClose,
}: {
  orgId: number;
  line: CisReturnLine;
  /** Whether set references may be changed (administrators: FILED_UNDER_FIELDS); any member fills in empty ones. */
  canChangeFiledUnder: boolean;
  onClose: () => void;
}) {
  const [utr, setUtr] = useState(line.utr ?? '');
  const [verification, setVerification] = useState(line.verificationNumber ?? '');
  // The verification number is asked for only where the 30 % rate applies; elsewhere what is kept stays.
  const asksVerification = line.rate === 30;
  const utrLocked = !canChangeFiledUnder && line.utr !== null;
  const verificationLocked = !canChangeFiledUnder && line.verificationNumber !== null;
  const [errors, setErrors] = useState<{ utr?: string; verificationNumber?: string }>({});
  const save = useUpdateSubcontractorRefs(orgId);

  function submit(event: FormEvent) {
    event.preventDefault();
    const request = asksVerification ? { utr, verificationNumber: verification } : { utr };
    const parsed = subcontractorRefsRequestSchema.safeParse(request);
    if (!parsed.success) {
      const found: { utr?: string; verificationNumber?: string } = {};
      for (const issue of parsed.error.issues) {
        const key = issue.path[0];
        if ((key === 'utr' || key === 'verificationNumber') && !found[key]) found[key] = issue.message;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    save.mutate(
      { contactId: line.contactId, refs: request },
      {
        onSuccess: () => {
          toast({ title: 'References saved', description: line.name, variant: 'success' });
          onClose();
        },
        onError: (error) =>
          toast({
            title: 'Could not save',
            description: getMessage(error, 'Please try again'),
            variant: 'destructive',
          }),
      },
    );
  }

  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{line.name}</DialogTitle>
          <DialogDescription>
            {asksVerification
              ? "The subcontractor's Unique Taxpayer Reference, and the verification number HMRC gave when it could not verify them (the 30 % rate)."
              : "The subcontractor's Unique Taxpayer Reference."}{' '}
            Xero does not hold these; Ledgerlink keeps them for the return and statements. Any member fills in
            a reference not set yet; only an administrator changes one that is.
          </DialogDescription>
        </DialogHeader>
        <form className="grid gap-4" onSubmit={submit} noValidate>
          <FormField label="UTR" error={errors.utr} hint={utrLocked ? LOCKED_HINT : '10 digits'}>
            <Input
              value={utr}
              onChange={(e) => setUtr(e.target.value)}
              inputMode="numeric"
              autoComplete="off"
              readOnly={utrLocked}
            />
          </FormField>
          {asksVerification ? (
            <FormField
              label="Verification number"
              error={errors.verificationNumber}
              hint={verificationLocked ? LOCKED_HINT : 'V, 10 digits and up to two letters'}
            >
              <Input
                value={verification}
                onChange={(e) => setVerification(e.target.value)}
                autoComplete="off"
                readOnly={verificationLocked}
              />
            </FormField>
          ) : null}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button
              type="submit"
              disabled={save.isPending || (utrLocked && (!asksVerification || verificationLocked))}
            >
              {save.isPending ? <Spinner /> : null} Save
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
