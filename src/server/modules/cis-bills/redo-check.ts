import { describeBillRedo, type RedoSuspect } from '../../../shared/redo-warning';
import { refuseRedo } from '../../lib/redo-warning';
import { isBillOfWrite } from './bill-link';
import type { CisBillsContext, CisBillsDeps, CreateRecord } from './context';

/**
 * The redo warning for new bills (issue 44 item 4): for a day after a database restore, before bills under keys
 * Ledgerlink does not know are sent, each contact's bills in Xero are read (one read per contact, as the finder
 * of a forgotten bill reads them). A bill there from the same subcontractor with the same reference and total,
 * neither deleted nor voided, that Ledgerlink's restored records do not hold, and that is not this very request's
 * own bill or a sibling's in the batch (their writes' marks: a resend is answered by the ledger, never warned),
 * refuses the whole request with a
 * 409 naming each (src/shared/redo-warning.ts) unless the person confirmed. Nothing is sent then.
 */
export async function checkBillsRedo(
  deps: Pick<CisBillsDeps, 'bills' | 'ledger'>,
  ctx: CisBillsContext,
  bills: ReadonlyArray<{ key: string | undefined; record: CreateRecord }>,
  confirmed: boolean,
): Promise<void> {
  if (confirmed || bills.length === 0 || !(await deps.ledger.restoredLately())) return;
  const known = await deps.ledger.findByKeys(
    ctx.organizationId,
    bills.flatMap((b) => (b.key ? [b.key] : [])),
  );
  const fresh = bills.filter((b) => !b.key || !known.has(b.key));
  const ownKeys = bills.flatMap((b) => (b.key ? [b.key] : []));
  const byContact = new Map<string, Awaited<ReturnType<CisBillsDeps['bills']['listChangedForContact']>>>();
  const suspects: RedoSuspect[] = [];
  const now = Date.now();
  for (const { record } of fresh) {
    let inXero = byContact.get(record.contactId);
    if (!inXero) {
      inXero = await deps.bills.listChangedForContact(ctx, record.contactId, null);
      byContact.set(record.contactId, inXero);
    }
    // A bill of this request is in Xero under its own mark: the browser resending a batch the restore forgot
    // (a person's redo has a new key). The ledger answers it; nothing is warned.
    if (inXero.some((bill) => ownKeys.some((own) => isBillOfWrite(bill, own)))) return;
    for (const bill of inXero) {
      if (
        bill.status === 'DELETED' ||
        bill.status === 'VOIDED' ||
        (bill.invoiceNumber ?? '') !== record.reference ||
        bill.totalPence !== record.totalPence ||
        // This request's own bills (a resend of a batch the restore forgot, answered by the ledger), its
        // siblings' included: two bills of one batch may share a subcontractor, reference and amount.
        ownKeys.some((own) => isBillOfWrite(bill, own)) ||
        suspects.some((s) => s.xeroId === bill.invoiceId) ||
        (await deps.ledger.findConfirmedByXeroId(ctx.organizationId, 'bill.create', bill.invoiceId))
      )
        continue;
      const createdAt = (await deps.bills.createdAt?.(ctx, bill.invoiceId))?.toISOString() ?? null;
      suspects.push({
        kind: 'bill',
        xeroId: bill.invoiceId,
        createdAt,
        message: describeBillRedo(
          {
            contactName: bill.contactName ?? 'this subcontractor',
            reference: record.reference,
            // The bill as the person entered it (the CIS Bills screen's total), not Xero's total after the
            // deduction line (issue 42): a redo of a £500 bill named as £400 reads as another bill.
            totalPence: record.totalPence + (record.cis?.deductionPence ?? 0),
            deductionPence: record.cis?.deductionPence ?? 0,
            createdAt,
          },
          now,
        ),
      });
    }
  }
  if (suspects.length > 0) refuseRedo(suspects);
}
