import type { BillActionResponse, DraftBill } from '../../../shared/cis-bills';
import { toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { CachedLine } from '../../xero/sync/mappers';
import { explainUnconfirmed } from '../../xero/write-failure';
import type { WriteKind } from '../../xero/write-ledger';
import type { BillChange, BillLineInput } from '../../xero/xero-port';
import { hasAnyBillMark } from './bill-link';
import { toDraftBill } from './bill-reads';
import type { CachedBill } from './cis-bills.repository';
import { isUuid, type CisBillsContext, type CisBillsCore, type CisBillsDeps } from './context';

/** A cached line's unit amount (pounds, up to 4 decimals) in pence, keeping the fractions of a penny. */
function getUnitPence(unitAmount: number | null | undefined): number {
  return Math.round((unitAmount ?? 0) * 1_000_000) / 10_000;
}

/** A bill's edit, approval and deletion: one writer per bill, each a ledger write. */
export function createBillChanges(deps: CisBillsDeps, core: CisBillsCore) {
  const { repo, bills: xeroBills, sync, ledger, audit } = deps;
  const { findAccount, cacheBill, readElement, auditOf } = core;

  async function getBill(ctx: CisBillsContext, invoiceId: string): Promise<CachedBill> {
    if (!isUuid(invoiceId)) throw new AppError('NOT_FOUND', 'Bill not found');
    const cached = await repo.findBill(ctx.organizationId, invoiceId);
    if (cached) return cached;
    try {
      const row = await sync.refreshInvoice(ctx, invoiceId);
      if (row && row.type === 'ACCPAY') {
        const found = await repo.findBill(ctx.organizationId, invoiceId);
        if (found) return found;
      }
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    }
    throw new AppError('NOT_FOUND', 'Bill not found');
  }

  /**
   * Whether a bill was raised in Ledgerlink: its creation is in the ledger, or (a creation a restore forgot, or
   * one recorded by another database) the bill carries the mark a creation leaves in its Url (decision 028),
   * read from Xero, which the cache does not keep. A bill entered in Xero has no mark.
   */
  async function isRaisedInLedgerlink(ctx: CisBillsContext, invoiceId: string): Promise<boolean> {
    if (await ledger.findConfirmedByXeroId(ctx.organizationId, 'bill.create', invoiceId)) return true;
    const bill = await xeroBills.get(ctx, invoiceId);
    return bill !== null && hasAnyBillMark(bill);
  }

  /** Sends one status/line change of an existing bill through the ledger and caches Xero's answer. */
  async function writeBill(
    ctx: CisBillsContext,
    spec: {
      kind: Extract<WriteKind, `bill.${string}`>;
      invoiceId: string;
      amountPence: number | null;
      idempotencyKey: string | undefined;
      request: Record<string, unknown>;
      change: BillChange;
      detail: Record<string, unknown>;
    },
  ) {
    let cached: CachedBill | null = null;
    // One writer per bill (issue 28): a second change while this one is open is refused, naming who.
    const known = await repo.findBill(ctx.organizationId, spec.invoiceId);
    const execute = ledger.execute<BillActionResponse>({
      audit: auditOf(ctx, spec.kind, spec.invoiceId, spec.detail),
      document: {
        key: `bill:${spec.invoiceId.toLowerCase()}`,
        label: known?.invoiceNumber ? `Bill ${known.invoiceNumber}` : 'This bill',
      },
      organizationId: ctx.organizationId,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      kind: spec.kind,
      targetId: spec.invoiceId,
      amountPence: spec.amountPence,
      idempotencyKey: spec.idempotencyKey,
      request: spec.request,
      send: async (key) => {
        const bill = readElement(await xeroBills.update(ctx, spec.invoiceId, spec.change, key));
        cached = await cacheBill(ctx, bill);
        return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
      },
    });
    // Say whether Xero answered with an error or not at all (issue 17 item 3).
    const outcome = await execute.catch((error: unknown) => {
      throw explainUnconfirmed(error);
    });
    return { outcome, cached: cached as CachedBill | null };
  }

  return {
    /**
     * PATCH update-bill (docs/product/features.md §7 `{amount}`): the draft's one line gets the new gross
     * amount.
     */
    async updateBill(
      ctx: CisBillsContext,
      invoiceId: string,
      amount: number,
      idempotencyKey: string | undefined,
    ): Promise<DraftBill> {
      const bill = await getBill(ctx, invoiceId);
      if (bill.status !== 'DRAFT')
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero: only draft bills can be edited here`,
        );
      const lines = (bill.lines as CachedLine[]) ?? [];
      const line = lines[0];
      if (lines.length !== 1 || !line?.lineItemId)
        throw new AppError('CONFLICT', 'This bill has more than one line: change its amount in Xero');
      const amountPence = toPence(amount);
      // The amount is the gross the split is shown on, so it must be the bill total: a VAT-exclusive bill
      // becomes VAT-inclusive rather than have VAT added on top of the figure typed.
      const lineAmountTypes = bill.lineAmountTypes === 'NoTax' ? 'NoTax' : 'Inclusive';
      const newLine: BillLineInput = {
        lineItemId: line.lineItemId,
        description: line.description ?? 'Subcontractor services',
        quantity: 1,
        unitPence: amountPence,
        accountCode: line.accountCode,
        taxType: line.taxType && lineAmountTypes !== 'NoTax' ? line.taxType : null,
      };
      const { cached } = await writeBill(ctx, {
        kind: 'bill.update',
        invoiceId,
        amountPence,
        idempotencyKey,
        request: { invoiceId, amountPence, lineItemId: line.lineItemId },
        // Status DRAFT guards the write: Xero refuses it if the bill was approved meanwhile.
        change: { status: 'DRAFT', lineAmountTypes, lines: [newLine] },
        detail: { before: bill.totalPence, after: amountPence },
      });
      const current = cached ?? (await repo.findBill(ctx.organizationId, invoiceId)) ?? bill;
      return toDraftBill(current);
    },

    /**
     * POST approve-bill (docs/product/features.md §7, header carrying the saved default bill account): lines
     * without an account are coded to that account, then the bill is authorised.
     */
    async approveBill(
      ctx: CisBillsContext,
      invoiceId: string,
      defaultAccountId: string | null,
      idempotencyKey: string | undefined,
    ): Promise<BillActionResponse> {
      if (!defaultAccountId)
        throw new AppError(
          'VALIDATION_ERROR',
          'Please set a default bill account in the settings page before approving bills.',
        );
      const account = await findAccount(ctx, () =>
        repo.findAccountById(ctx.organizationId, defaultAccountId),
      );
      if (!account || account.status !== 'ACTIVE' || !account.code) {
        throw new AppError(
          'VALIDATION_ERROR',
          'The default bill account is not an active account in Xero. Choose another in Settings.',
        );
      }
      const bill = await getBill(ctx, invoiceId);
      if (bill.status === 'AUTHORISED' || bill.status === 'PAID')
        return { invoiceID: invoiceId, status: bill.status, message: 'This bill is already approved' };
      if (bill.status !== 'DRAFT' && bill.status !== 'SUBMITTED')
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero and cannot be approved`,
        );
      const lines = (bill.lines as CachedLine[]) ?? [];
      const needsAccount = lines.some((l) => !l.accountCode);
      const change: BillChange = { status: 'AUTHORISED' };
      if (!bill.dueDate && bill.date) change.dueDate = bill.date;
      if (needsAccount) {
        // Lines left out of an update are deleted by Xero, so every line is sent back with its id.
        change.lines = lines.map((l) => ({
          lineItemId: l.lineItemId,
          description: l.description ?? 'Subcontractor services',
          quantity: l.quantity ?? 1,
          unitPence: getUnitPence(l.unitAmount),
          accountCode: l.accountCode ?? account.code,
          taxType: l.taxType,
        }));
      }
      const { outcome } = await writeBill(ctx, {
        kind: 'bill.approve',
        invoiceId,
        amountPence: bill.totalPence,
        idempotencyKey,
        request: { invoiceId, defaultAccountId, codedLines: needsAccount },
        change,
        detail: { amountPence: bill.totalPence, defaultAccountId, codedLines: needsAccount },
      });
      return outcome.response;
    },

    /**
     * POST delete-bill (docs/product/features.md §7; docs/architecture.md §4 "Delete sets status DELETED").
     * Only drafts can be deleted. An administrator may delete any draft bill; other users only bills created
     * through Ledgerlink, so a bill the accountant entered in Xero is not removed by someone else by mistake
     * (docs/product/features.md §6: 403).
     */
    async deleteBill(
      ctx: CisBillsContext,
      invoiceId: string,
      idempotencyKey: string | undefined,
    ): Promise<BillActionResponse> {
      const bill = await getBill(ctx, invoiceId);
      if (!ctx.isAdmin && !(await isRaisedInLedgerlink(ctx, invoiceId))) {
        await audit.recordFor(ctx, {
          action: 'bill.delete',
          target: invoiceId,
          result: 'failure',
          detail: { error: 'not permitted' },
        });
        throw new AppError('FORBIDDEN', "You don't have permission to delete this bill");
      }
      if (bill.status === 'DELETED')
        return { invoiceID: invoiceId, status: 'DELETED', message: 'This bill was already deleted' };
      if (bill.status !== 'DRAFT' && bill.status !== 'SUBMITTED') {
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero: only draft bills can be deleted (approved bills are voided in Xero)`,
        );
      }
      const { outcome } = await writeBill(ctx, {
        kind: 'bill.delete',
        invoiceId,
        amountPence: bill.totalPence,
        idempotencyKey,
        request: { invoiceId },
        change: { status: 'DELETED' },
        detail: {
          amountPence: bill.totalPence,
          contactId: bill.contactId,
          reference: bill.invoiceNumber ?? '',
        },
      });
      return outcome.response;
    },
  };
}
export type BillChanges = ReturnType<typeof createBillChanges>;
