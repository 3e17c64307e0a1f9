import { AlertTriangle, BadgeCheck } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import {
  SUBCONTRACTOR_TYPE_LABELS,
  SUBCONTRACTOR_TYPES,
  type Verification,
  type VerificationRequest,
} from '@/shared/hmrc-filing';
import { formatDateMedium } from '@/shared/dates';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
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
import { SELECT_TRIGGER_CLASS } from '@/client/components/ui/select-trigger-class';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { useAskVerificationAgain, useVerifySubcontractor, type VerifyAnswer } from '@/client/lib/hmrc';
import { newIdempotencyKey } from '@/client/lib/idempotency';

/** "20 % — net", said the way the return says a rate. */
export function describeRate(v: Pick<Verification, 'rate' | 'matched'>): string {
  if (!v.matched) return '30% — not matched by HMRC';
  return v.rate === 0 ? '0% — gross payment status' : `${v.rate}% — registered`;
}

/** HMRC's answer for a subcontractor, with Xero's disagreement said plainly. */
export function VerificationSummary({ verification }: { verification: Verification }) {
  return (
    <div className="grid gap-2 text-sm">
      <p className="flex flex-wrap items-center gap-2">
        <Badge variant={verification.matched ? 'success' : 'warning'}>
          <BadgeCheck aria-hidden className="size-3" /> {describeRate(verification)}
        </Badge>
        <span className="text-muted-foreground">
          {verification.verificationNumber ? `Verification ${verification.verificationNumber} · ` : ''}
          {formatDateMedium(verification.verifiedAt.slice(0, 10))} by {verification.verifiedBy}
        </span>
      </p>
      {verification.disagreesWithXero ? (
        <Alert variant="warning">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>
              {verification.xeroRate === null
                ? 'Xero does not mark this contact as a CIS subcontractor'
                : `Xero says ${verification.xeroRate}%`}
            </AlertTitle>
            <AlertDescription>
              HMRC's answer is {verification.rate}%: deductions use HMRC's rate. Change the contact's CIS
              settings in Xero to match.
            </AlertDescription>
          </div>
        </Alert>
      ) : null}
    </div>
  );
}

type Fields = Required<Pick<VerificationRequest, 'type'>> & {
  tradingName: string;
  firstName: string;
  surname: string;
  utr: string;
  nino: string;
  crn: string;
  partnershipName: string;
  partnershipUtr: string;
};

/**
 * Verifies one subcontractor with HMRC (issue 43): the details HMRC matches on (gov.uk "What you must do as a CIS
 * contractor: verify subcontractors"), sent once whatever the clicks (one key per opening of the dialog), and HMRC's
 * answer shown in the dialog.
 */
export function VerifySubcontractorDialog({
  orgId,
  contact,
  onClose,
}: {
  orgId: number;
  contact: { contactId: string; name: string; utr: string | null };
  onClose: () => void;
}) {
  const company = /\b(ltd|limited|plc|llp)\b/i.test(contact.name);
  const [fields, setFields] = useState<Fields>({
    type: company ? 'company' : 'soletrader',
    tradingName: contact.name,
    firstName: '',
    surname: '',
    utr: contact.utr ?? '',
    nino: '',
    crn: '',
    partnershipName: '',
    partnershipUtr: '',
  });
  const [byPersonalName, setByPersonalName] = useState(false);
  const [key] = useState(() => newIdempotencyKey());
  const [answer, setAnswer] = useState<VerifyAnswer | null>(null);
  const [checking, setChecking] = useState(false);
  const verify = useVerifySubcontractor(orgId);
  const askVerificationAgain = useAskVerificationAgain(orgId);
  const set = (name: keyof Fields) => (e: { target: { value: string } }) =>
    setFields((f) => ({ ...f, [name]: e.target.value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    const body: VerificationRequest = {
      type: fields.type,
      utr: fields.utr,
      ...(byPersonalName && fields.type === 'soletrader'
        ? { firstName: fields.firstName, surname: fields.surname }
        : { tradingName: fields.tradingName }),
      ...(fields.type === 'soletrader' || fields.type === 'partnership' ? { nino: fields.nino } : {}),
      ...(fields.type === 'company' || fields.type === 'partnership' ? { crn: fields.crn } : {}),
      ...(fields.type === 'partnership'
        ? { partnershipName: fields.partnershipName, partnershipUtr: fields.partnershipUtr }
        : {}),
    };
    verify.mutate({ contactId: contact.contactId, body, key }, { onSuccess: setAnswer });
  }

  async function askAgain() {
    setChecking(true);
    try {
      setAnswer(await askVerificationAgain(contact.contactId));
    } finally {
      setChecking(false);
    }
  }

  const result = answer && !('state' in answer) ? answer : null;
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Verify {contact.name} with HMRC</DialogTitle>
          <DialogDescription>
            HMRC says whether the subcontractor is registered for CIS and the rate to deduct. The details must
            match the ones they registered with HMRC.
          </DialogDescription>
        </DialogHeader>
        {result ? (
          <div className="grid gap-4" aria-live="polite">
            <p className="font-medium">HMRC's answer</p>
            <VerificationSummary verification={result} />
            <DialogFooter>
              <Button type="button" onClick={onClose}>
                Done
              </Button>
            </DialogFooter>
          </div>
        ) : answer ? (
          <div className="grid gap-4" aria-live="polite">
            <Alert variant="info">
              <Spinner />
              <div>
                <AlertTitle>Sent to HMRC</AlertTitle>
                <AlertDescription>
                  HMRC has not answered yet. Its answer will show here and on the list.
                </AlertDescription>
              </div>
            </Alert>
            <DialogFooter>
              <Button type="button" variant="outline" onClick={onClose}>
                Close
              </Button>
              <Button type="button" onClick={() => void askAgain()} disabled={checking}>
                {checking ? <Spinner /> : null} Ask again
              </Button>
            </DialogFooter>
          </div>
        ) : (
          <form className="grid gap-4" onSubmit={submit} noValidate>
            <FormField label="Type">
              <select className={SELECT_TRIGGER_CLASS} value={fields.type} onChange={set('type')}>
                {SUBCONTRACTOR_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {SUBCONTRACTOR_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            </FormField>
            {fields.type === 'soletrader' ? (
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={byPersonalName}
                  onChange={(e) => setByPersonalName(e.target.checked)}
                />
                Registered under their own name, not a trading name
              </label>
            ) : null}
            {byPersonalName && fields.type === 'soletrader' ? (
              <div className="grid gap-4 sm:grid-cols-2">
                <FormField label="First name">
                  <Input value={fields.firstName} onChange={set('firstName')} autoComplete="off" />
                </FormField>
                <FormField label="Surname">
                  <Input value={fields.surname} onChange={set('surname')} autoComplete="off" />
                </FormField>
              </div>
            ) : (
              <FormField label="Name HMRC knows" hint="The trading name they registered with HMRC">
                <Input value={fields.tradingName} onChange={set('tradingName')} autoComplete="off" />
              </FormField>
            )}
            <FormField label="UTR" hint="10 digits">
              <Input value={fields.utr} onChange={set('utr')} inputMode="numeric" autoComplete="off" />
            </FormField>
            {fields.type === 'soletrader' || fields.type === 'partnership' ? (
              <FormField
                label="National Insurance number"
                hint="Like QQ123456C (temporary numbers cannot be verified)"
              >
                <Input value={fields.nino} onChange={set('nino')} autoComplete="off" />
              </FormField>
            ) : null}
            {fields.type === 'company' || fields.type === 'partnership' ? (
              <FormField label="Company registration number" hint="8 digits, or 2 letters and 6 digits">
                <Input value={fields.crn} onChange={set('crn')} autoComplete="off" />
              </FormField>
            ) : null}
            {fields.type === 'partnership' ? (
              <div className="grid gap-4 sm:grid-cols-2">
                <FormField label="Partnership name">
                  <Input
                    value={fields.partnershipName}
                    onChange={set('partnershipName')}
                    autoComplete="off"
                  />
                </FormField>
                <FormField label="Partnership UTR">
                  <Input value={fields.partnershipUtr} onChange={set('partnershipUtr')} autoComplete="off" />
                </FormField>
              </div>
            ) : null}
            {verify.isError ? (
              <Alert variant="destructive">
                <AlertTriangle aria-hidden />
                <div>
                  <AlertTitle>Not verified</AlertTitle>
                  <AlertDescription>{getMessage(verify.error, 'Please try again')}</AlertDescription>
                </div>
              </Alert>
            ) : null}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" disabled={verify.isPending}>
                {verify.isPending ? <Spinner /> : <BadgeCheck aria-hidden />} Verify with HMRC
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
