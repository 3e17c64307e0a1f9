import { AlertTriangle, BadgeCheck, CheckCircle2, Inbox, Mail, Send } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { getFilingRefusal, type CisReturn, type CisReturnLine } from '@/shared/cis-returns';
import { formatDateMedium } from '@/shared/dates';
import type { Submission } from '@/shared/hmrc-filing';
import { formatPounds } from '@/shared/money';
import { paths } from '@/client/config/paths';
import {
  VerificationSummary,
  VerifySubcontractorDialog,
} from '@/client/components/hmrc/verify-subcontractor-dialog';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Checkbox } from '@/client/components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { Label } from '@/client/components/ui/label';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import {
  useCisDeadline,
  useEmailStatement,
  useHmrcSetup,
  useStatementEmails,
  useSubcontractorStatuses,
  useSubmission,
  useSubmitReturn,
} from '@/client/lib/hmrc';
import { newIdempotencyKey } from '@/client/lib/idempotency';
import { toast } from '@/client/lib/toast';
import { canMakeStatement } from '../utils/statements';

const describe = (ret: Pick<CisReturn, 'start' | 'end'>) =>
  `${formatDateMedium(ret.start)} – ${formatDateMedium(ret.end)}`;

/** The three declarations HMRC asks of a return (CIS300 "Declaration and certificate"), and "scheme inactive". */
function SendDialog({ orgId, ret, onClose }: { orgId: number; ret: CisReturn; onClose: () => void }) {
  const [key] = useState(() => newIdempotencyKey());
  const [employmentStatus, setEmploymentStatus] = useState(false);
  const [verification, setVerification] = useState(false);
  const [informationCorrect, setInformationCorrect] = useState(false);
  const [inactive, setInactive] = useState(false);
  const submit = useSubmitReturn(orgId, ret.period);
  const ready = informationCorrect && (ret.nil || (employmentStatus && verification));

  function send(event: FormEvent) {
    event.preventDefault();
    submit.mutate(
      { body: { declarations: { employmentStatus, verification, informationCorrect }, inactive }, key },
      {
        onSuccess: (s) => {
          toast({
            title:
              s.state === 'accepted'
                ? 'HMRC accepted the return'
                : s.state === 'rejected'
                  ? 'HMRC rejected the return'
                  : 'Sent to HMRC',
            description: describe(ret),
            variant: s.state === 'rejected' ? 'destructive' : 'success',
          });
          onClose();
        },
      },
    );
  }
  const box = (id: string, checked: boolean, set: (v: boolean) => void, text: string) => (
    <div className="flex items-start gap-3">
      <Checkbox id={id} checked={checked} onCheckedChange={(v) => set(v === true)} />
      <Label htmlFor={id} className="font-normal leading-snug">
        {text}
      </Label>
    </div>
  );
  return (
    <Dialog open onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Send the {ret.nil ? 'nil ' : ''}return to HMRC</DialogTitle>
          <DialogDescription>
            {describe(ret)}
            {ret.nil
              ? ': no payments to subcontractors this month.'
              : `: ${ret.lines.length} subcontractor${ret.lines.length === 1 ? '' : 's'}, ${formatPounds(ret.totals.deductionAmount)} deducted.`}
          </DialogDescription>
        </DialogHeader>
        <form className="grid gap-4" onSubmit={send} noValidate>
          {ret.nil
            ? null
            : box(
                'decl-employment',
                employmentStatus,
                setEmploymentStatus,
                'I have considered the employment status of each subcontractor on this return, and none is an employee.',
              )}
          {ret.nil
            ? null
            : box(
                'decl-verification',
                verification,
                setVerification,
                'Every subcontractor on this return was verified with HMRC where the rules require it.',
              )}
          {box(
            'decl-correct',
            informationCorrect,
            setInformationCorrect,
            'The information on this return is correct and complete to the best of my knowledge and belief.',
          )}
          {box(
            'decl-inactive',
            inactive,
            setInactive,
            'Scheme inactive: I expect to make no payments to subcontractors in the next six months (optional).',
          )}
          {submit.isError ? (
            <Alert variant="destructive">
              <AlertTriangle aria-hidden />
              <div>
                <AlertTitle>Not sent</AlertTitle>
                <AlertDescription>{getMessage(submit.error, 'Please try again')}</AlertDescription>
              </div>
            </Alert>
          ) : null}
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!ready || submit.isPending}>
              {submit.isPending ? <Spinner /> : <Send aria-hidden />} Send to HMRC
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Lines filed that differ from the return now: a payment added or changed after HMRC accepted it. */
function changesSinceFiling(submission: Submission, ret: CisReturn): string[] {
  const filed = new Map(submission.lines.map((l) => [l.contactId, l]));
  const changes: string[] = [];
  for (const line of ret.lines) {
    const before = filed.get(line.contactId);
    if (!before)
      changes.push(
        `${line.name}: not on the return filed (${formatPounds(line.deductionAmount)} deducted now)`,
      );
    else if (before.deductionAmount !== line.deductionAmount)
      changes.push(
        `${line.name}: ${formatPounds(before.deductionAmount)} deducted filed, ${formatPounds(line.deductionAmount)} now`,
      );
    filed.delete(line.contactId);
  }
  for (const gone of filed.values())
    changes.push(`${gone.name}: on the return filed, no longer paid this month`);
  return changes;
}

function SubmissionState({ submission, ret }: { submission: Submission; ret: CisReturn }) {
  const when = `${formatDateMedium(submission.submittedAt.slice(0, 10))} by ${submission.submittedBy}`;
  if (submission.state === 'sending')
    return (
      <Alert variant="info" aria-live="polite">
        <Spinner />
        <div>
          <AlertTitle>Sent to HMRC, waiting for its answer</AlertTitle>
          <AlertDescription>
            Sent {when}. HMRC's answer shows here as soon as it comes; nothing will be sent twice.
          </AlertDescription>
        </div>
      </Alert>
    );
  if (submission.state === 'rejected')
    return (
      <Alert variant="destructive" aria-live="polite">
        <AlertTriangle aria-hidden />
        <div>
          <AlertTitle>HMRC rejected this return</AlertTitle>
          <AlertDescription>
            <span className="block">Sent {when}. Nothing was filed. HMRC said:</span>
            <ul className="mt-2 list-disc pl-5">
              {(submission.errors ?? []).map((e, i) => (
                <li key={`${e.number}-${i}`}>
                  {e.message}
                  {e.hmrcText ? (
                    <span className="block text-xs opacity-80">
                      HMRC {e.number}: {e.hmrcText}
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </AlertDescription>
        </div>
      </Alert>
    );
  const receipt = submission.receipt;
  const changes = changesSinceFiling(submission, ret);
  return (
    <div className="grid gap-3" aria-live="polite">
      <Alert variant="info">
        <CheckCircle2 aria-hidden />
        <div>
          <AlertTitle>Accepted by HMRC</AlertTitle>
          <AlertDescription>
            <span className="block">
              Sent {when}; accepted {receipt ? receipt.timestamp.replace('T', ' ').slice(0, 16) : ''}.
              {submission.gatewayTest && !ret.filing
                ? ' A test submission (GatewayTest): HMRC checked it without filing it.'
                : ''}
            </span>
            {receipt ? (
              <dl className="mt-2 grid gap-1 text-xs sm:grid-cols-[auto_1fr] sm:gap-x-3">
                <dt className="font-medium">IRmark</dt>
                <dd className="break-all font-mono">{receipt.irmarkBase32}</dd>
                <dt className="font-medium">HMRC's receipt</dt>
                {/* It quotes the IRmark, one word: on a phone it breaks anywhere rather than widen the card. */}
                <dd className="wrap-anywhere">{receipt.message}</dd>
                {receipt.hmrcIrmark === null ? (
                  <>
                    <dt className="font-medium">Note</dt>
                    <dd>HMRC's answer carried no IRmark receipt: keep this page as the record.</dd>
                  </>
                ) : receipt.hmrcIrmark !== receipt.irmark ? (
                  <>
                    <dt className="font-medium">Note</dt>
                    <dd className="wrap-anywhere">
                      HMRC's receipt quotes another IRmark ({receipt.hmrcIrmark}) than the one sent.
                    </dd>
                  </>
                ) : null}
              </dl>
            ) : null}
          </AlertDescription>
        </div>
      </Alert>
      {changes.length > 0 ? (
        <Alert variant="warning">
          <AlertTriangle aria-hidden />
          <div>
            <AlertTitle>Changed since HMRC accepted it</AlertTitle>
            <AlertDescription>
              <ul className="list-disc pl-5">
                {changes.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
              <span className="mt-1 block">{submission.correction}</span>
            </AlertDescription>
          </div>
        </Alert>
      ) : (
        <p className="text-xs text-muted-foreground">{submission.correction}</p>
      )}
    </div>
  );
}

/**
 * Filing the month with HMRC (issue 43), on CIS Returns: send the return with its declarations, its state (sending,
 * accepted with HMRC's receipt, rejected with HMRC's reasons), each subcontractor's verification and statement by
 * email (statements to subcontractors paid gross are optional: CISR12160), and where the demo's outbox is.
 */
export function HmrcFilingCard({ orgId, ret }: { orgId: number; ret: CisReturn }) {
  const setup = useHmrcSetup(orgId);
  const submission = useSubmission(orgId, ret.period);
  const statuses = useSubcontractorStatuses(orgId, ret.period);
  const emails = useStatementEmails(orgId, ret.period);
  const email = useEmailStatement(orgId, ret.period);
  const deadline = useCisDeadline(orgId);
  const [sending, setSending] = useState(false);
  const [verifying, setVerifying] = useState<CisReturnLine | null>(null);
  const [includeGross, setIncludeGross] = useState(false);
  const current = submission.data ?? null;
  const canSend = !ret.isCurrent && !ret.filing && (!current || current.state === 'rejected');
  // The one rule of what may be filed (issue 42's checks): the server refuses the same, naming the same things.
  const refusal = getFilingRefusal(ret.checks, 'sent to HMRC');
  const statusOf = new Map((statuses.data?.subcontractors ?? []).map((s) => [s.contactId.toLowerCase(), s]));
  const sentTo = new Map((emails.data?.emails ?? []).map((e) => [e.contactId, e]));
  // A statement carries every reference CISR12160 asks for, or is not made (the server refuses it too).
  const missingFor = (line: CisReturnLine) =>
    ret.checks
      .filter((c) => !c.ok && (c.code === 'employer-reference' || c.contactId === line.contactId))
      .map((c) => c.label);
  const toEmail = ret.lines.filter(
    (l) => (includeGross || l.rate !== 0) && canMakeStatement(ret, l.contactId),
  );

  function emailOne(line: CisReturnLine) {
    return email.mutateAsync(line.contactId).then(
      (sent) =>
        toast({ title: 'Statement emailed', description: `${line.name}: ${sent.to}`, variant: 'success' }),
      (error: unknown) =>
        toast({
          title: `Not emailed: ${line.name}`,
          description: getMessage(error, 'Please try again'),
          variant: 'destructive',
        }),
    );
  }
  async function emailAll() {
    for (const line of toEmail) await emailOne(line);
  }

  const notSetUp = setup.data && (!setup.data.endpoint || !setup.data.configured);
  return (
    <Card className="mt-6">
      <CardHeader className="gap-3">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>File with HMRC</CardTitle>
          {current ? (
            <Badge
              variant={
                current.state === 'accepted'
                  ? 'success'
                  : current.state === 'rejected'
                    ? 'destructive'
                    : 'secondary'
              }
            >
              {current.state === 'accepted'
                ? 'Accepted'
                : current.state === 'rejected'
                  ? 'Rejected'
                  : 'Sending'}
            </Badge>
          ) : null}
        </div>
        <CardDescription>
          The return goes to HMRC's Transaction Engine
          {setup.data?.endpoint === 'sandbox' ? ' (the demo’s built-in HMRC)' : ''}; statements go to the
          address Xero holds for each subcontractor.
          {deadline.data?.remindersEnabled &&
          deadline.data.period === ret.period &&
          deadline.data.state !== 'filed'
            ? ` A reminder email goes on ${formatDateMedium(deadline.data.reminderDate)}.`
            : ''}
        </CardDescription>
        <div className="flex flex-wrap gap-2">
          {canSend ? (
            <Button
              size="sm"
              onClick={() => setSending(true)}
              disabled={Boolean(notSetUp) || refusal !== null}
              aria-describedby={refusal ? `send-refusal-${ret.period}` : undefined}
            >
              <Send aria-hidden />{' '}
              {current?.state === 'rejected' ? 'Send again' : ret.nil ? 'Send nil return' : 'Send to HMRC'}
            </Button>
          ) : null}
          {ret.lines.length > 0 && setup.data?.mail !== 'off' ? (
            <Button
              size="sm"
              variant="outline"
              onClick={() => void emailAll()}
              disabled={email.isPending || toEmail.length === 0}
            >
              {email.isPending ? <Spinner /> : <Mail aria-hidden />} Email statements ({toEmail.length})
            </Button>
          ) : null}
          {setup.data?.mail === 'outbox' ? (
            <Button asChild size="sm" variant="ghost">
              <Link href={paths.outbox.getHref()}>
                <Inbox aria-hidden /> Outbox
              </Link>
            </Button>
          ) : null}
        </div>
      </CardHeader>
      <CardContent className="grid gap-4">
        {notSetUp ? (
          <Alert variant="warning">
            <AlertTriangle aria-hidden />
            <div>
              <AlertTitle>
                {setup.data?.endpoint ? 'HMRC credentials needed' : 'Filing is not set up on this server'}
              </AlertTitle>
              <AlertDescription>
                {setup.data?.endpoint ? (
                  <>
                    Add the contractor's Government Gateway user ID and password in{' '}
                    <Link href={paths.settings.getHref(orgId)} className="underline">
                      Settings
                    </Link>
                    .
                  </>
                ) : (
                  'An administrator sets HMRC_ENDPOINT and HMRC_VENDOR_ID.'
                )}
              </AlertDescription>
            </div>
          </Alert>
        ) : null}
        {canSend && refusal ? (
          <p id={`send-refusal-${ret.period}`} className="text-sm text-muted-foreground">
            {refusal.message} Add {refusal.missing.length === 1 ? 'it' : 'them'} under “Before filing”, then
            send.
          </p>
        ) : null}
        {ret.isCurrent && !current ? (
          <p className="text-sm text-muted-foreground">
            It can be sent once the month ends on {formatDateMedium(ret.end)}.
          </p>
        ) : null}
        {ret.filing && !current ? (
          <p className="text-sm text-muted-foreground">
            Marked as filed by hand: nothing is sent to HMRC from here.
          </p>
        ) : null}
        {current ? <SubmissionState submission={current} ret={ret} /> : null}
        {ret.lines.length > 0 ? (
          <>
            <ul
              className="grid gap-2"
              aria-label={`Subcontractors of ${describe(ret)}: verification and statements`}
            >
              {ret.lines.map((line) => {
                const status = statusOf.get(line.contactId.toLowerCase());
                const emailed = sentTo.get(line.contactId.toLowerCase());
                const missing = missingFor(line);
                return (
                  <li
                    key={line.contactId}
                    className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-border p-3"
                  >
                    <div className="grid min-w-0 gap-1">
                      <p className="font-medium">{line.name}</p>
                      {status?.verification ? (
                        <VerificationSummary verification={status.verification} />
                      ) : (
                        <p className="text-xs text-muted-foreground">Not verified from Ledgerlink</p>
                      )}
                      {status?.needsVerification && status.reason ? (
                        <p className="flex flex-wrap items-center gap-2 text-xs">
                          <Badge variant="warning" className="w-fit">
                            {status.verification ? 'Verify again' : 'Verify before paying'}
                          </Badge>
                          <span className="text-muted-foreground">{status.reason}</span>
                        </p>
                      ) : null}
                      <p className="text-xs text-muted-foreground">
                        {emailed
                          ? `Statement emailed to ${emailed.to} on ${formatDateMedium(emailed.sentAt.slice(0, 10))}`
                          : missing.length > 0
                            ? `No statement until it carries every reference HMRC asks for. Missing: ${missing.join('; ')}.`
                            : line.rate === 0
                              ? 'Paid gross: a statement is optional'
                              : 'Statement not emailed yet'}
                      </p>
                    </div>
                    <div className="flex flex-wrap gap-2">
                      <Button
                        size="sm"
                        variant="outline"
                        onClick={() => setVerifying(line)}
                        aria-label={`Verify ${line.name} with HMRC`}
                      >
                        <BadgeCheck aria-hidden /> Verify
                      </Button>
                      {setup.data?.mail !== 'off' ? (
                        <Button
                          size="sm"
                          variant="outline"
                          onClick={() => void emailOne(line)}
                          disabled={email.isPending || missing.length > 0}
                          aria-label={`Email the statement to ${line.name}`}
                        >
                          <Mail aria-hidden /> Email
                        </Button>
                      ) : null}
                    </div>
                  </li>
                );
              })}
            </ul>
            {ret.lines.some((l) => l.rate === 0) ? (
              <div className="flex items-center gap-2 text-sm">
                <Checkbox
                  id="include-gross"
                  checked={includeGross}
                  onCheckedChange={(v) => setIncludeGross(v === true)}
                />
                <Label htmlFor="include-gross" className="font-normal">
                  Email statements to subcontractors paid gross too (optional)
                </Label>
              </div>
            ) : null}
          </>
        ) : null}
      </CardContent>
      {sending ? <SendDialog orgId={orgId} ret={ret} onClose={() => setSending(false)} /> : null}
      {verifying ? (
        <VerifySubcontractorDialog
          orgId={orgId}
          contact={{ contactId: verifying.contactId, name: verifying.name, utr: verifying.utr }}
          onClose={() => setVerifying(null)}
        />
      ) : null}
    </Card>
  );
}
