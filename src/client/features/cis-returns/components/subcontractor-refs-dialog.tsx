import { useState, type FormEvent } from 'react';
import { subcontractorRefsRequestSchema, type CisReturnLine } from '@/shared/cis-returns';
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

/**
 * A subcontractor's UTR and verification number (issue 29): Xero's API has neither, so Ledgerlink keeps them.
 * The shared schema checks them here and on the server alike.
 */
export function SubcontractorRefsDialog({
  orgId,
  line,
  onClose,
}: {
  orgId: number;
  line: CisReturnLine;
  onClose: () => void;
}) {
  const [utr, setUtr] = useState(line.utr ?? '');
  const [verification, setVerification] = useState(line.verificationNumber ?? '');
  const [errors, setErrors] = useState<{ utr?: string; verificationNumber?: string }>({});
  const save = useUpdateSubcontractorRefs(orgId);

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = subcontractorRefsRequestSchema.safeParse({ utr, verificationNumber: verification });
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
      { contactId: line.contactId, refs: { utr, verificationNumber: verification } },
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
            The subcontractor's Unique Taxpayer Reference, and the verification number HMRC gave when it could
            not verify them (the 30% rate). Xero does not hold these; Ledgerlink keeps them for the return and
            statements.
          </DialogDescription>
        </DialogHeader>
        <form className="grid gap-4" onSubmit={submit} noValidate>
          <FormField label="UTR" error={errors.utr} hint="10 digits">
            <Input
              value={utr}
              onChange={(e) => setUtr(e.target.value)}
              inputMode="numeric"
              autoComplete="off"
            />
          </FormField>
          <FormField
            label="Verification number"
            error={errors.verificationNumber}
            hint={
              line.rate === 30
                ? 'V, 10 digits and up to two letters'
                : 'Only needed where the 30% rate applies'
            }
          >
            <Input
              value={verification}
              onChange={(e) => setVerification(e.target.value)}
              autoComplete="off"
            />
          </FormField>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? <Spinner /> : null} Save
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
