import {
  countNewPayments,
  getDocumentCisFigures,
  getRefundableCredit,
  negateFigures,
  normalizeCisRate,
  setOffCredits,
  toOwed,
  type CisAccountsRule,
  type CisDocumentFacts,
  type CisPaymentEvent,
  type CountedPayment,
  type CreditAllocation,
} from '../../../shared/cis-figures';
import type { FindVerifiedRates, VerifiedRate } from '../../../shared/hmrc-filing';
import type { RequestContext } from '../organizations/tenancy';
import type { CachedLine, CachedPayment } from '../../xero/sync/mappers';
import type {
  CachedAllocation,
  CachedContact,
  CachedCreditNote,
  CachedInvoice,
  CisReturnsRepository,
  CountedPaymentRow,
} from './cis-returns.repository';

/** What the CIS Returns module needs of a request (the service re-exports it). */
export type CisReturnsContext = Pick<
  RequestContext,
  'organizationId' | 'tenantId' | 'userId' | 'username' | 'isAdmin' | 'ip' | 'organization'
>;

/** Xero's CIS Materials system account: its lines are materials whatever the settings say (docs/xero-api.md §4.8). */
const CIS_MATERIALS_SYSTEM_ACCOUNT = 'CISMATERIALS';

function toFacts(row: {
  lineAmountTypes: string | null;
  lines: unknown[];
  totalPence: number;
  cisDeductionPence: number | null;
  cisRate: string | null;
}): CisDocumentFacts {
  const lines = (row.lines as CachedLine[]) ?? [];
  return {
    lineAmountTypes: row.lineAmountTypes,
    lines: lines.map((l) => ({
      accountCode: l.accountCode,
      description: l.description,
      lineAmountPence: l.lineAmountPence,
      taxAmountPence: l.taxAmountPence,
    })),
    totalPence: row.totalPence,
    xeroDeductionPence: row.cisDeductionPence,
    xeroRate: row.cisRate === null ? null : Number(row.cisRate),
  };
}

function toEvents(payments: unknown[]): CisPaymentEvent[] {
  return ((payments as CachedPayment[]) ?? []).flatMap((p) =>
    p.date && p.paymentId ? [{ paymentId: p.paymentId, date: p.date, amountPence: p.amountPence }] : [],
  );
}

/**
 * Whether a contact's documents are CIS ones: Xero's CIS settings for the contact decide when they are known (CIS
 * enabled, or not: a scaffold hire firm in the CIS group whose settings say no CIS is paid outside the scheme,
 * CIS340 §1, and CIS Bills raises its bills without a deduction); while they are not known, the organisation's
 * CIS subcontractors group does. A document with a deduction withheld (Xero's own, or a line on the deductions
 * account) is one too, whatever the contact's settings say (the return then flags the contact).
 */
export function isCisContact(ctx: CisReturnsContext, contact: CachedContact | undefined): boolean {
  if (!contact) return false;
  if (contact.cisEnabled !== null) return contact.cisEnabled;
  const group = ctx.organization.defaultCisSubcontractorsGroupId;
  return Boolean(group && contact.groupIds.includes(group));
}

/**
 * Counts the payments on CIS subcontractors' bills (and the refunds of their credit notes) that Ledgerlink has not
 * counted yet, and keeps what each carries (issue 42): the figures are fixed the first time a payment is counted,
 * under the accounts rule and the contact's CIS settings of that moment. Runs before every read of the return, and
 * before a settings change that would read the documents otherwise, so a payment is always counted under the
 * rule that stood when Ledgerlink first saw it.
 */
export function createPaymentCounting(deps: {
  repo: CisReturnsRepository;
  checkCisContacts: (ctx: CisReturnsContext, contactIds: readonly string[]) => Promise<unknown>;
  /** Issue 43: a contact verified with HMRC from Ledgerlink is a CIS subcontractor at HMRC's rate. */
  verifiedRates?: FindVerifiedRates;
  log?: { warn: (o: object, m: string) => void };
}) {
  const { repo } = deps;

  /** The accounts rule as it stands now: the settings' materials accounts and Xero's CIS Materials account. */
  async function currentRule(ctx: CisReturnsContext): Promise<CisAccountsRule> {
    const settings = await repo.findSettings(ctx.organizationId);
    const codes = new Set(settings?.materialsAccountCodes ?? []);
    for (const a of await repo.findAccounts(ctx.organizationId))
      if (a.systemAccount === CIS_MATERIALS_SYSTEM_ACCOUNT && a.code) codes.add(a.code);
    return {
      materialsAccountCodes: [...codes].sort(),
      deductionAccountCode: settings?.deductionAccountCode ?? null,
    };
  }

  function toRows(
    ctx: CisReturnsContext,
    doc: { id: string; type: 'ACCPAY' | 'ACCPAYCREDIT'; contactId: string; contactName: string },
    payments: readonly CisPaymentEvent[],
    counted: readonly CountedPayment[],
    meta: {
      rateUsed: number | null;
      contact: CachedContact | undefined;
      verified: VerifiedRate | undefined;
      rule: CisAccountsRule;
    },
  ) {
    const dates = new Map(payments.map((p) => [p.paymentId, p.date]));
    const contactCis = meta.contact?.cisEnabled === true;
    // The rate the contact is given: HMRC's answer to a verification from Ledgerlink, else Xero's (issue 43).
    const contactRate =
      meta.verified?.rate ?? (contactCis ? normalizeCisRate(meta.contact?.cisRate ?? null) : null);
    return counted.map((c) => {
      const figures = doc.type === 'ACCPAYCREDIT' ? negateFigures(c.figures) : c.figures;
      return {
        organizationId: ctx.organizationId,
        paymentId: c.paymentId,
        documentId: doc.id,
        documentType: doc.type,
        contactId: doc.contactId,
        contactName: doc.contactName,
        date: dates.get(c.paymentId) ?? '',
        amountPence: c.amountPence,
        grossPence: figures.grossPence,
        materialsPence: figures.materialsPence,
        deductionPence: figures.deductionPence,
        rateUsed: meta.rateUsed,
        contactCis,
        contactRate,
        rule: { ...meta.rule, materialsAccountCodes: [...meta.rule.materialsAccountCodes] },
      };
    });
  }

  async function countedMap(ctx: CisReturnsContext, documentIds: readonly string[]) {
    const byDocument = new Map<string, Map<string, CountedPayment>>();
    for (const row of await repo.findCountedByDocuments(ctx.organizationId, documentIds)) {
      const map = byDocument.get(row.documentId) ?? new Map<string, CountedPayment>();
      map.set(row.paymentId, asCounted(row));
      byDocument.set(row.documentId, map);
    }
    return byDocument;
  }

  return {
    currentRule,

    async countNew(ctx: CisReturnsContext): Promise<void> {
      // The CIS settings of contacts paid but not counted yet: one call each the first time (CIS Bills' check).
      const contactIds = [
        ...new Set([
          ...(await repo.findContactsWithUncountedPayments(ctx.organizationId)),
          ...(await repo.findCreditContactsWithUncountedRefunds(ctx.organizationId)),
        ]),
      ];
      if (contactIds.length > 0) {
        try {
          await deps.checkCisContacts(ctx, contactIds);
        } catch (error) {
          // The group and the settings already kept still decide; the rest are asked again next time.
          deps.log?.warn({ err: error }, 'CIS settings of paid contacts could not be read');
        }
      }
      const contacts = new Map(
        (await repo.findContacts(ctx.organizationId, contactIds)).map((c) => [c.contactId, c]),
      );
      const verified = deps.verifiedRates
        ? await deps.verifiedRates(ctx.organizationId, contactIds)
        : new Map<string, VerifiedRate>();
      const verifiedOf = (contact: CachedContact | undefined) =>
        contact ? verified.get(contact.contactId.toLowerCase()) : undefined;
      // Xero's CIS settings or the group decide (isCisContact), and a contact verified with HMRC is one too.
      const isCis = (c: CisReturnsContext, contact: CachedContact | undefined) =>
        isCisContact(c, contact) || verifiedOf(contact) !== undefined;
      const candidates = contactIds.filter((id) => isCis(ctx, contacts.get(id)));
      const rule = await currentRule(ctx);
      const rows: Array<ReturnType<typeof toRows>[number]> = [];

      // Bills: each one's figures less the credit notes allocated to it (set-off, CISR15030), then its payments.
      const bills = await repo.findBillsWithUncountedPayments(
        ctx.organizationId,
        candidates,
        rule.deductionAccountCode,
      );
      const allocations = await repo.findAllocationsTo(
        ctx.organizationId,
        bills.map((b) => b.invoiceId),
      );
      const creditFigures = new Map<string, CreditAllocation['credit']>();
      for (const a of allocations)
        if (!creditFigures.has(a.credit.creditNoteId))
          creditFigures.set(a.credit.creditNoteId, toOwed(getDocumentCisFigures(toFacts(a.credit), rule)));
      const countedByBill = await countedMap(
        ctx,
        bills.map((b) => b.invoiceId),
      );
      for (const bill of bills) rows.push(...countBill(ctx, bill));

      function countBill(c: CisReturnsContext, bill: CachedInvoice) {
        const contact = bill.contactId ? contacts.get(bill.contactId) : undefined;
        const figures = getDocumentCisFigures(toFacts(bill), rule);
        if (!isCis(c, contact) && figures.deductionPence <= 0) return [];
        const net = setOffCredits(
          toOwed(figures),
          allocations
            .filter((a) => a.allocation.invoiceId === bill.invoiceId)
            .flatMap((a) => {
              const credit = creditFigures.get(a.credit.creditNoteId);
              return credit ? [{ credit, appliedPence: a.allocation.amountPence }] : [];
            }),
        );
        const payments = toEvents(bill.payments);
        const counted = countNewPayments(net, payments, countedByBill.get(bill.invoiceId) ?? new Map());
        return toRows(
          c,
          {
            id: bill.invoiceId,
            type: 'ACCPAY',
            contactId: bill.contactId ?? '',
            contactName: contact?.name ?? bill.contactName ?? '',
          },
          payments,
          counted,
          { rateUsed: figures.rateUsed, contact, verified: verifiedOf(contact), rule },
        );
      }

      // Supplier credit notes refunded in cash: each refund reduces its month, in proportion.
      const credits = await repo.findCreditNotesWithUncountedRefunds(ctx.organizationId);
      const countedByCredit = await countedMap(
        ctx,
        credits.map((n) => n.creditNoteId),
      );
      for (const credit of credits) rows.push(...countRefunds(ctx, credit));

      function countRefunds(c: CisReturnsContext, credit: CachedCreditNote) {
        const contact = credit.contactId ? contacts.get(credit.contactId) : undefined;
        const figures = getDocumentCisFigures(toFacts(credit), rule);
        if (!isCis(c, contact) && figures.deductionPence <= 0) return [];
        const allocated = ((credit.allocations as CachedAllocation[]) ?? []).reduce(
          (sum, a) => sum + a.amountPence,
          0,
        );
        const refundable = getRefundableCredit(toOwed(figures), allocated);
        const payments = toEvents(credit.payments);
        const counted = countNewPayments(
          refundable,
          payments,
          countedByCredit.get(credit.creditNoteId) ?? new Map(),
        );
        // A refund is stored with the figures it takes off (negative); its earlier refunds count as carried.
        return toRows(
          c,
          {
            id: credit.creditNoteId,
            type: 'ACCPAYCREDIT',
            contactId: credit.contactId ?? '',
            contactName: contact?.name ?? credit.contactName ?? '',
          },
          payments,
          counted,
          { rateUsed: figures.rateUsed, contact, verified: verifiedOf(contact), rule },
        );
      }

      if (rows.length > 0) await repo.insertCounted(rows.filter((r) => r.date !== ''));
    },
  };
}
export type PaymentCounting = ReturnType<typeof createPaymentCounting>;

/** A stored row as the rules read it (a refund's figures back to the credit note's sign). */
function asCounted(row: CountedPaymentRow): CountedPayment {
  const sign = row.documentType === 'ACCPAYCREDIT' ? -1 : 1;
  return {
    paymentId: row.paymentId,
    amountPence: row.amountPence,
    figures: {
      grossPence: sign * row.grossPence,
      materialsPence: sign * row.materialsPence,
      deductionPence: sign * row.deductionPence,
    },
  };
}
