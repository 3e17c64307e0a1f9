import {
  explainUnconfirmed,
  HELD_USER_GONE,
  RETRY_REFUSED_KIND,
  type RetryActor,
  type WriteKindHandlers,
  type WriteOutcome,
  type WriteRow,
} from '../../ledger/index';
import type { BillActionResponse } from '../../../shared/cis-bills';
import { AppError } from '../../lib/app-error';
import type { Bill, NewBill, XeroContext } from '../../xero/xero-port';
import { hasAnyBillMark, isBillOfWrite } from './bill-link';
import type { BillChanges } from './change-bills';
import {
  isUuid,
  type CisBillsContext,
  type CisBillsCore,
  type CisBillsDeps,
  type CreateRecord,
} from './context';

/**
 * How far before a write's row was recorded its bill is looked for (decision 028): Xero's clock and ours may
 * differ a little, and the If-Modified-Since Xero compares is to the second.
 */
const CLOCK_MARGIN_MS = 10 * 60_000;

/**
 * CIS Bills in the write ledger: the finders that ask Xero whether a bill write was applied (a lost answer,
 * or a key a restore forgot), and the retrier an administrator sends a held bill write again with.
 */
export function createCisBillsWriteKinds(deps: CisBillsDeps, core: CisBillsCore, changes: BillChanges) {
  const { bills: xeroBills, ledger } = deps;
  const { cacheBill, readElement, markedBill, auditOf } = core;

  /** A bill created by this write: the answer its finders give. */
  const createdBillOutcome = (bill: Bill, record: CreateRecord): WriteOutcome<BillActionResponse> => ({
    xeroId: bill.invoiceId,
    response: { invoiceID: bill.invoiceId, status: bill.status || record.status },
  });

  /**
   * Finder for 'bill.create' (docs/architecture.md §5: settle a lost answer by looking, never by resending):
   * among the contact's bills changed since shortly before the write (one read, decision 028), the one
   * carrying the write's mark in its Url (or, written before decision 028, in its number), deleted or voided
   * since included; else (a bill sent before bills were marked) one of the request's date, reference and
   * total that carries no write's mark, is neither deleted nor voided and is not already claimed by another
   * create.
   */
  async function findCreatedBill(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<BillActionResponse> | null> {
    const record = row.request as CreateRecord;
    const since = new Date(row.createdAt.getTime() - CLOCK_MARGIN_MS);
    const bills = await xeroBills.listChangedForContact(ctx, record.contactId, since);
    const marked = bills.find((b) => isBillOfWrite(b, row.idempotencyKey));
    if (marked) return createdBillOutcome(marked, record);
    const candidates = bills.filter(
      (b) =>
        !hasAnyBillMark(b) &&
        b.status !== 'DELETED' &&
        b.status !== 'VOIDED' &&
        b.date === record.date &&
        b.invoiceNumber === record.reference &&
        b.totalPence === record.totalPence,
    );
    // A bill another create already accounts for is not this one's.
    const claimed = await ledger.claimedXeroIds(row.organizationId, 'bill.create', row.id);
    const found = candidates.find((b) => !claimed.has(b.invoiceId.toLowerCase()));
    return found ? createdBillOutcome(found, record) : null;
  }

  /**
   * After a restore (issue 28): the bill carrying this write's mark in its Url (or, written before decision
   * 028, in its number), deleted or voided since included: exact, so a new bill like an earlier one is never
   * taken for it. When the forgotten write was made is not known (after the backup, before the restore), so
   * the contact's most recently changed bills are read (one read, decision 028).
   */
  async function findMarkedBill(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<BillActionResponse> | null> {
    const record = row.request as CreateRecord;
    const bills = await xeroBills.listChangedForContact(ctx, record.contactId, null);
    const marked = bills.find((b) => isBillOfWrite(b, row.idempotencyKey));
    return marked ? createdBillOutcome(marked, record) : null;
  }

  /** Finders for update/approve/delete: the bill is read back and the change is there or it is not. */
  function statusFinder(applied: (bill: Bill, request: Record<string, unknown>) => boolean) {
    return async (ctx: XeroContext, row: WriteRow): Promise<WriteOutcome<BillActionResponse> | null> => {
      const request = row.request as Record<string, unknown>;
      const invoiceId = String(request.invoiceId ?? row.targetId ?? '');
      const bill = isUuid(invoiceId) ? await xeroBills.get(ctx, invoiceId) : null;
      if (!bill || !applied(bill, request)) return null;
      return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
    };
  }

  /**
   * An administrator sends a held bill write again (Admin → Needs review, issue 28): the ledger has asked Xero
   * first and Xero does not have it. Approvals and deletions go through their own path (today's checks: a bill
   * approved or deleted meanwhile is answered as it is, not changed again); a creation resends the bill that
   * was recorded. Under `idempotencyKey`, so a second click replays this one write.
   */
  async function retryHeldWrite(
    row: WriteRow,
    by: RetryActor,
    idempotencyKey: string,
  ): Promise<{ writeId: number; xeroId: string | null }> {
    if (row.userId === null) throw new AppError('CONFLICT', HELD_USER_GONE);
    const ctx: CisBillsContext = {
      organizationId: row.organizationId,
      tenantId: by.tenantId,
      // Xero is asked as the user who made the change (their connection), the log names the administrator.
      userId: row.userId,
      username: by.username,
      isAdmin: true,
      ip: by.ip ?? null,
      organization: { defaultCisSubcontractorsGroupId: null, defaultBillVatRateId: null },
    };
    const held = row.request as { invoiceId?: string; defaultAccountId?: string | null };
    let answer: BillActionResponse;
    if (row.kind === 'bill.approve' && held.invoiceId) {
      answer = await changes.approveBill(ctx, held.invoiceId, held.defaultAccountId ?? null, idempotencyKey);
    } else if (row.kind === 'bill.delete' && held.invoiceId) {
      answer = await changes.deleteBill(ctx, held.invoiceId, idempotencyKey);
    } else if (row.kind === 'bill.create') {
      const record = row.request as CreateRecord;
      const element: NewBill = {
        contactId: record.contactId,
        date: record.date,
        dueDate: record.date,
        reference: record.reference,
        lineAmountTypes: record.lineAmountTypes,
        status: record.status,
        lines: record.lines,
      };
      const outcome = await ledger
        .execute<BillActionResponse>({
          organizationId: ctx.organizationId,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          kind: 'bill.create',
          targetId: record.contactId,
          amountPence: record.totalPence,
          idempotencyKey,
          request: record,
          audit: auditOf(ctx, 'bill.create', record.reference, {
            contactId: record.contactId,
            reference: record.reference,
            date: record.date,
            status: record.status,
            amountPence: record.totalPence,
          }),
          send: async (key) => {
            const [first] = await xeroBills.createMany(ctx, [markedBill(element, key)], key);
            if (!first) throw new AppError('XERO_UNAVAILABLE', 'Xero answered no bill');
            const bill = readElement(first);
            await cacheBill(ctx, bill);
            return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
          },
        })
        .catch((error: unknown) => {
          throw explainUnconfirmed(error);
        });
      answer = outcome.response;
    } else {
      throw new AppError('CONFLICT', RETRY_REFUSED_KIND);
    }
    const written = await ledger.findByKey(row.organizationId, idempotencyKey);
    return { writeId: written?.id ?? 0, xeroId: written?.xeroId ?? answer.invoiceID ?? null };
  }

  // After a restore, a create under a key the database forgot is looked up by its mark; a change to a
  // bill is idempotent by state, so its own finder tells whether Xero has it. A held create, approval or
  // deletion Xero does not have can be sent again by an administrator (Needs review).
  const writeKinds: WriteKindHandlers[] = [
    { kind: 'bill.create', find: findCreatedBill, afterRestore: findMarkedBill, retry: retryHeldWrite },
    {
      kind: 'bill.update',
      find: statusFinder((bill, request) => bill.totalPence === Number(request.amountPence)),
      afterRestore: 'find',
    },
    {
      kind: 'bill.approve',
      find: statusFinder((bill) => bill.status === 'AUTHORISED' || bill.status === 'PAID'),
      afterRestore: 'find',
      retry: retryHeldWrite,
    },
    {
      kind: 'bill.delete',
      find: statusFinder((bill) => bill.status === 'DELETED'),
      afterRestore: 'find',
      retry: retryHeldWrite,
    },
  ];
  return { writeKinds };
}
