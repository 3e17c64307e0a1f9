import { getCisDeductionLineDescription, getLineVatPence, splitCisBill } from '../../../shared/cis';
import {
  isCisCheckCurrent,
  type BillActionResponse,
  type CreateBillRequest,
  type CreateBillResult,
} from '../../../shared/cis-bills';
import { roundHalfUp, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import { createBatcher } from '../../xero/batcher';
import { explainUnconfirmed } from '../../ledger/index';
import type { BillAnswer, NewBill } from '../../xero/xero-port';
import { checkDeductionAccount, isCisSystemAccount, readContactCis, resolveBillVat } from './bill-booking';
import type { CisBillsContext, CisBillsCore, CisBillsDeps, CreateRecord, PreparedBill } from './context';
import { checkBillsRedo } from './redo-check';

/**
 * A bill for a contact Xero does not mark as a CIS subcontractor, sent without the person's confirmation
 * (issue 42).
 */
export function notCisMessage(name: string): string {
  return `${name} is not a CIS subcontractor in Xero, so Ledgerlink will not work out a deduction. Set up their CIS rate in Xero, or confirm the bill is outside the Construction Industry Scheme to create it without a deduction.`;
}

/** Line amount in pence: quantity (up to 4 decimals) × unit price, rounded half up as Xero rounds a line. */
function getLinePence(quantity: number, unitPence: number): number {
  const quantityE4 = BigInt(Math.round(quantity * 10_000));
  return Number(roundHalfUp(quantityE4 * BigInt(unitPence), 10_000n));
}

/** What happened to a bill, in words, from the status Xero gives it now. */
function describeStatus(status: string): string {
  const words: Record<string, string> = {
    DRAFT: 'put back to draft',
    SUBMITTED: 'submitted for approval',
    AUTHORISED: 'approved',
    PAID: 'paid',
    VOIDED: 'voided',
    DELETED: 'deleted',
  };
  return words[status] ?? `changed to ${status.toLowerCase()}`;
}

function describeFailure(error: unknown): { statusCode: number; message: string } {
  if (error instanceof AppError) return { statusCode: error.statusCode, message: error.message };
  return { statusCode: 500, message: 'Failed to create bill' };
}

/** Creating bills, one or a batch: each its own ledger write, sent together in one Xero call. */
export function createBillCreation(deps: CisBillsDeps, core: CisBillsCore) {
  const { repo, bills: xeroBills, sync, ledger } = deps;
  const { checkCisSettings, findAccount, cacheBill, readElement, markedBill, auditOf, verifiedRateOf } = core;

  async function prepareBill(ctx: CisBillsContext, request: CreateBillRequest): Promise<PreparedBill> {
    let contact = await repo.findContact(ctx.organizationId, request.contactId);
    if (!contact) {
      // A contact added in Xero since the last look: one incremental read brings it in.
      await sync.syncContacts(ctx, { force: true });
      contact = await repo.findContact(ctx.organizationId, request.contactId);
    }
    if (!contact)
      throw new AppError(
        'VALIDATION_ERROR',
        `The contact with ID '${request.contactId}' could not be found in Xero. Refresh the subcontractors and choose again.`,
      );
    if (contact.status === 'ARCHIVED')
      throw new AppError('VALIDATION_ERROR', `${contact.name} is archived in Xero and cannot be billed`);
    // A bill never goes out on a subcontractor's unknown CIS state: an unchecked contact is checked first
    // (no call when its kept settings are current; one for several bills of the same contact).
    if (!isCisCheckCurrent(contact)) {
      await checkCisSettings(ctx, contact.contactId);
      contact = (await repo.findContact(ctx.organizationId, contact.contactId)) ?? contact;
    }
    // The rate the contact is given: HMRC's answer to a verification from Ledgerlink, else Xero's (issue 43).
    const cis = readContactCis(contact, await verifiedRateOf(ctx, contact.contactId));
    if (cis.state === 'unknown')
      throw new AppError(
        'UNPROCESSABLE',
        `Xero has no CIS rate for ${contact.name}, so the deduction cannot be worked out. Please set up the CIS rate for this subcontractor in your Xero account.`,
      );
    // Issue 42: a contact Xero does not mark as a CIS subcontractor is never silently deducted from, nor silently
    // paid in full: the person says the work is outside CIS (scaffold hire, materials only) or sets CIS up.
    if (cis.state === 'not-cis' && request.withoutCisDeduction !== true)
      throw new AppError('UNPROCESSABLE', notCisMessage(contact.name));

    const settings = await repo.findCisSettings(ctx.organizationId);
    await sync.syncTaxRates(ctx);
    const vat = resolveBillVat(
      contact,
      settings,
      await repo.findBillTaxRates(ctx.organizationId),
      ctx.organization.defaultBillVatRateId,
    );
    if (vat.problem) throw new AppError('VALIDATION_ERROR', vat.problem);
    const materialsCodes = new Set(settings.materialsAccountCodes);
    const lines: CreateRecord['lines'] = [];
    let labourPence = 0;
    let materialsPence = 0;
    let vatPence = 0;
    for (const line of request.lineItems) {
      const account = await findAccount(ctx, () =>
        repo.findAccountByCode(ctx.organizationId, line.accountCode),
      );
      if (!account || account.status !== 'ACTIVE') {
        throw new AppError(
          'VALIDATION_ERROR',
          `Account code '${line.accountCode}' is not an active account in Xero. Refresh the accounts and choose another.`,
        );
      }
      if (isCisSystemAccount(account)) {
        // Xero's API refuses its CIS system accounts on line items (docs/xero-api.md §4.8): say so in Xero's
        // words before spending a call.
        throw new AppError(
          'UNPROCESSABLE',
          `This organisation has Construction Industry Scheme enabled. The account code ${line.accountCode} cannot be used in line items via the API. Choose an ordinary direct costs account.`,
        );
      }
      if (account.type === 'BANK' || ['DEBTORS', 'CREDITORS', 'GST'].includes(account.systemAccount ?? '')) {
        throw new AppError(
          'VALIDATION_ERROR',
          `Account code '${line.accountCode}' cannot be used on a bill.`,
        );
      }
      if (settings.deductionAccountCode && line.accountCode === settings.deductionAccountCode) {
        throw new AppError(
          'VALIDATION_ERROR',
          `${account.name} (${line.accountCode}) holds the CIS deductions: Ledgerlink adds the deduction line itself.`,
        );
      }
      const unitPence = toPence(line.unitAmount);
      const linePence = getLinePence(line.quantity, unitPence);
      if (materialsCodes.has(line.accountCode)) materialsPence += linePence;
      else labourPence += linePence;
      vatPence += getLineVatPence(linePence, vat.percent);
      lines.push({
        description: line.description,
        quantity: line.quantity,
        unitPence,
        accountCode: line.accountCode,
        taxType: vat.taxType,
      });
    }
    const figures = splitCisBill({ labourPence, materialsPence, vatPence, rate: cis.rate });
    if (figures.cisDeductionPence > 0 && cis.rate !== null) {
      const code = settings.deductionAccountCode;
      const account = code
        ? await findAccount(ctx, () => repo.findAccountByCode(ctx.organizationId, code))
        : null;
      lines.push({
        description: getCisDeductionLineDescription(cis.rate),
        quantity: 1,
        unitPence: -figures.cisDeductionPence,
        accountCode: checkDeductionAccount(settings, account),
        // The deduction carries no VAT; on a bill without VAT no tax type is sent at all.
        taxType: vat.lineAmountTypes === 'NoTax' ? null : 'NONE',
      });
    }
    const record: CreateRecord = {
      contactId: request.contactId,
      date: request.date,
      reference: request.reference,
      status: request.status,
      // Xero's Total: what the subcontractor is paid (the deduction line is in it).
      totalPence: figures.amountDuePence,
      lineAmountTypes: vat.lineAmountTypes,
      lines,
      cis: {
        rate: cis.rate,
        labourPence,
        materialsPence,
        vatPence,
        deductionPence: figures.cisDeductionPence,
        vatTreatment: vat.treatment,
      },
    };
    const element: NewBill = {
      contactId: request.contactId,
      date: request.date,
      // A tax-week bill is due for that week; an explicit due date also keeps it approvable in any
      // organisation, whatever its default bill terms.
      dueDate: request.date,
      reference: request.reference,
      lineAmountTypes: vat.lineAmountTypes,
      status: request.status,
      lines,
    };
    return { record, element };
  }

  /**
   * Each bill is its own ledger write with its own key; the ones that need sending go to Xero together in
   * one call. A bill that fails does not stop the others.
   */
  async function createMany(
    ctx: CisBillsContext,
    bills: { id: string; key: string | undefined; request: CreateBillRequest }[],
    confirmRedo = false,
  ): Promise<{ result: CreateBillResult; error: unknown }[]> {
    const prepared = await Promise.all(
      bills.map(async (bill) => {
        try {
          return { bill, prepared: await prepareBill(ctx, bill.request), error: null };
        } catch (error) {
          return { bill, prepared: null, error };
        }
      }),
    );
    const sendable = prepared.filter((p) => p.prepared !== null);
    // Issue 44: after a restore, bills Xero already has are named before anything is sent (redo-check.ts).
    await checkBillsRedo(
      deps,
      ctx,
      sendable.map((p) => ({ key: p.bill.key, record: p.prepared!.record })),
      confirmRedo,
    );
    // One Xero call for the bills that need sending, under the one batcher's rule: the bills sorted by their
    // keys and a key made from them, so a retry of the same bills sends the same body under the same key.
    const batch = createBatcher<NewBill, BillAnswer>(sendable.length, (elements, batchKey) =>
      xeroBills.createMany(ctx, elements, batchKey),
    );
    const results = await Promise.all(
      prepared.map(
        async ({
          bill,
          prepared: ready,
          error,
        }): Promise<{ result: CreateBillResult; error: unknown; replayed?: boolean }> => {
          if (!ready) {
            // Refused before anything was recorded or sent: not a write, so no activity-log line.
            const failure = describeFailure(error);
            return { result: { id: bill.id, ok: false, ...failure }, error };
          }
          let queued = false;
          try {
            const outcome = await ledger.execute<BillActionResponse>({
              organizationId: ctx.organizationId,
              tenantId: ctx.tenantId,
              userId: ctx.userId,
              kind: 'bill.create',
              targetId: bill.request.contactId,
              amountPence: ready.record.totalPence,
              idempotencyKey: bill.key,
              request: ready.record,
              audit: auditOf(ctx, 'bill.create', bill.request.reference, {
                contactId: bill.request.contactId,
                reference: bill.request.reference,
                date: bill.request.date,
                status: bill.request.status,
                amountPence: ready.record.totalPence,
                cisRate: ready.record.cis?.rate ?? null,
                cisDeductionPence: ready.record.cis?.deductionPence ?? 0,
              }),
              send: async (key) => {
                queued = true;
                const answer = readElement(await batch.join(key, markedBill(ready.element, key)));
                await cacheBill(ctx, answer);
                return {
                  xeroId: answer.invoiceId,
                  response: { invoiceID: answer.invoiceId, status: answer.status || ready.record.status },
                };
              },
            });
            return {
              result: {
                id: bill.id,
                ok: true,
                invoiceID: outcome.response.invoiceID,
                status: outcome.response.status,
              },
              error: null,
              replayed: outcome.replayed,
            };
          } catch (error) {
            const settled = await settleUnknownCreate(ctx, error);
            if (settled) {
              return {
                result: { id: bill.id, ok: true, invoiceID: settled.invoiceID, status: settled.status },
                error: null,
              };
            }
            const explained = explainUnconfirmed(error);
            const failure = describeFailure(explained);
            return { result: { id: bill.id, ok: false, ...failure }, error: explained };
          } finally {
            if (!queued) batch.leave();
          }
        },
      ),
    );
    // Replayed answers are of the moment they were first given: say what is true now (issue 28).
    const replayed = results.filter((r) => r.replayed).map((r) => r.result);
    if (replayed.length === 0) return results;
    const now = await describeReplayedBills(ctx, replayed);
    return results.map((r) => {
      const changed = r.replayed && r.result.invoiceID ? now.get(r.result.invoiceID) : undefined;
      return changed ? { ...r, result: { ...r.result, ...changed } } : r;
    });
  }

  /**
   * Replayed creates answer each bill as it is now, not as it was when first created (issue 28: a bill deleted
   * since was replayed as DRAFT). A replay is a retry, rare, so the bills are read again from Xero in one call
   * (the cache takes what it says); if Xero cannot be asked, the cache answers. Answers the bills that changed,
   * with their status now and a message saying so.
   */
  async function describeReplayedBills(
    ctx: CisBillsContext,
    replayed: readonly CreateBillResult[],
  ): Promise<Map<string, { status: string; message: string }>> {
    const ids = replayed.flatMap((r) => (r.invoiceID ? [r.invoiceID] : []));
    const current = new Map<string, string | null>();
    try {
      const { rows } = await sync.refreshInvoicesByIds(ctx, ids);
      for (const id of ids) current.set(id.toLowerCase(), null);
      for (const row of rows) current.set(row.invoiceId.toLowerCase(), row.status);
    } catch (error) {
      deps.log?.warn({ err: error }, 'replayed bills could not be read again from Xero; the cache answers');
      for (const id of ids)
        current.set(id.toLowerCase(), (await repo.findBill(ctx.organizationId, id))?.status ?? '');
    }
    const changed = new Map<string, { status: string; message: string }>();
    for (const result of replayed) {
      if (!result.invoiceID) continue;
      const status = current.get(result.invoiceID.toLowerCase());
      if (status === null)
        changed.set(result.invoiceID, {
          status: result.status ?? '',
          message: 'This bill was created, but Xero no longer has it',
        });
      else if (status && status !== result.status)
        changed.set(result.invoiceID, {
          status,
          message: `This bill was created and has since been ${describeStatus(status)}`,
        });
    }
    return changed;
  }

  /**
   * A retried create whose first answer was lost (ledger state unknown): look the bill up in Xero now, so
   * the user gets the bill that exists instead of "still processing", and nothing is sent twice.
   */
  async function settleUnknownCreate(
    ctx: CisBillsContext,
    error: unknown,
  ): Promise<BillActionResponse | null> {
    if (!(error instanceof AppError) || error.code !== 'CONFLICT' || error.extra?.writeState !== 'unknown')
      return null;
    const writeId = Number(error.extra.writeId);
    const row = Number.isInteger(writeId) ? await ledger.findById(writeId) : null;
    if (!row || row.organizationId !== ctx.organizationId || row.kind !== 'bill.create') return null;
    try {
      // The ledger settles the write with what it finds (and writes its activity-log line then, once).
      const settled = await ledger.lookUp(row, ctx.tenantId);
      if (settled.state !== 'confirmed' || !settled.xeroId) return null;
      const response = settled.response as BillActionResponse | null;
      return { invoiceID: settled.xeroId, status: response?.status ?? (row.request as CreateRecord).status };
    } catch (lookupError) {
      deps.log?.warn({ err: lookupError, writeId }, 'look-up of a bill create failed; it stays unknown');
      return null;
    }
  }

  return {
    /**
     * Creates bills (docs/product/features.md §7 create-bill, one or a batch). Each bill is its own ledger
     * write with its own key (`keys[i]`); the ones that need sending go to Xero together in one call. A bill
     * that fails does not stop the others; each result says what happened.
     */
    async createBills(
      ctx: CisBillsContext,
      bills: { id: string; key: string | undefined; request: CreateBillRequest }[],
      confirmRedo = false,
    ): Promise<CreateBillResult[]> {
      return (await createMany(ctx, bills, confirmRedo)).map((o) => o.result);
    },

    /**
     * POST create-bill (docs/product/features.md §7): one bill; a refusal is thrown with its own status (422
     * for CIS problems).
     */
    async createBill(
      ctx: CisBillsContext,
      key: string | undefined,
      request: CreateBillRequest,
      confirmRedo = false,
    ): Promise<BillActionResponse> {
      const [outcome] = await createMany(ctx, [{ id: 'bill', key, request }], confirmRedo);
      if (outcome?.result.ok && outcome.result.invoiceID)
        return {
          invoiceID: outcome.result.invoiceID,
          status: outcome.result.status ?? request.status,
          ...(outcome.result.message ? { message: outcome.result.message } : {}),
        };
      if (outcome?.error instanceof AppError) throw outcome.error;
      throw new AppError('XERO_UNAVAILABLE', outcome?.result.message ?? 'Failed to create bill');
    },
  };
}
