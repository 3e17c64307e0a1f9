import type { CisReturn } from '@/shared/cis-returns';

/**
 * Whether a statement can be made: it must carry every reference CISR12160 asks for (the contractor's employer
 * reference, the subcontractor's UTR, the verification number at 30 %), else the server refuses it (422). For one
 * subcontractor, or (no contact) for every line of the month.
 */
export function canMakeStatement(ret: CisReturn, contactId: string | null = null): boolean {
  return !ret.checks.some(
    (c) =>
      !c.ok &&
      (c.code === 'employer-reference' ||
        (c.contactId !== null && (contactId === null || c.contactId === contactId))),
  );
}
