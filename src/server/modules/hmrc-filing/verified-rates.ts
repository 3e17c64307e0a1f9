import { toCisRate } from '../../../shared/cis';
import type { FindVerifiedRates, VerifiedRate } from '../../../shared/hmrc-filing';
import type { HmrcFilingRepository } from './hmrc-filing.repository';

/**
 * The verified rates of contacts (issue 43: HMRC's answer "is the rate the deduction uses"): the one port CIS Bills
 * and CIS Returns read verifications through, handed to them by src/server/wiring.ts. One query per call; a row
 * with a rate HMRC does not set (never written) is left out, so the contact falls back to Xero's rate.
 */
export function createVerifiedRates(repo: Pick<HmrcFilingRepository, 'findVerifications'>): FindVerifiedRates {
  return async (organizationId, contactIds) => {
    const ids = [...new Set(contactIds.map((c) => c.toLowerCase()))];
    if (ids.length === 0) return new Map();
    const rows = await repo.findVerifications(organizationId, ids);
    const out = new Map<string, VerifiedRate>();
    for (const r of rows) {
      const rate = toCisRate(r.rate);
      if (rate === null) continue;
      out.set(r.contactId.toLowerCase(), {
        rate,
        matched: r.matched,
        verificationNumber: r.verificationNumber,
        verifiedAt: r.verifiedAt.toISOString(),
      });
    }
    return out;
  };
}
