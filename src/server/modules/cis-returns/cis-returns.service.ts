import {
  CIS_HIGHER_RATE,
  getBillCisFigures,
  getBillMonthFigures,
  getLatePenaltyPence,
  getTaxMonth,
  hasPeriodBegun,
  hasPeriodEnded,
  isNilReturnRequired,
  listRecentPeriods,
  PERIOD_NOT_BEGUN_MESSAGE,
  type CisFiling,
  type CisMonthSummary,
  type CisMonthsResponse,
  type CisReturn,
  type CisReturnLine,
  type CisSettings,
  type ReturnBill,
  type SubcontractorRefs,
} from '../../../shared/cis-returns';
import { getDaysBetween, getUkToday } from '../../../shared/dates';
import { fromPence, sumPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { CachedLine, CachedPayment } from '../../xero/sync/mappers';
import type { XeroSync } from '../../xero/sync/sync.service';
import type { AuditLog } from '../audit/audit';
import type { RequestContext } from '../organizations/tenancy';
import type { CachedContact, CachedInvoice, CisReturnsRepository, FilingRow } from './cis-returns.repository';

/** What the CIS month-end reads of a request: the organisation, who asks, and their Xero token's owner. */
export type CisReturnsContext = Pick<
  RequestContext,
  'organizationId' | 'tenantId' | 'userId' | 'username' | 'isAdmin' | 'ip' | 'organization'
>;

/** Xero's CIS system accounts whose lines are materials whatever the settings say (docs/xero-api.md §4.8). */
const CIS_MATERIALS_SYSTEM_ACCOUNT = 'CISMATERIALS';

/** A month's figures before they become pounds: one entry per subcontractor paid. */
interface MonthFigures {
  lines: Array<{
    contactId: string;
    name: string;
    rate: number | null;
    grossPence: number;
    materialsPence: number;
    deductionPence: number;
  }>;
  totals: { grossPence: number; materialsPence: number; deductionPence: number };
}

/** A statement's data: everything HMRC asks a payment and deduction statement to carry (CISR12160). */
export interface CisStatement {
  contractorName: string;
  contractorUtr: string | null;
  employerReference: string | null;
  accountsOfficeReference: string | null;
  period: string;
  taxMonthEnd: string;
  line: CisReturnLine;
}

function toFiling(row: FilingRow | undefined): CisFiling | null {
  if (!row) return null;
  return { filedOn: row.filedOn, filedAt: row.filedAt.toISOString(), filedBy: row.filedByName };
}

function toReturnBill(row: CachedInvoice): ReturnBill {
  const lines = (row.lines as CachedLine[]) ?? [];
  const payments = (row.payments as CachedPayment[]) ?? [];
  return {
    contactId: row.contactId ?? '',
    contactName: row.contactName ?? '',
    subTotalPence: row.subTotalPence,
    totalPence: row.totalPence,
    lineAmountTypes: row.lineAmountTypes,
    lines: lines.map((l) => ({
      accountCode: l.accountCode,
      lineAmountPence: l.lineAmountPence,
      taxAmountPence: l.taxAmountPence,
    })),
    payments: payments.map((p) => ({ date: p.date, amountPence: p.amountPence })),
    xeroDeductionPence: row.cisDeductionPence,
    xeroRate: row.cisRate === null ? null : Number(row.cisRate),
  };
}

/**
 * The CIS month-end (issue 29): the monthly return of payments to subcontractors and their statements, from the
 * invoice cache kept true to Xero by the sync and the webhooks (decisions 018, 021). Figures are counted on the
 * payments made in the tax month (the scheme is on payments, not on bills), a part payment in proportion.
 */
export function createCisReturnsService(deps: {
  repo: CisReturnsRepository;
  sync: XeroSync;
  audit: AuditLog;
  /** CIS Bills' check of contacts' CIS settings (one call per contact not yet checked, single-flight). */
  checkCisContacts: (ctx: CisReturnsContext, contactIds: readonly string[]) => Promise<unknown>;
  /** Today's date, for tests (default: the UK's today). */
  today?: () => string;
  log?: { warn: (o: object, m: string) => void };
}) {
  const { repo, sync, audit } = deps;
  const today = deps.today ?? (() => getUkToday());

  async function readSettings(ctx: CisReturnsContext): Promise<CisSettings> {
    const row = await repo.findSettings(ctx.organizationId);
    return {
      contractorName: row?.contractorName ?? null,
      defaultContractorName: ctx.organization.tenantName ?? 'Unknown Organization',
      utr: row?.utr ?? null,
      employerReference: row?.employerReference ?? null,
      accountsOfficeReference: row?.accountsOfficeReference ?? null,
      materialsAccountCodes: row?.materialsAccountCodes ?? [],
      deductionAccountCode: row?.deductionAccountCode ?? null,
      reverseCharge: row?.reverseCharge ?? false,
    };
  }

  /**
   * Brings the cache up to date for the month-end: approved and paid bills (0 calls while webhooks keep the view
   * current, or one If-Modified-Since call; `refresh` always asks Xero), contacts and accounts (read once).
   */
  async function syncForReturns(ctx: CisReturnsContext, refresh: boolean) {
    if (refresh) await sync.syncInvoices(ctx, { key: 'bills-paid' });
    else await sync.ensureInvoices(ctx, { key: 'bills-paid' });
    await sync.syncContacts(ctx);
    await sync.syncAccounts(ctx);
  }

  /**
   * Whether a contact's bills belong on the return: Xero computed a CIS deduction on one of them, the contact's
   * CIS settings in Xero have CIS enabled, or the contact is in the organisation's CIS subcontractors group.
   */
  function isSubcontractor(ctx: CisReturnsContext, contact: CachedContact | undefined, bills: ReturnBill[]) {
    if (bills.some((b) => b.xeroDeductionPence !== null)) return true;
    if (!contact) return false;
    if (contact.cisEnabled === true) return true;
    const group = ctx.organization.defaultCisSubcontractorsGroupId;
    return Boolean(group && contact.groupIds.includes(group));
  }

  /** The figures of several tax months from one read of the cache. */
  async function computeMonths(
    ctx: CisReturnsContext,
    periods: readonly string[],
  ): Promise<Map<string, MonthFigures>> {
    const months = periods.map((p) => getTaxMonth(p));
    const from = months.reduce((min, m) => (m.start < min ? m.start : min), months[0]?.start ?? '');
    const to = months.reduce((max, m) => (m.end > max ? m.end : max), months[0]?.end ?? '');
    const rows = await repo.findBillsPaidBetween(ctx.organizationId, from, to);
    const bills = rows.filter((r) => r.contactId).map(toReturnBill);
    const contactIds = [...new Set(bills.map((b) => b.contactId))];
    // Contacts whose CIS settings Ledgerlink has not read (or that changed since) are read now: one call each,
    // only the first time a subcontractor appears on a return (issue 19's rule for CIS settings).
    const withoutXeroCis = contactIds.filter(
      (id) => !bills.some((b) => b.contactId === id && b.xeroDeductionPence !== null),
    );
    if (withoutXeroCis.length > 0) {
      try {
        await deps.checkCisContacts(ctx, withoutXeroCis);
      } catch (error) {
        // The group and the settings already kept still decide; the rest are asked again next time.
        deps.log?.warn({ err: error }, 'CIS settings of paid contacts could not be read');
      }
    }
    const contacts = new Map(
      (await repo.findContacts(ctx.organizationId, contactIds)).map((c) => [c.contactId, c]),
    );
    const settings = await readSettings(ctx);
    const materialsCodes = new Set(settings.materialsAccountCodes);
    const accounts = await repo.findAccounts(ctx.organizationId);
    for (const a of accounts)
      if (a.systemAccount === CIS_MATERIALS_SYSTEM_ACCOUNT && a.code) materialsCodes.add(a.code);
    const isMaterials = (code: string | null) => code !== null && materialsCodes.has(code);

    const byContact = new Map<string, ReturnBill[]>();
    for (const bill of bills) byContact.set(bill.contactId, [...(byContact.get(bill.contactId) ?? []), bill]);

    const result = new Map<string, MonthFigures>();
    for (const month of months) {
      const lines: MonthFigures['lines'] = [];
      for (const [contactId, contactBills] of byContact) {
        const contact = contacts.get(contactId);
        if (!isSubcontractor(ctx, contact, contactBills)) continue;
        const contactRate = contact?.cisEnabled ? (contact.cisRate ?? null) : null;
        let paid = 0;
        let gross = 0;
        let materials = 0;
        let deduction = 0;
        let xeroRate: number | null = null;
        for (const bill of contactBills) {
          const figures = getBillCisFigures(bill, isMaterials, contactRate);
          const inMonth = getBillMonthFigures(bill, figures, month);
          if (inMonth.paidPence <= 0) continue;
          paid += inMonth.paidPence;
          gross += inMonth.grossPence;
          materials += inMonth.materialsPence;
          deduction += inMonth.deductionPence;
          if (bill.xeroRate !== null) xeroRate = bill.xeroRate;
        }
        if (paid <= 0) continue;
        lines.push({
          contactId,
          name: contact?.name ?? contactBills[0]?.contactName ?? '',
          rate: xeroRate ?? contactRate ?? (deduction > 0 ? 20 : null),
          grossPence: gross,
          materialsPence: materials,
          deductionPence: deduction,
        });
      }
      lines.sort((a, b) => a.name.localeCompare(b.name, 'en-GB') || a.contactId.localeCompare(b.contactId));
      result.set(month.period, {
        lines,
        totals: {
          grossPence: sumPence(lines.map((l) => l.grossPence)),
          materialsPence: sumPence(lines.map((l) => l.materialsPence)),
          deductionPence: sumPence(lines.map((l) => l.deductionPence)),
        },
      });
    }
    return result;
  }

  function assertBegun(period: string, now: string) {
    if (!hasPeriodBegun(period, now)) throw new AppError('VALIDATION_ERROR', PERIOD_NOT_BEGUN_MESSAGE);
  }

  async function buildReturn(ctx: CisReturnsContext, period: string, refresh: boolean): Promise<CisReturn> {
    const now = today();
    assertBegun(period, now);
    await syncForReturns(ctx, refresh);
    const month = getTaxMonth(period);
    const figures = (await computeMonths(ctx, [period])).get(period);
    const refs = new Map(
      (await repo.findRefs(ctx.organizationId, figures?.lines.map((l) => l.contactId) ?? [])).map((r) => [
        r.contactId,
        r,
      ]),
    );
    const [filingRow] = await repo.findFilings(ctx.organizationId, [period]);
    const filing = toFiling(filingRow);
    const lines: CisReturnLine[] = (figures?.lines ?? []).map((l) => {
      const ref = refs.get(l.contactId);
      return {
        contactId: l.contactId,
        name: l.name,
        utr: ref?.utr ?? null,
        verificationNumber: l.rate === CIS_HIGHER_RATE ? (ref?.verificationNumber ?? null) : null,
        rate: l.rate,
        grossAmount: fromPence(l.grossPence),
        materialsAmount: fromPence(l.materialsPence),
        deductionAmount: fromPence(l.deductionPence),
      };
    });
    return {
      period: month.period,
      start: month.start,
      end: month.end,
      dueDate: month.dueDate,
      paymentDueDate: month.paymentDueDate,
      statementDueDate: month.statementDueDate,
      nil: lines.length === 0,
      nilReturnRequired: isNilReturnRequired(period),
      isCurrent: !hasPeriodEnded(period, now),
      filedAt: filing?.filedOn ?? null,
      filing,
      lines,
      totals: {
        grossAmount: fromPence(figures?.totals.grossPence ?? 0),
        materialsAmount: fromPence(figures?.totals.materialsPence ?? 0),
        deductionAmount: fromPence(figures?.totals.deductionPence ?? 0),
      },
    };
  }

  return {
    getReturn: buildReturn,

    /** The tax months of the last year, newest first, with their state and the penalty a late one now carries. */
    async listMonths(ctx: CisReturnsContext, options: { refresh: boolean }): Promise<CisMonthsResponse> {
      const now = today();
      await syncForReturns(ctx, options.refresh);
      const periods = listRecentPeriods(now);
      const figures = await computeMonths(ctx, periods);
      const filings = new Map(
        (await repo.findFilings(ctx.organizationId, periods)).map((f) => [f.period, f]),
      );
      const months: CisMonthSummary[] = periods.map((period) => {
        const month = getTaxMonth(period);
        const f = figures.get(period);
        const filing = toFiling(filings.get(period));
        const deductionPence = f?.totals.deductionPence ?? 0;
        const nil = (f?.lines.length ?? 0) === 0;
        const ended = hasPeriodEnded(period, now);
        // A nil month before nil returns became compulsory needs no return: it is never overdue.
        const needsReturn = !nil || isNilReturnRequired(period);
        const state = filing
          ? 'filed'
          : !ended
            ? 'current'
            : needsReturn && now > month.dueDate
              ? 'overdue'
              : 'due';
        return {
          period,
          start: month.start,
          end: month.end,
          dueDate: month.dueDate,
          nil,
          nilReturnRequired: isNilReturnRequired(period),
          subcontractors: f?.lines.length ?? 0,
          deductionAmount: fromPence(deductionPence),
          state,
          daysToDue: getDaysBetween(now, month.dueDate),
          penaltyAmount:
            state === 'overdue' ? fromPence(getLatePenaltyPence(month.dueDate, now, deductionPence)) : 0,
          filing,
        };
      });
      return { today: now, months };
    },

    /** One subcontractor's statement for a month; 404 for a contact not paid as a CIS subcontractor that month. */
    async getStatements(
      ctx: CisReturnsContext,
      period: string,
      contactId: string | null,
    ): Promise<CisStatement[]> {
      const ret = await buildReturn(ctx, period, false);
      const lines = contactId
        ? ret.lines.filter((l) => l.contactId.toLowerCase() === contactId.toLowerCase())
        : ret.lines;
      if (contactId && lines.length === 0)
        throw new AppError(
          'NOT_FOUND',
          'No statement: this contact is not a CIS subcontractor paid in that tax month',
        );
      if (lines.length === 0)
        throw new AppError('NOT_FOUND', 'No statements: no subcontractor was paid in that tax month');
      const settings = await readSettings(ctx);
      return lines.map((line) => ({
        contractorName: settings.contractorName ?? settings.defaultContractorName,
        contractorUtr: settings.utr,
        employerReference: settings.employerReference,
        accountsOfficeReference: settings.accountsOfficeReference,
        period: ret.period,
        taxMonthEnd: ret.end,
        line,
      }));
    },

    /** Marks a month's return as sent to HMRC (on `filedOn`, default today); audited. */
    async markFiled(ctx: CisReturnsContext, period: string, filedOn: string | undefined): Promise<CisFiling> {
      const now = today();
      assertBegun(period, now);
      const month = getTaxMonth(period);
      if (!hasPeriodEnded(period, now))
        throw new AppError(
          'VALIDATION_ERROR',
          `The return for the tax month ending ${month.end} can be filed once the month has ended`,
        );
      const day = filedOn ?? now;
      if (day > now) throw new AppError('VALIDATION_ERROR', 'Filed date cannot be in the future');
      if (day <= month.end)
        throw new AppError('VALIDATION_ERROR', `Filed date must be after the tax month's end (${month.end})`);
      const inserted = await repo.insertFiling({
        organizationId: ctx.organizationId,
        period,
        filedOn: day,
        filedByUserId: ctx.userId,
        filedByName: ctx.username,
      });
      if (!inserted) throw new AppError('CONFLICT', 'This return is already marked as filed');
      const late = day > month.dueDate;
      await audit.recordFor(ctx, {
        action: 'cis-returns.filed',
        target: period,
        result: 'success',
        detail: { period, filedOn: day, dueDate: month.dueDate, late },
      });
      const [row] = await repo.findFilings(ctx.organizationId, [period]);
      return toFiling(row) as CisFiling;
    },

    /** Takes the filed mark off a month (administrators only); audited with what it said. */
    async unmarkFiled(ctx: CisReturnsContext, period: string): Promise<{ period: string; filing: null }> {
      if (!ctx.isAdmin)
        throw new AppError('FORBIDDEN', 'Only an administrator can undo a return marked as filed');
      const removed = await repo.deleteFiling(ctx.organizationId, period);
      if (!removed) throw new AppError('NOT_FOUND', 'This return is not marked as filed');
      await audit.recordFor(ctx, {
        action: 'cis-returns.unfiled',
        target: period,
        result: 'success',
        detail: { period, filedOn: removed.filedOn, filedBy: removed.filedByName },
      });
      return { period, filing: null };
    },

    getSettings: readSettings,

    /** Saves the contractor's references and the materials accounts (codes checked against Xero's accounts). */
    async updateSettings(
      ctx: CisReturnsContext,
      input: Omit<CisSettings, 'defaultContractorName' | 'deductionAccountCode' | 'reverseCharge'> &
        Partial<Pick<CisSettings, 'deductionAccountCode' | 'reverseCharge'>>,
    ): Promise<CisSettings> {
      const codes = [...new Set(input.materialsAccountCodes.map((c) => c.trim()))];
      const deductionCode = input.deductionAccountCode;
      if (codes.length > 0 || deductionCode) {
        await sync.syncAccounts(ctx);
        const accounts = await repo.findAccounts(ctx.organizationId);
        const known = new Set(accounts.map((a) => a.code));
        const unknown = codes.filter((c) => !known.has(c));
        if (unknown.length > 0)
          throw new AppError(
            'VALIDATION_ERROR',
            `Account code '${unknown[0]}' is not an account in Xero. Refresh the accounts and choose another.`,
          );
        if (deductionCode) {
          const account = accounts.find((a) => a.code === deductionCode);
          if (!account || account.status !== 'ACTIVE')
            throw new AppError(
              'VALIDATION_ERROR',
              `Account code '${deductionCode}' is not an active account in Xero. Refresh the accounts and choose another.`,
            );
          // Xero's API refuses its system accounts (CIS ones among them) on line items: an ordinary liability
          // account holds the deductions until the firm pays HMRC (issue 42).
          if (account.class !== 'LIABILITY' || account.systemAccount)
            throw new AppError(
              'VALIDATION_ERROR',
              `${account.name} (${deductionCode}) cannot hold CIS deductions: choose an ordinary liability account, not a system account.`,
            );
          if (codes.includes(deductionCode))
            throw new AppError(
              'VALIDATION_ERROR',
              `${account.name} (${deductionCode}) cannot be both a materials account and the CIS deductions account.`,
            );
        }
      }
      const before = await readSettings(ctx);
      const values = {
        contractorName: input.contractorName,
        utr: input.utr,
        employerReference: input.employerReference,
        accountsOfficeReference: input.accountsOfficeReference,
        materialsAccountCodes: codes,
        deductionAccountCode: deductionCode === undefined ? before.deductionAccountCode : deductionCode,
        reverseCharge: input.reverseCharge ?? before.reverseCharge,
      };
      await repo.saveSettings(ctx.organizationId, values);
      await audit.recordFor(ctx, {
        action: 'cis-returns.settings',
        target: String(ctx.organizationId),
        result: 'success',
        detail: { before, after: values },
      });
      return readSettings(ctx);
    },

    /** The UTR and verification number kept for subcontractors. */
    async findRefs(ctx: CisReturnsContext, contactIds: readonly string[]): Promise<SubcontractorRefs[]> {
      const rows = await repo.findRefs(ctx.organizationId, contactIds);
      return rows.map((r) => ({
        contactId: r.contactId,
        utr: r.utr,
        verificationNumber: r.verificationNumber,
      }));
    },

    /** Saves a subcontractor's UTR and verification number (the contact must be one of the organisation's). */
    async updateRefs(
      ctx: CisReturnsContext,
      contactId: string,
      refs: { utr: string | null; verificationNumber: string | null },
    ): Promise<SubcontractorRefs> {
      await sync.syncContacts(ctx);
      const contact = await repo.findContact(ctx.organizationId, contactId.toLowerCase());
      if (!contact) throw new AppError('NOT_FOUND', 'Contact not found in Xero');
      const [before] = await repo.findRefs(ctx.organizationId, [contact.contactId]);
      await repo.saveRefs(ctx.organizationId, contact.contactId, refs);
      await audit.recordFor(ctx, {
        action: 'cis-returns.subcontractor',
        target: contact.contactId,
        result: 'success',
        detail: {
          name: contact.name,
          before: before ? { utr: before.utr, verificationNumber: before.verificationNumber } : null,
          after: refs,
        },
      });
      return { contactId: contact.contactId, ...refs };
    },
  };
}
export type CisReturnsService = ReturnType<typeof createCisReturnsService>;
