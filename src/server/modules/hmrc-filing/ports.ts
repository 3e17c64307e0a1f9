import { toCisRate } from '../../../shared/cis';
import type { FindVerifiedRates, VerifiedRate } from '../../../shared/hmrc-filing';
import type { HmrcFilingRepository } from './hmrc-filing.repository';

/*
 * What HMRC filing tells the other CIS features, each through a narrow port src/server/wiring.ts hands them: the
 * verified rates (CIS Bills, CIS Returns) and whether a month's return is on its way to HMRC (CIS Returns).
 */

/**
 * The verified rates of contacts (issue 43: HMRC's answer "is the rate the deduction uses"): the one port CIS Bills
 * and CIS Returns read verifications through, handed to them by src/server/wiring.ts. One query per call; a row
 * with a rate HMRC does not set (never written) is left out, so the contact falls back to Xero's rate.
 */
export function createVerifiedRates(
  repo: Pick<HmrcFilingRepository, 'findVerifications'>,
): FindVerifiedRates {
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

/**
 * Whether a month's return is on its way to HMRC from Ledgerlink (sent, HMRC's answer not in yet): who sent it and
 * when, or null. CIS Returns refuses to mark such a month filed by hand: HMRC's answer marks it (issue 43).
 */
export function createReturnInFlight(repo: Pick<HmrcFilingRepository, 'findReturn'>) {
  return async (
    organizationId: number,
    period: string,
  ): Promise<{ sentBy: string; sentAt: string } | null> => {
    const row = await repo.findReturn(organizationId, period);
    if (!row || row.state !== 'sending') return null;
    return { sentBy: row.createdByName, sentAt: row.createdAt.toISOString() };
  };
}
