import {
  CIS_HIGHER_RATE,
  CORRECTION_ADVICE,
  getFilingRefusal,
  diffReturnLines,
  filedUnderMessage,
  getDeductionsPaymentDueDate,
  getFilingChecks,
  getMonthPenalties,
  getPeriodOf,
  getTaxMonth,
  hasPeriodBegun,
  hasPeriodEnded,
  isNilReturnRequired,
  mayChangeFiledUnder,
  NIL_MARK_LABELS,
  PERIOD_NOT_BEGUN_MESSAGE,
  shiftPeriod,
  type CisFiling,
  type CisFilingReceipt,
  type CisMonthSummary,
  type CisMonthsResponse,
  type CisNilMark,
  type CisNilMarkKind,
  type CisReturn,
  type CisReturnLine,
  type CisSettings,
  type FiledUnderField,
  type MonthPenalty,
  type SubcontractorRefs,
} from '../../../shared/cis-returns';
import { formatDateMedium, getDaysBetween, getIsoWeekday, getUkToday } from '../../../shared/dates';
import {
  pickVerificationNumber,
  type FindVerifiedRates,
  type VerifiedRate,
} from '../../../shared/hmrc-filing';
import { fromPence, toPence } from '../../../shared/money';
import { AppError } from '../../lib/app-error';
import type { XeroSync } from '../../xero/sync/sync.service';
import type { AuditLog } from '../audit/audit';
import type { CisReturnsRepository, FilingRow, NilMonthRow } from './cis-returns.repository';
import { createPaymentCounting, type CisReturnsContext } from './counting';
import { buildMonthLines, emptyMonth, type MonthFigures } from './month-lines';

/** What the CIS month-end reads of a request: the organisation, who asks, and their Xero token's owner. */
export type { CisReturnsContext } from './counting';

/** A statement's data: everything HMRC asks a payment and deduction statement to carry (CISR12160). */
export interface CisStatement {
  contractorName: string;
  contractorUtr: string | null;
  employerReference: string;
  accountsOfficeReference: string | null;
  period: string;
  taxMonthEnd: string;
  line: CisReturnLine;
  /** The month changed for this subcontractor since the return was filed: a corrected statement. */
  corrected: boolean;
}

/**
 * How a return comes to be filed: marked by a person, or sent through Ledgerlink with HMRC's receipt (issue 43).
 * A return HMRC accepted is filed as it was sent (`asSent`: the lines and totals the submission read), whatever
 * moved since: the checks were applied before it was sent (getFilingRefusal), and HMRC has it.
 */
export type FilingInput =
  | { filedOn?: string | undefined; source: 'manual'; receipt: null }
  | {
      filedOn?: string | undefined;
      source: 'hmrc';
      receipt: CisFilingReceipt;
      asSent: { lines: ReadonlyArray<Omit<CisReturnLine, 'flags'>>; totals: CisReturn['totals'] };
    };

/** A month as the months list and the return both see it. */
interface MonthView {
  period: string;
  figures: MonthFigures;
  filing: FilingRow | undefined;
  nilMark: NilMonthRow | undefined;
  penalty: MonthPenalty;
  needsReturn: boolean;
}

function toNilMark(row: NilMonthRow | undefined): CisNilMark | null {
  if (!row) return null;
  return {
    kind: row.kind as CisNilMark['kind'],
    markedAt: row.markedAt.toISOString(),
    markedBy: row.markedByName,
  };
}

function toLines(
  figures: MonthFigures,
  refs: ReadonlyMap<string, { utr: string | null; verificationNumber: string | null; updatedAt?: Date }>,
  verified: ReadonlyMap<string, VerifiedRate>,
): CisReturnLine[] {
  return figures.lines.map((l) => {
    const ref = refs.get(l.contactId);
    // At 30 % the line quotes HMRC's verification number: the one HMRC answered a verification from Ledgerlink
    // with, or one typed (a verification done elsewhere), the later of the two (issue 43).
    const number = pickVerificationNumber(ref, verified.get(l.contactId.toLowerCase()));
    return {
      contactId: l.contactId,
      name: l.name,
      utr: ref?.utr ?? null,
      verificationNumber: l.rate === CIS_HIGHER_RATE ? number : null,
      rate: l.rate,
      grossAmount: fromPence(l.grossPence),
      materialsAmount: fromPence(l.materialsPence),
      deductionAmount: fromPence(l.deductionPence),
      flags: l.flags,
    };
  });
}

function toTotals(figures: MonthFigures) {
  return {
    grossAmount: fromPence(figures.totals.grossPence),
    materialsAmount: fromPence(figures.totals.materialsPence),
    deductionAmount: fromPence(figures.totals.deductionPence),
  };
}

function toFiling(row: FilingRow | undefined, penalty: MonthPenalty | undefined): CisFiling | null {
  if (!row) return null;
  return {
    filedOn: row.filedOn,
    filedAt: row.filedAt.toISOString(),
    filedBy: row.filedByName,
    source: row.source === 'hmrc' ? 'hmrc' : 'manual',
    late: penalty?.late ?? false,
    penaltyAmount: fromPence(penalty?.pence ?? 0),
    lines: row.lines ? row.lines.map((l) => ({ ...l, flags: [] })) : null,
    totals: row.totals ?? null,
    receipt:
      row.irmark || row.correlationId || row.hmrcReceivedAt
        ? {
            irmark: row.irmark,
            receivedAt: row.hmrcReceivedAt ? row.hmrcReceivedAt.toISOString() : null,
            correlationId: row.correlationId,
          }
        : null,
  };
}

/**
 * The CIS month-end (issues 29, 42): the monthly return of payments to subcontractors and their statements. Each
 * payment to a CIS subcontractor is counted once, the first time Ledgerlink sees it, and keeps what it carried
 * (`counting.ts`); a month's figures are those payments added up (`month-lines.ts`). A filed month keeps what was
 * filed beside the live figures; every month since the first CIS payment is listed with its penalty.
 */
export function createCisReturnsService(deps: {
  repo: CisReturnsRepository;
  sync: XeroSync;
  audit: AuditLog;
  /** CIS Bills' check of contacts' CIS settings (one call per contact not yet checked, single-flight). */
  checkCisContacts: (ctx: CisReturnsContext, contactIds: readonly string[]) => Promise<unknown>;
  /**
   * Issue 43: subcontractors' verifications with HMRC (hmrc-filing, through the wiring): the rate a contact is
   * given where the bills do not say one, and the verification number a 30 % line quotes. None without it.
   */
  verifiedRates?: FindVerifiedRates;
  /** Issue 43: the month's return on its way to HMRC from Ledgerlink (who sent it, when), or null. */
  returnInFlight?: (
    organizationId: number,
    period: string,
  ) => Promise<{ sentBy: string; sentAt: string } | null>;
  /** Today's date, for tests (default: the UK's today). */
  today?: () => string;
  log?: { warn: (o: object, m: string) => void };
}) {
  const { repo, sync, audit } = deps;
  const today = deps.today ?? (() => getUkToday());
  const counting = createPaymentCounting(deps);
  const verifiedRatesOf: FindVerifiedRates = deps.verifiedRates ?? (() => Promise.resolve(new Map()));

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
      firstReturnOn: row?.firstReturnOn ?? null,
      canChangeFiledUnder: ctx.isAdmin,
    };
  }

  /**
   * Brings the cache up to date for the month-end: approved and paid bills (0 calls while webhooks keep the view
   * current, or one If-Modified-Since call; `refresh` always asks Xero), supplier credit notes (one
   * If-Modified-Since call, none within seconds of the last), contacts and accounts (read once); then counts the
   * payments not counted yet.
   */
  async function syncAndCount(ctx: CisReturnsContext, refresh: boolean) {
    if (refresh) await sync.syncInvoices(ctx, { key: 'bills-paid' });
    else await sync.ensureInvoices(ctx, { key: 'bills-paid' });
    await sync.syncCreditNotes(ctx, { force: refresh });
    await sync.syncContacts(ctx);
    await sync.syncAccounts(ctx);
    await counting.countNew(ctx);
  }

  /** Every month since the first CIS payment (or the first month filed or marked), with its figures and penalty. */
  async function readMonths(ctx: CisReturnsContext, now: string): Promise<Map<string, MonthView>> {
    const counted = await repo.findCounted(ctx.organizationId);
    const contacts = new Map(
      (await repo.findContacts(ctx.organizationId, [...new Set(counted.map((c) => c.contactId))])).map(
        (c) => [c.contactId, c],
      ),
    );
    const verified = await verifiedRatesOf(ctx.organizationId, [...contacts.keys()]);
    const figures = buildMonthLines(counted, contacts, verified);
    const filings = new Map((await repo.findAllFilings(ctx.organizationId)).map((f) => [f.period, f]));
    const marks = new Map((await repo.findNilMonths(ctx.organizationId)).map((m) => [m.period, m]));
    const settings = await repo.findSettings(ctx.organizationId);
    const current = getPeriodOf(now);
    const starts = [
      ...counted.map((c) => getPeriodOf(c.date)),
      ...filings.keys(),
      ...marks.keys(),
      current,
    ].filter((p) => p <= current);
    const first = starts.reduce((a, b) => (b < a ? b : a));
    const periods: string[] = [];
    for (let p = current; p >= first; p = shiftPeriod(p, 1)) periods.push(p);

    const inputs = periods.map((period) => {
      const f = figures.get(period) ?? emptyMonth();
      const filing = filings.get(period);
      const nil = f.lines.length === 0;
      const needsReturn = !nil || (isNilReturnRequired(period) && !marks.has(period)) || Boolean(filing);
      return {
        period,
        dueDate: getTaxMonth(period).dueDate,
        deductionPence:
          filing?.deductionPence ??
          (filing?.totals ? toPence(filing.totals.deductionAmount) : f.totals.deductionPence),
        filedOn: filing?.filedOn ?? null,
        // A month not over yet has no penalty; the rules see it as needing a return once it ends.
        needsReturn,
      };
    });
    const penalties = getMonthPenalties(inputs, now, settings?.firstReturnOn ?? null);
    const out = new Map<string, MonthView>();
    for (const input of inputs) {
      const penalty = penalties.get(input.period) ?? {
        pence: 0,
        late: false,
        next: null,
        newContractor: false,
      };
      out.set(input.period, {
        period: input.period,
        figures: figures.get(input.period) ?? emptyMonth(),
        filing: filings.get(input.period),
        nilMark: marks.get(input.period),
        penalty,
        needsReturn: input.needsReturn,
      });
    }
    return out;
  }

  function assertBegun(period: string, now: string) {
    if (!hasPeriodBegun(period, now)) throw new AppError('VALIDATION_ERROR', PERIOD_NOT_BEGUN_MESSAGE);
  }

  function paymentNote(period: string): { due: string; note: string | null } {
    const { due, nominal } = getDeductionsPaymentDueDate(period);
    if (due === nominal) return { due, note: null };
    const weekday = getIsoWeekday(nominal);
    const what = weekday === 6 ? 'a Saturday' : weekday === 7 ? 'a Sunday' : 'a bank holiday';
    return {
      due,
      note: `The 22nd (${formatDateMedium(nominal)}) is ${what}: the deductions must reach HMRC by the last working day before it, ${formatDateMedium(due)}, unless paid by Faster Payments (gov.uk/pay-paye-tax).`,
    };
  }

  async function buildReturn(ctx: CisReturnsContext, period: string, refresh: boolean): Promise<CisReturn> {
    const now = today();
    assertBegun(period, now);
    await syncAndCount(ctx, refresh);
    const month = getTaxMonth(period);
    const months = await readMonths(ctx, now);
    const view = months.get(period);
    const figures = view?.figures ?? emptyMonth();
    const settings = await readSettings(ctx);
    const filedLines = view?.filing?.lines ?? [];
    const refs = new Map(
      (
        await repo.findRefs(ctx.organizationId, [
          ...new Set([...figures.lines.map((l) => l.contactId), ...filedLines.map((l) => l.contactId)]),
        ])
      ).map((r) => [r.contactId, r]),
    );
    const verified = await verifiedRatesOf(ctx.organizationId, [
      ...refs.keys(),
      ...figures.lines.map((l) => l.contactId),
    ]);
    const lines = toLines(figures, refs, verified);
    const filing = toFiling(view?.filing, view?.penalty);
    const changes = filing?.lines ? diffReturnLines(filing.lines, lines) : [];
    const { due, note } = paymentNote(period);
    const penalty = view?.penalty ?? { pence: 0, late: false, next: null, newContractor: false };
    return {
      period: month.period,
      start: month.start,
      end: month.end,
      dueDate: month.dueDate,
      paymentDueDate: due,
      paymentDueNote: note,
      statementDueDate: month.statementDueDate,
      nil: lines.length === 0,
      nilReturnRequired: isNilReturnRequired(period),
      nilMark: toNilMark(view?.nilMark),
      isCurrent: !hasPeriodEnded(period, now),
      filedAt: filing?.filedOn ?? null,
      filing,
      changedSinceFiling: changes.length > 0,
      changes,
      correctionAdvice: changes.length > 0 ? CORRECTION_ADVICE : null,
      penalty: {
        amount: fromPence(penalty.pence),
        next: penalty.next
          ? { from: penalty.next.from, amount: fromPence(penalty.next.pence), label: penalty.next.label }
          : null,
        newContractorRules: penalty.newContractor,
      },
      overdue: !filing && (view?.needsReturn ?? true) && hasPeriodEnded(period, now) && now > month.dueDate,
      checks: getFilingChecks(settings, lines),
      lines,
      totals: toTotals(figures),
    };
  }

  /**
   * The one way a month becomes filed: marked by a person, or (issue 43) sent to HMRC through Ledgerlink with
   * HMRC's receipt. Refused, naming each missing thing, until the return's references are all set; keeps the
   * lines and totals as filed; audited.
   */
  async function recordFiling(
    ctx: CisReturnsContext,
    period: string,
    input: FilingInput,
  ): Promise<CisFiling> {
    const now = today();
    assertBegun(period, now);
    const month = getTaxMonth(period);
    if (!hasPeriodEnded(period, now))
      throw new AppError(
        'VALIDATION_ERROR',
        `The return for the tax month ending ${month.end} can be filed once the month has ended`,
      );
    const day = input.filedOn ?? now;
    if (day > now) throw new AppError('VALIDATION_ERROR', 'Filed date cannot be in the future');
    if (day <= month.end)
      throw new AppError('VALIDATION_ERROR', `Filed date must be after the tax month's end (${month.end})`);
    if (input.source === 'manual') {
      // Sent to HMRC from Ledgerlink and not answered yet: HMRC's answer decides, and marks the month if accepted.
      const inFlight = await deps.returnInFlight?.(ctx.organizationId, period);
      if (inFlight)
        throw new AppError(
          'CONFLICT',
          `This return is on its way to HMRC (sent by ${inFlight.sentBy} on ${formatDateMedium(inFlight.sentAt.slice(0, 10))}): HMRC's answer marks the month filed. Wait for it on the File with HMRC card.`,
        );
    }
    const [already] = await repo.findFilings(ctx.organizationId, [period]);
    if (already) {
      // Marked by hand while HMRC was answering: the month is filed already; HMRC's receipt is kept with it.
      if (input.source === 'hmrc' && (await repo.attachReceipt(ctx.organizationId, period, input.receipt)))
        return readFiling(ctx, period, now);
      throw new AppError('CONFLICT', 'This return is already marked as filed');
    }
    let filed: { lines: ReadonlyArray<Omit<CisReturnLine, 'flags'>>; totals: CisReturn['totals'] };
    if (input.source === 'hmrc') {
      // HMRC accepted what was sent: that is what is filed (the checks were passed before sending).
      filed = input.asSent;
    } else {
      // What is filed is what Xero has now: the bills changed since the last look are read first.
      const ret = await buildReturn(ctx, period, true);
      const refusal = getFilingRefusal(ret.checks);
      if (refusal)
        throw new AppError('UNPROCESSABLE', refusal.message, undefined, { missing: refusal.missing });
      filed = ret;
    }
    const inserted = await repo.insertFiling({
      organizationId: ctx.organizationId,
      period,
      filedOn: day,
      filedByUserId: ctx.userId,
      filedByName: ctx.username,
      source: input.source,
      lines: filed.lines.map((l) => ({
        contactId: l.contactId,
        name: l.name,
        utr: l.utr,
        verificationNumber: l.verificationNumber,
        rate: l.rate,
        grossAmount: l.grossAmount,
        materialsAmount: l.materialsAmount,
        deductionAmount: l.deductionAmount,
      })),
      totals: filed.totals,
      deductionPence: toPence(filed.totals.deductionAmount),
      irmark: input.receipt?.irmark ?? null,
      hmrcReceivedAt: input.receipt?.receivedAt ? new Date(input.receipt.receivedAt) : null,
      correlationId: input.receipt?.correlationId ?? null,
    });
    if (!inserted) throw new AppError('CONFLICT', 'This return is already marked as filed');
    const late = day > month.dueDate;
    await audit.recordFor(ctx, {
      action: 'cis-returns.filed',
      target: period,
      result: 'success',
      detail: {
        period,
        filedOn: day,
        dueDate: month.dueDate,
        late,
        source: input.source,
        totals: filed.totals,
        subcontractors: filed.lines.length,
        ...(input.receipt ? { receipt: input.receipt } : {}),
      },
    });
    return readFiling(ctx, period, now);
  }

  async function readFiling(ctx: CisReturnsContext, period: string, now: string): Promise<CisFiling> {
    const months = await readMonths(ctx, now);
    const view = months.get(period);
    return toFiling(view?.filing, view?.penalty) as CisFiling;
  }

  /** Refuses a member's change of a filed-under reference that is already set (FILED_UNDER_FIELDS). */
  function assertMayChange(
    ctx: CisReturnsContext,
    changes: Array<[FiledUnderField, string | null | undefined, string | null | undefined]>,
  ) {
    const locked = changes
      .filter(
        ([, before, after]) =>
          after !== undefined && !mayChangeFiledUnder(before ?? null, after, ctx.isAdmin),
      )
      .map(([field]) => field);
    if (locked.length > 0) throw new AppError('FORBIDDEN', filedUnderMessage(locked));
  }

  return {
    getReturn: buildReturn,
    recordFiling,

    /** Every tax month since the first CIS payment, newest first, with its state and penalty. */
    async listMonths(ctx: CisReturnsContext, options: { refresh: boolean }): Promise<CisMonthsResponse> {
      const now = today();
      await syncAndCount(ctx, options.refresh);
      const months = await readMonths(ctx, now);
      const settings = await repo.findSettings(ctx.organizationId);
      const refsNeeded = new Set<string>();
      for (const v of months.values()) for (const l of v.filing?.lines ?? []) refsNeeded.add(l.contactId);
      const summaries: CisMonthSummary[] = [...months.values()].map((v) => {
        const month = getTaxMonth(v.period);
        const nil = v.figures.lines.length === 0;
        const ended = hasPeriodEnded(v.period, now);
        const filing = toFiling(v.filing, v.penalty);
        const state = filing
          ? 'filed'
          : !ended
            ? 'current'
            : !v.needsReturn
              ? 'not-needed'
              : now > month.dueDate
                ? 'overdue'
                : 'due';
        const changed = filing?.lines
          ? diffReturnLines(
              filing.lines,
              v.figures.lines.map((l) => ({
                contactId: l.contactId,
                name: l.name,
                utr: null,
                verificationNumber: null,
                rate: l.rate,
                grossAmount: fromPence(l.grossPence),
                materialsAmount: fromPence(l.materialsPence),
                deductionAmount: fromPence(l.deductionPence),
                flags: [],
              })),
            ).length > 0
          : false;
        return {
          period: v.period,
          start: month.start,
          end: month.end,
          dueDate: month.dueDate,
          paymentDueDate: getDeductionsPaymentDueDate(v.period).due,
          nil,
          nilReturnRequired: isNilReturnRequired(v.period),
          nilMark: toNilMark(v.nilMark),
          subcontractors: v.figures.lines.length,
          deductionAmount: fromPence(v.figures.totals.deductionPence),
          state,
          daysToDue: getDaysBetween(now, month.dueDate),
          penaltyAmount: fromPence(v.penalty.pence),
          nextPenalty: v.penalty.next
            ? { from: v.penalty.next.from, amount: fromPence(v.penalty.next.pence) }
            : null,
          newContractorRules: v.penalty.newContractor,
          filing,
          changedSinceFiling: changed,
        };
      });
      const filedDays = [...months.values()].flatMap((v) => (v.filing ? [v.filing.filedOn] : []));
      if (settings?.firstReturnOn) filedDays.push(settings.firstReturnOn);
      return {
        today: now,
        firstReturnOn: filedDays.length > 0 ? filedDays.reduce((a, b) => (b < a ? b : a)) : null,
        months: summaries,
      };
    },

    /**
     * The month's statements, or one subcontractor's: refused, naming what is missing, until they carry every
     * field CISR12160 asks for (the employer reference, the subcontractor's UTR, the verification number at 30 %).
     */
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
      const wanted = new Set(lines.map((l) => l.contactId));
      const missing = ret.checks.filter(
        (c) =>
          !c.ok &&
          (c.code === 'employer-reference' ||
            ((c.code === 'subcontractor-utr' || c.code === 'verification-number') &&
              c.contactId !== null &&
              wanted.has(c.contactId))),
      );
      if (missing.length > 0 || !settings.employerReference)
        throw new AppError(
          'UNPROCESSABLE',
          `A statement must carry every reference HMRC asks for (CISR12160). Missing: ${missing.map((c) => c.label).join('; ')}.`,
          undefined,
          { missing: missing.map((c) => ({ code: c.code, label: c.label, contactId: c.contactId })) },
        );
      const changed = new Set(ret.changes.map((c) => c.contactId));
      return lines.map((line) => ({
        contractorName: settings.contractorName ?? settings.defaultContractorName,
        contractorUtr: settings.utr,
        employerReference: settings.employerReference ?? '',
        accountsOfficeReference: settings.accountsOfficeReference,
        period: ret.period,
        taxMonthEnd: ret.end,
        line,
        corrected: changed.has(line.contactId),
      }));
    },

    /** Marks a month's return as sent to HMRC (on `filedOn`, default today). */
    markFiled(ctx: CisReturnsContext, period: string, filedOn: string | undefined): Promise<CisFiling> {
      return recordFiling(ctx, period, { filedOn, source: 'manual', receipt: null });
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
        detail: {
          period,
          filedOn: removed.filedOn,
          filedBy: removed.filedByName,
          source: removed.source,
          totals: removed.totals,
        },
      });
      return { period, filing: null };
    },

    /**
     * Marks a month with no payments as dealt with without a nil return: HMRC told in advance, or the scheme
     * inactive. Refused for a month with payments (its return is due) or one already filed.
     */
    async markNil(ctx: CisReturnsContext, period: string, kind: CisNilMarkKind): Promise<CisNilMark> {
      const now = today();
      assertBegun(period, now);
      await syncAndCount(ctx, false);
      const months = await readMonths(ctx, now);
      const view = months.get(period);
      if (view?.filing) throw new AppError('CONFLICT', 'This return is already marked as filed');
      if (view && view.figures.lines.length > 0)
        throw new AppError(
          'CONFLICT',
          'Subcontractors were paid this month: its return is due, and it cannot be marked as a nil month',
        );
      const inserted = await repo.insertNilMonth({
        organizationId: ctx.organizationId,
        period,
        kind,
        markedByUserId: ctx.userId,
        markedByName: ctx.username,
      });
      if (!inserted) throw new AppError('CONFLICT', 'This month is already marked');
      await audit.recordFor(ctx, {
        action: 'cis-returns.nil-marked',
        target: period,
        result: 'success',
        detail: { period, kind, label: NIL_MARK_LABELS[kind] },
      });
      const [row] = (await repo.findNilMonths(ctx.organizationId)).filter((m) => m.period === period);
      return toNilMark(row) as CisNilMark;
    },

    /** Takes a nil month's mark off (administrators only, as undoing a filing). */
    async unmarkNil(ctx: CisReturnsContext, period: string): Promise<{ period: string; nilMark: null }> {
      if (!ctx.isAdmin)
        throw new AppError('FORBIDDEN', 'Only an administrator can take a nil month’s mark off');
      const removed = await repo.deleteNilMonth(ctx.organizationId, period);
      if (!removed) throw new AppError('NOT_FOUND', 'This month is not marked');
      await audit.recordFor(ctx, {
        action: 'cis-returns.nil-unmarked',
        target: period,
        result: 'success',
        detail: { period, kind: removed.kind, markedBy: removed.markedByName },
      });
      return { period, nilMark: null };
    },

    getSettings: readSettings,

    /**
     * Saves the contractor's references and the accounts (codes checked against Xero's accounts). A member may
     * fill in a filed-under reference that is not set; changing one that is set is for administrators. The
     * payments not counted yet are counted first, under the accounts as they stood, so a settings change never
     * moves a paid month.
     */
    async updateSettings(
      ctx: CisReturnsContext,
      input: Omit<
        CisSettings,
        | 'defaultContractorName'
        | 'deductionAccountCode'
        | 'reverseCharge'
        | 'firstReturnOn'
        | 'canChangeFiledUnder'
      > &
        Partial<Pick<CisSettings, 'deductionAccountCode' | 'reverseCharge' | 'firstReturnOn'>>,
    ): Promise<CisSettings> {
      const before = await readSettings(ctx);
      assertMayChange(ctx, [
        ['utr', before.utr, input.utr],
        ['employerReference', before.employerReference, input.employerReference],
        ['accountsOfficeReference', before.accountsOfficeReference, input.accountsOfficeReference],
        ['deductionAccountCode', before.deductionAccountCode, input.deductionAccountCode],
      ]);
      if (input.firstReturnOn && input.firstReturnOn > today())
        throw new AppError('VALIDATION_ERROR', 'First return date cannot be in the future');
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
      const ruleChanges =
        codes.slice().sort().join(',') !== [...before.materialsAccountCodes].sort().join(',') ||
        (deductionCode !== undefined && deductionCode !== before.deductionAccountCode);
      // The first save of the CIS settings sets the rule rather than changing one: no Ledgerlink bill carries a
      // deduction before it (CIS Bills needs the deductions account), so the history not counted yet is read
      // under the accounts the contractor names now, as it was booked (a contractor's materials account was
      // their materials account before they told Ledgerlink). Payments already counted stay as counted.
      const firstSave = (await repo.findSettings(ctx.organizationId)) === null;
      if (ruleChanges && !firstSave) {
        // What was paid before this change is counted under the accounts as they stood (issue 42).
        try {
          await sync.ensureInvoices(ctx, { key: 'bills-paid' });
          await sync.syncCreditNotes(ctx, { force: false });
        } catch (error) {
          deps.log?.warn({ err: error }, 'Bills could not be read before a CIS settings change');
        }
        await counting.countNew(ctx);
      }
      const values = {
        contractorName: input.contractorName,
        utr: input.utr,
        employerReference: input.employerReference,
        accountsOfficeReference: input.accountsOfficeReference,
        materialsAccountCodes: codes,
        deductionAccountCode: deductionCode === undefined ? before.deductionAccountCode : deductionCode,
        reverseCharge: input.reverseCharge ?? before.reverseCharge,
        firstReturnOn: input.firstReturnOn === undefined ? before.firstReturnOn : input.firstReturnOn,
      };
      await repo.saveSettings(ctx.organizationId, values);
      await audit.recordFor(ctx, {
        action: 'cis-returns.settings',
        target: String(ctx.organizationId),
        result: 'success',
        detail: {
          before: { ...before, canChangeFiledUnder: undefined },
          after: values,
        },
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

    /**
     * Saves a subcontractor's UTR and verification number (the contact must be one of the organisation's): a
     * member fills in what is not set; changing what is set is for administrators.
     */
    async updateRefs(
      ctx: CisReturnsContext,
      contactId: string,
      input: { utr: string | null; verificationNumber?: string | null | undefined },
    ): Promise<SubcontractorRefs> {
      await sync.syncContacts(ctx);
      const contact = await repo.findContact(ctx.organizationId, contactId.toLowerCase());
      if (!contact) throw new AppError('NOT_FOUND', 'Contact not found in Xero');
      const [before] = await repo.findRefs(ctx.organizationId, [contact.contactId]);
      const refs = {
        utr: input.utr,
        verificationNumber:
          input.verificationNumber === undefined
            ? (before?.verificationNumber ?? null)
            : input.verificationNumber,
      };
      assertMayChange(ctx, [
        ['subcontractorUtr', before?.utr, refs.utr],
        ['verificationNumber', before?.verificationNumber, refs.verificationNumber],
      ]);
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
