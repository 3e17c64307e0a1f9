import { AlertTriangle, BadgeCheck } from 'lucide-react';
import { useState } from 'react';
import type { SubcontractorStatus } from '@/shared/hmrc-filing';
import { formatDateMedium } from '@/shared/dates';
import {
  VerificationSummary,
  VerifySubcontractorDialog,
} from '@/client/components/hmrc/verify-subcontractor-dialog';
import { Alert, AlertDescription, AlertTitle } from '@/client/components/ui/alert';
import { Badge } from '@/client/components/ui/badge';
import { Button } from '@/client/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/client/components/ui/card';
import { Spinner } from '@/client/components/ui/spinner';
import { getMessage } from '@/client/lib/api-client';
import { useSubcontractorStatuses } from '@/client/lib/hmrc';

/**
 * Verify subcontractors with HMRC (issue 43), on CIS Bills: who HMRC's rule asks to verify before paying (new, or
 * not paid in this tax year or the two before: CISR51050), and each one's answer, which is the rate deducted.
 */
export function HmrcVerificationCard({ orgId }: { orgId: number }) {
  const statuses = useSubcontractorStatuses(orgId);
  const [open, setOpen] = useState<SubcontractorStatus | null>(null);
  const list = statuses.data?.subcontractors ?? [];
  const due = list.filter((s) => s.needsVerification);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Verify subcontractors with HMRC</CardTitle>
        <CardDescription>
          {due.length > 0
            ? `${due.length} subcontractor${due.length === 1 ? '' : 's'} to verify before paying: HMRC's rate is the one deducted.`
            : "HMRC's rate for each subcontractor is the one deducted."}
        </CardDescription>
      </CardHeader>
      <CardContent>
        {statuses.isLoading ? (
          <Spinner />
        ) : statuses.isError ? (
          <Alert variant="destructive">
            <AlertTriangle aria-hidden />
            <div>
              <AlertTitle>Could not load the subcontractors</AlertTitle>
              <AlertDescription>{getMessage(statuses.error, 'Please try again')}</AlertDescription>
            </div>
          </Alert>
        ) : (
          <ul className="grid gap-2" aria-label="Subcontractors and their verification">
            {list.map((s) => (
              <li
                key={s.contactId}
                data-contact-id={s.contactId}
                className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-border p-3"
              >
                <div className="grid min-w-0 gap-1">
                  <p className="font-medium">{s.name}</p>
                  {s.verification ? (
                    <VerificationSummary verification={s.verification} />
                  ) : (
                    <p className="text-xs text-muted-foreground">
                      {s.lastPaidOn ? `Last paid ${formatDateMedium(s.lastPaidOn)}` : 'Not paid yet'}
                      {s.utr ? ` · UTR ${s.utr}` : ' · UTR missing'}
                    </p>
                  )}
                  {s.needsVerification && s.reason ? (
                    <Badge variant="warning" className="w-fit">
                      {s.verification ? 'Verify again' : 'Verify before paying'}
                    </Badge>
                  ) : null}
                </div>
                <Button
                  size="sm"
                  variant={s.needsVerification ? 'default' : 'outline'}
                  disabled={s.sending}
                  onClick={() => setOpen(s)}
                  aria-label={`Verify ${s.name} with HMRC`}
                >
                  {s.sending ? <Spinner /> : <BadgeCheck aria-hidden />} {s.sending ? 'With HMRC' : 'Verify'}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </CardContent>
      {open ? <VerifySubcontractorDialog orgId={orgId} contact={open} onClose={() => setOpen(null)} /> : null}
    </Card>
  );
}
