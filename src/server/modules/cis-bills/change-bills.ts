import {
  getCisDeductionLineDescription,
  getCisDeductionPence,
  getInclusiveLineVatPence,
  isCisDeductionLine,
  readCisDeductionLineRate,
  type CisRate,
} from '../../../shared/cis';
import { isCisCheckCurrent, type BillActionResponse, type DraftBill } from '../../../shared/cis-bills';
import { formatMoney, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { CachedLine } from '../../xero/sync/mappers';
import { explainUnconfirmed, type WriteKind } from '../../ledger/index';
import type { BillChange, BillLineInput } from '../../xero/xero-port';
import { hasAnyBillMark } from './bill-link';
import {
  checkDeductionAccount,
  createBillContext,
  isCisSystemAccount,
  readCachedBill,
  readContactCis,
} from './bill-booking';
import { toDraftBills } from './bill-reads';
import type { CachedBill, CisBillSettings } from './cis-bills.repository';
import { isUuid, type CisBillsContext, type CisBillsCore, type CisBillsDeps } from './context';

/** A cached line's unit amount (pounds, up to 4 decimals) in pence, keeping the fractions of a penny. */
function getUnitPence(unitAmount: number | null | undefined): number {
  return Math.round((unitAmount ?? 0) * 1_000_000) / 10_000;
}

/** A bill's edit, approval and deletion: one writer per bill, each a ledger write. */
export function createBillChanges(deps: CisBillsDeps, core: CisBillsCore) {
  const { repo, bills: xeroBills, sync, ledger, audit } = deps;
  const { findAccount, cacheBill, readElement, auditOf, checkCisSettings, verifiedRateOf } = core;

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

  /** The organisation's CIS settings, its accounts, and the rate the bill's subcontractor is given now (issue 43). */
  async function readBillCis(ctx: CisBillsContext, bill: CachedBill) {
    const contactId = bill.contactId ?? '';
    let contact = contactId ? await repo.findContact(ctx.organizationId, contactId) : null;
    if (contact && !isCisCheckCurrent(contact)) {
      await checkCisSettings(ctx, contact.contactId);
      contact = (await repo.findContact(ctx.organizationId, contact.contactId)) ?? contact;
    }
    const [settings, accounts] = await Promise.all([
      repo.findCisSettings(ctx.organizationId),
      repo.findCodedAccounts(ctx.organizationId),
    ]);
    const verified = await verifiedRateOf(ctx, contact?.contactId);
    return { settings, accounts, contactCis: readContactCis(contact, verified) };
  }

  /**
   * The deduction line a bill needs at `rate` on `labourPence` (none at 0), keeping the id of the one it has so
   * Xero changes it rather than adds another. Refused while no deductions account is chosen.
   */
  async function deductionLineFor(
    ctx: CisBillsContext,
    settings: CisBillSettings,
    rate: CisRate,
    labourPence: number,
    existing: CachedLine | undefined,
    noTax: boolean,
  ): Promise<BillLineInput | null> {
    const deductionPence = getCisDeductionPence(labourPence, rate);
    if (deductionPence === 0) return null;
    const code = settings.deductionAccountCode;
    const account = code
      ? await findAccount(ctx, () => repo.findAccountByCode(ctx.organizationId, code))
      : null;
    return {
      lineItemId: existing?.lineItemId ?? null,
      description: getCisDeductionLineDescription(rate),
      quantity: 1,
      unitPence: -deductionPence,
      accountCode: checkDeductionAccount(settings, account),
      taxType: noTax ? null : 'NONE',
    };
  }

  return {
    /**
     * PATCH update-bill (docs/product/features.md §7 `{amount}`): the draft's gross total (labour + materials +
     * VAT, before the deduction) becomes the amount typed. Its labour line takes up the change, its materials
     * line stays, and the deduction line is worked out again at the subcontractor's rate on the new labour
     * (issue 42), so Xero's total is again what the subcontractor is paid.
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
      const { settings, accounts, contactCis } = await readBillCis(ctx, bill);
      const lines = (bill.lines as CachedLine[]) ?? [];
      const context = createBillContext(settings, accounts, contactCis.rate);
      const cisAccounts = new Set(accounts.filter((a) => isCisSystemAccount(a)).map((a) => a.code ?? ''));
      if (lines.some((l) => l.accountCode !== null && cisAccounts.has(l.accountCode)))
        throw new AppError(
          'CONFLICT',
          "This bill was entered with Xero's own CIS, which Xero does not let other apps change: change its amount in Xero",
        );
      const asLine = (l: CachedLine) => ({
        accountCode: l.accountCode,
        description: l.description,
        lineAmountPence: l.lineAmountPence,
        taxAmountPence: l.taxAmountPence,
      });
      const deductionLines = lines.filter((l) =>
        isCisDeductionLine(asLine(l), settings.deductionAccountCode),
      );
      const materials = new Set(context.materialsAccountCodes);
      const others = lines.filter((l) => !deductionLines.includes(l));
      const materialsLines = others.filter((l) => l.accountCode !== null && materials.has(l.accountCode));
      const labourLines = others.filter((l) => !materialsLines.includes(l));
      const line = labourLines[0];
      if (
        labourLines.length !== 1 ||
        materialsLines.length > 1 ||
        deductionLines.length > 1 ||
        !line?.lineItemId
      )
        throw new AppError('CONFLICT', 'This bill has more than one line: change its amount in Xero');
      const materialsLine = materialsLines[0];
      const amountPence = toPence(amount);
      const wasInclusive = bill.lineAmountTypes === 'Inclusive';
      const noTax = bill.lineAmountTypes === 'NoTax';
      const percent =
        !noTax && line.taxType
          ? Number((await repo.findBillTaxRate(ctx.organizationId, line.taxType))?.rate ?? 0)
          : 0;
      // A bill that carries VAT is sent VAT-inclusive, so its total is the amount typed to the penny; the
      // materials line keeps its amount with its VAT.
      const lineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax' = noTax
        ? 'NoTax'
        : percent > 0 || wasInclusive
          ? 'Inclusive'
          : 'Exclusive';
      const grossOf = (l: CachedLine) =>
        wasInclusive || noTax ? l.lineAmountPence : l.lineAmountPence + l.taxAmountPence;
      const materialsGross = materialsLine ? grossOf(materialsLine) : 0;
      const labourGross = amountPence - materialsGross;
      if (labourGross <= 0)
        throw new AppError(
          'VALIDATION_ERROR',
          `The amount must be more than the bill's materials (${formatMoney(materialsGross)} with VAT)`,
        );
      const labourNet =
        lineAmountTypes === 'Inclusive'
          ? labourGross - getInclusiveLineVatPence(labourGross, percent)
          : labourGross;
      // The rate Xero's CIS settings give the subcontractor now; else the one the bill's deduction line names.
      const rate =
        contactCis.state === 'cis'
          ? contactCis.rate
          : contactCis.state === 'unknown'
            ? readCisDeductionLineRate(deductionLines[0]?.description)
            : null;
      const newLines: BillLineInput[] = [
        {
          lineItemId: line.lineItemId,
          description: line.description ?? 'Subcontractor services',
          quantity: 1,
          unitPence: labourGross,
          accountCode: line.accountCode,
          taxType: line.taxType && !noTax ? line.taxType : null,
        },
      ];
      if (materialsLine)
        newLines.push({
          lineItemId: materialsLine.lineItemId,
          description: materialsLine.description ?? 'Materials',
          quantity: 1,
          unitPence:
            lineAmountTypes === 'Inclusive' || noTax ? materialsGross : materialsLine.lineAmountPence,
          accountCode: materialsLine.accountCode,
          taxType: materialsLine.taxType && !noTax ? materialsLine.taxType : null,
        });
      const deduction =
        rate === null
          ? null
          : await deductionLineFor(
              ctx,
              settings,
              rate,
              labourNet,
              deductionLines[0],
              lineAmountTypes === 'NoTax',
            );
      if (deduction) newLines.push(deduction);
      const deductionPence = deduction ? -deduction.unitPence : 0;
      // What Xero's total will be: the amount typed less the deduction.
      const expectedTotal = amountPence - deductionPence;
      const { cached } = await writeBill(ctx, {
        kind: 'bill.update',
        invoiceId,
        amountPence: expectedTotal,
        idempotencyKey,
        request: {
          invoiceId,
          amountPence: expectedTotal,
          grossPence: amountPence,
          lineItemId: line.lineItemId,
        },
        // Status DRAFT guards the write: Xero refuses it if the bill was approved meanwhile.
        change: { status: 'DRAFT', lineAmountTypes, lines: newLines },
        detail: { before: bill.totalPence, after: expectedTotal, grossPence: amountPence, deductionPence },
      });
      const current = cached ?? (await repo.findBill(ctx.organizationId, invoiceId)) ?? bill;
      const [draft] = await toDraftBills(repo, ctx, [current], core.verifiedRatesOf);
      if (!draft) throw new AppError('NOT_FOUND', 'Bill not found');
      return draft;
    },

    /**
     * POST approve-bill (docs/product/features.md §7, header carrying the saved default bill account): lines
     * without an account are coded to that account, the deduction is booked as a line of its own at the
     * subcontractor's rate when the bill lacks it or carries another figure (issue 42: once approved, Xero shows
     * the net as due), then the bill is authorised. A bill entered with Xero's own CIS is approved as it is.
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
      // Lines left out of an update are deleted by Xero, so every line is sent back with its id.
      const coded = lines.map((l) => ({ ...l, accountCode: l.accountCode ?? account.code }));
      const { settings, accounts, contactCis } = await readBillCis(ctx, bill);
      const reading = readCachedBill(
        { ...bill, lines: coded },
        createBillContext(settings, accounts, contactCis.rate),
      );
      // The deduction the bill should carry: at the subcontractor's rate now, on its labour. Xero's own CIS
      // counts as it is; a contact whose CIS state is not known, or not CIS, keeps what the bill has.
      const isDeduction = (l: CachedLine) =>
        isCisDeductionLine(
          {
            accountCode: l.accountCode,
            description: l.description,
            lineAmountPence: l.lineAmountPence,
            taxAmountPence: l.taxAmountPence,
          },
          settings.deductionAccountCode,
        );
      let rebook: { line: BillLineInput | null } | null = null;
      if (
        reading.source !== 'xero' &&
        contactCis.state === 'cis' &&
        getCisDeductionPence(reading.labourPence, contactCis.rate) !== reading.bookedPence
      ) {
        const line = await deductionLineFor(
          ctx,
          settings,
          contactCis.rate,
          reading.labourPence,
          coded.find(isDeduction),
          bill.lineAmountTypes === 'NoTax',
        );
        rebook = { line };
      }
      const change: BillChange = { status: 'AUTHORISED' };
      if (!bill.dueDate && bill.date) change.dueDate = bill.date;
      if (needsAccount || rebook) {
        change.lines = (rebook ? coded.filter((l) => !isDeduction(l)) : coded).map((l) => ({
          lineItemId: l.lineItemId,
          description: l.description ?? 'Subcontractor services',
          quantity: l.quantity ?? 1,
          unitPence: getUnitPence(l.unitAmount),
          accountCode: l.accountCode,
          taxType: l.taxType,
        }));
        if (rebook?.line) change.lines.push(rebook.line);
      }
      const deductionPence = rebook ? -(rebook.line?.unitPence ?? 0) : reading.bookedPence;
      const { outcome } = await writeBill(ctx, {
        kind: 'bill.approve',
        invoiceId,
        amountPence: bill.totalPence,
        idempotencyKey,
        request: { invoiceId, defaultAccountId, codedLines: needsAccount, deductionPence },
        change,
        detail: {
          amountPence: bill.totalPence,
          defaultAccountId,
          codedLines: needsAccount,
          ...(rebook ? { deductionPence } : {}),
        },
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
