import { BadgeCheck, TriangleAlert } from 'lucide-react';
import type { CisContact } from '@/shared/cis-bills';
import { formatDateMedium } from '@/shared/dates';
import type { SubcontractorStatus } from '@/shared/hmrc-filing';

const xeroSays = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? 'not CIS' : `${rate} %`;

/**
 * Under the picked subcontractor (issue 43): HMRC's verified rate, which the deduction uses, and where Xero's
 * contact says otherwise; and HMRC's rule when it asks for a verification before this payment (CISR51050).
 */
export function HmrcRateNote({
  contact,
  status,
}: {
  contact: CisContact;
  status: SubcontractorStatus | undefined;
}) {
  const verified = contact.verified ?? null;
  const differs = verified !== null && (contact.xeroCisRate ?? null) !== verified.rate;
  return (
    <>
      {verified ? (
        <p
          className={`flex items-start gap-1 text-[13px] ${differs ? 'text-warning-foreground' : 'text-muted-foreground'}`}
        >
          {differs ? (
            <TriangleAlert aria-hidden className="mt-0.5 size-3.5 shrink-0" />
          ) : (
            <BadgeCheck aria-hidden className="mt-0.5 size-3.5 shrink-0" />
          )}
          <span>
            HMRC verified {verified.rate} % on {formatDateMedium(verified.verifiedAt.slice(0, 10))}
            {differs
              ? `; Xero's contact says ${xeroSays(contact.xeroCisRate)}: the deduction uses HMRC's rate`
              : ''}
          </span>
        </p>
      ) : null}
      {status?.needsVerification ? (
        <p className="flex items-start gap-1 text-[13px] text-warning-foreground">
          <TriangleAlert aria-hidden className="mt-0.5 size-3.5 shrink-0" />
          <span>
            {status.verification ? 'Verify again' : 'Verify'} with HMRC before paying: {status.reason}
          </span>
        </p>
      ) : null}
    </>
  );
}
