/**
 * The CIS month-end (issue 29): the contractor's monthly return (CIS300) and the subcontractors' payment and
 * deduction statements. Tax-month arithmetic, due dates, late-return penalties, part-payment proportions and
 * the formats of HMRC's references, on ISO dates and integer pence, shared by the server, the screen and the
 * tests.
 *
 * HMRC's rules, and where they come from:
 * - A tax month runs from the 6th of one month to the 5th of the next; the return is due by the 19th of the
 *   month it ends in, electronic payment of the deductions by the 22nd (CISR41000, CISR43000).
 * - The statement is due within 14 days of the tax month's end, i.e. by the 19th too (CISR12160).
 * - From 6 April 2026 a nil return is compulsory for a tax month without payments, unless HMRC was told in
 *   advance (Finance Act 2025; CISR41100).
 * - Late-return penalties (CH62380): £100 at once, £200 more when 2 months late, then the greater of £300 and
 *   5 % of the deductions on the return at 6 and again at 12 months.
 */
import { z } from 'zod';
import { addDays, createIsoDate, getDateParts, isIsoDate } from './dates';
import { refreshFlagSchema, textSchema, xeroIdSchema } from './input';
import { roundHalfUp } from './money';

/** A tax month is named by the calendar month it ends in: `2026-12` is 6 November to 5 December 2026. */
export const PERIOD_RE = /^(\d{4})-(\d{2})$/;
export const INVALID_PERIOD_MESSAGE = 'Period must be a month written YYYY-MM';
export const PERIOD_NOT_BEGUN_MESSAGE = 'That tax month has not begun yet';

/** The day of the month a tax month ends on (it starts the day after, the 6th). */
export const TAX_MONTH_END_DAY = 5;
/** The day of the month the return is due (in the month the tax month ends). */
export const RETURN_DUE_DAY = 19;
/** The day of the month electronic payment of the deductions is due. */
export const PAYMENT_DUE_DAY = 22;
/** Statements are due within this many days of the tax month's end (CISR12160). */
export const STATEMENT_DUE_DAYS = 14;
/** The first tax month for which a nil return is compulsory starts on this day. */
export const NIL_RETURN_COMPULSORY_FROM = '2026-04-06';

/** The CIS deduction rates HMRC sets, in percent: gross payment status, registered, unverified. */
export const CIS_RATES = [0, 20, 30] as const;
/** The higher rate: the only rate at which the return and statement carry a verification number. */
export const CIS_HIGHER_RATE = 30;

interface TaxMonth {
  /** `YYYY-MM` of the month the tax month ends in. */
  period: string;
  /** The 6th of the previous month. */
  start: string;
  /** The 5th of the named month. */
  end: string;
  /** The return: the 19th of the named month, whatever day of the week that is. */
  dueDate: string;
  /** Electronic payment of the deductions: the 22nd. */
  paymentDueDate: string;
  /** Statements to subcontractors: 14 days after the end, the 19th. */
  statementDueDate: string;
}

/** `{year, month}` of a `YYYY-MM` period, or null when it is not a month (month 01–12, year 2000–2999). */
export function parsePeriod(period: string): { year: number; month: number } | null {
  const match = PERIOD_RE.exec(period);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  if (year < 2000 || year > 2999 || month < 1 || month > 12) return null;
  return { year, month };
}

function formatPeriod(year: number, month: number): string {
  const first = createIsoDate(year, month, 1);
  return first.slice(0, 7);
}

/** The tax month a period names; throws a RangeError on a period that is not a month. */
export function getTaxMonth(period: string): TaxMonth {
  const parsed = parsePeriod(period);
  if (!parsed) throw new RangeError(`${INVALID_PERIOD_MESSAGE}: ${period}`);
  const { year, month } = parsed;
  const end = createIsoDate(year, month, TAX_MONTH_END_DAY);
  return {
    period: formatPeriod(year, month),
    start: createIsoDate(year, month - 1, TAX_MONTH_END_DAY + 1),
    end,
    dueDate: createIsoDate(year, month, RETURN_DUE_DAY),
    paymentDueDate: createIsoDate(year, month, PAYMENT_DUE_DAY),
    statementDueDate: addDays(end, STATEMENT_DUE_DAYS),
  };
}

/** The period of the tax month a date falls in: the 6th onwards belongs to the next month's period. */
export function getPeriodOf(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return day > TAX_MONTH_END_DAY ? formatPeriod(year, month + 1) : formatPeriod(year, month);
}

/** The period `count` tax months before (negative: after) the given one. */
export function shiftPeriod(period: string, count: number): string {
  const parsed = parsePeriod(period);
  if (!parsed) throw new RangeError(`${INVALID_PERIOD_MESSAGE}: ${period}`);
  return formatPeriod(parsed.year, parsed.month - count);
}

/** The current tax month and the `count - 1` before it, newest first (the screen's "last year"). */
export function listRecentPeriods(today: string, count = 12): string[] {
  const current = getPeriodOf(today);
  return Array.from({ length: count }, (_, i) => shiftPeriod(current, i));
}

/** Whether the tax month has begun on `today` (a return for a month not begun is refused). */
export function hasPeriodBegun(period: string, today: string): boolean {
  return getTaxMonth(period).start <= today;
}

/** Whether the tax month is over on `today` (before that, the figures are "paid so far"). */
export function hasPeriodEnded(period: string, today: string): boolean {
  return getTaxMonth(period).end < today;
}

/** Whether a month without payments needs a nil return (compulsory for tax months from 6 April 2026). */
export function isNilReturnRequired(period: string): boolean {
  return getTaxMonth(period).start >= NIL_RETURN_COMPULSORY_FROM;
}

/** The date `months` calendar months after an ISO date, clamped to the month's last day (19th stays 19th). */
export function addMonths(isoDate: string, months: number): string {
  const { year, month, day } = getDateParts(isoDate);
  const last = getDateParts(createIsoDate(year, month + months + 1, 0)).day;
  return createIsoDate(year, month + months, Math.min(day, last));
}

/** One step of the late-return penalty schedule (CH62380) and when it applies. */
interface PenaltyStep {
  /** The first day the step applies: the day after the due date, and 2, 6 and 12 months after it. */
  from: string;
  pence: number;
  label: string;
}

/** £100 at once; £200 more at 2 months; the greater of £300 and 5 % of the deductions at 6 and at 12 months. */
export function getPenaltySchedule(dueDate: string, deductionPence: number): PenaltyStep[] {
  const fivePercent = Number(roundHalfUp(BigInt(Math.max(0, deductionPence)) * 5n, 100n));
  const later = Math.max(30_000, fivePercent);
  return [
    { from: addDays(dueDate, 1), pence: 10_000, label: 'late: £100' },
    { from: addDays(addMonths(dueDate, 2), 1), pence: 20_000, label: '2 months late: £200 more' },
    {
      from: addDays(addMonths(dueDate, 6), 1),
      pence: later,
      label: '6 months late: £300 or 5 % of the deductions, whichever is more',
    },
    {
      from: addDays(addMonths(dueDate, 12), 1),
      pence: later,
      label: '12 months late: £300 or 5 % of the deductions again',
    },
  ];
}

/** The penalty due for a return still not filed on `asOf` (or filed then): the sum of the steps reached. */
export function getLatePenaltyPence(dueDate: string, asOf: string, deductionPence: number): number {
  return getPenaltySchedule(dueDate, deductionPence)
    .filter((step) => step.from <= asOf)
    .reduce((sum, step) => sum + step.pence, 0);
}

/**
 * The share of a bill's figure paid by a point in time: `amountPence × paid ÷ payable`, rounded half up, and the
 * whole figure once the payable is paid (a bill paid over its payable counts once). `payablePence` is what the
 * subcontractor is owed: the bill's total less the CIS deduction.
 */
export function getPaidSharePence(amountPence: number, paidPence: number, payablePence: number): number {
  if (payablePence <= 0) return paidPence > 0 ? amountPence : 0;
  if (paidPence <= 0) return 0;
  if (paidPence >= payablePence) return amountPence;
  return Number(roundHalfUp(BigInt(amountPence) * BigInt(paidPence), BigInt(payablePence)));
}

/**
 * The part of a bill's figure that payments in a tax month carry: the share paid by the month's end less the
 * share paid before it, so the months of a bill paid in instalments always add up to the whole figure.
 */
export function getMonthSharePence(
  amountPence: number,
  paidBeforePence: number,
  paidInMonthPence: number,
  payablePence: number,
): number {
  return (
    getPaidSharePence(amountPence, paidBeforePence + paidInMonthPence, payablePence) -
    getPaidSharePence(amountPence, paidBeforePence, payablePence)
  );
}

// ---- References (Xero's API gives none of them: Ledgerlink keeps them) --------------------------------------

export const UTR_MESSAGE = 'UTR must be 10 digits';
export const VERIFICATION_NUMBER_MESSAGE =
  'Verification number must be V followed by 10 digits and up to two letters (like V1234567890A)';
export const EMPLOYER_REFERENCE_MESSAGE =
  "Employer reference must be the tax office's 3 digits, a slash and up to 10 letters or digits (like 123/AB45678)";
export const ACCOUNTS_OFFICE_REFERENCE_MESSAGE =
  'Accounts office reference must be 13 characters like 123PA00012345';
export const CONTRACTOR_NAME_MESSAGE = 'Name on statements must be 1 to 160 characters';

const UTR_RE = /^\d{10}$/;
const VERIFICATION_RE = /^V\d{10}[A-Z]{0,2}$/;
const EMPLOYER_REFERENCE_RE = /^\d{3}\/[A-Z0-9]{1,10}$/;
const ACCOUNTS_OFFICE_RE = /^\d{3}P[A-Z]\d{7}[\dX]$/;

/** Spaces people type inside references are dropped; letters are upper case. */
export function normalizeReference(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

export const isUtr = (value: string) => UTR_RE.test(normalizeReference(value));
export const isVerificationNumber = (value: string) => VERIFICATION_RE.test(normalizeReference(value));
export const isEmployerReference = (value: string) => EMPLOYER_REFERENCE_RE.test(normalizeReference(value));
export const isAccountsOfficeReference = (value: string) =>
  ACCOUNTS_OFFICE_RE.test(normalizeReference(value));

/** An optional reference: empty or null clears it; otherwise it must pass `test`, and is kept normalised. */
function referenceSchema(test: (value: string) => boolean, message: string) {
  return textSchema(40)
    .nullable()
    .transform((value) => (value === null || value.trim() === '' ? null : normalizeReference(value)))
    .refine((value) => value === null || test(value), message);
}

export const utrSchema = referenceSchema(isUtr, UTR_MESSAGE);
export const verificationNumberSchema = referenceSchema(isVerificationNumber, VERIFICATION_NUMBER_MESSAGE);

// ---- Contracts ----------------------------------------------------------------------------------------------

export const periodSchema = z
  .string({ error: INVALID_PERIOD_MESSAGE })
  .refine((value) => parsePeriod(value) !== null, INVALID_PERIOD_MESSAGE);

/**
 * The organisation a request may name in its query string (`?org=` or `?organizationId=`): kept through the
 * schema so the tenancy check sees it (docs/decisions/007-tenancy.md).
 */
export const orgQueryFields = {
  org: z.string().max(20).optional(),
  organizationId: z.string().max(20).optional(),
};

export const orgQuerySchema = z.object({ ...orgQueryFields, refresh: refreshFlagSchema });

export const cisReturnQuerySchema = z.object({
  ...orgQueryFields,
  period: periodSchema,
  refresh: refreshFlagSchema,
  format: z.enum(['json', 'csv'], { error: 'Format must be json or csv' }).optional(),
});

export const cisStatementQuerySchema = z.object({ ...orgQueryFields, period: periodSchema });

export const contactIdParamsSchema = z.object({
  contactId: xeroIdSchema('contact'),
});

export const periodParamsSchema = z.object({ period: periodSchema });

const money = z.number();

export const cisReturnLineSchema = z.object({
  contactId: z.string(),
  name: z.string(),
  utr: z.string().nullable(),
  /** Only where the 30 % higher rate was deducted. */
  verificationNumber: z.string().nullable(),
  /** The deduction rate in percent (0, 20 or 30), or null when Xero does not say. */
  rate: z.number().nullable(),
  /** Gross amount paid, excluding VAT, in pounds. */
  grossAmount: money,
  materialsAmount: money,
  deductionAmount: money,
});
export type CisReturnLine = z.infer<typeof cisReturnLineSchema>;

export const cisReturnTotalsSchema = z.object({
  grossAmount: money,
  materialsAmount: money,
  deductionAmount: money,
});

export const cisFilingSchema = z.object({
  filedOn: z.string(),
  filedAt: z.string(),
  filedBy: z.string(),
});
export type CisFiling = z.infer<typeof cisFilingSchema>;

export const cisReturnSchema = z.object({
  period: z.string(),
  start: z.string(),
  end: z.string(),
  dueDate: z.string(),
  paymentDueDate: z.string(),
  statementDueDate: z.string(),
  /** No payments in the month: a nil return. */
  nil: z.boolean(),
  /** Whether a nil month needs a nil return (compulsory from 6 April 2026). */
  nilReturnRequired: z.boolean(),
  /** The tax month is not over: the figures are what has been paid so far. */
  isCurrent: z.boolean(),
  /** The day HMRC was told, as marked in Ledgerlink; null while not filed. */
  filedAt: z.string().nullable(),
  filing: cisFilingSchema.nullable(),
  lines: z.array(cisReturnLineSchema),
  totals: cisReturnTotalsSchema,
});
export type CisReturn = z.infer<typeof cisReturnSchema>;

export const CIS_MONTH_STATES = ['current', 'due', 'overdue', 'filed'] as const;

export const cisMonthSummarySchema = z.object({
  period: z.string(),
  start: z.string(),
  end: z.string(),
  dueDate: z.string(),
  nil: z.boolean(),
  nilReturnRequired: z.boolean(),
  subcontractors: z.number(),
  deductionAmount: money,
  state: z.enum(CIS_MONTH_STATES),
  /** Days to the due date (negative once overdue). */
  daysToDue: z.number(),
  /** The penalty that applies now to a return not filed (pounds); 0 when none. */
  penaltyAmount: money,
  filing: cisFilingSchema.nullable(),
});
export type CisMonthSummary = z.infer<typeof cisMonthSummarySchema>;

export const cisMonthsResponseSchema = z.object({
  today: z.string(),
  months: z.array(cisMonthSummarySchema),
});
export type CisMonthsResponse = z.infer<typeof cisMonthsResponseSchema>;

export const markFiledRequestSchema = z.object({
  /** The day the return was sent to HMRC; today when left out. Not in the future, not before the month ended. */
  filedOn: z
    .string()
    .max(10, 'Filed date must be a valid date written YYYY-MM-DD')
    .refine(isIsoDate, 'Filed date must be a valid date written YYYY-MM-DD')
    .optional(),
});

export const cisSettingsSchema = z.object({
  /** The contractor's name on statements; null means the organisation's name. */
  contractorName: z.string().nullable(),
  /** What the statements show when `contractorName` is null. */
  defaultContractorName: z.string(),
  utr: z.string().nullable(),
  employerReference: z.string().nullable(),
  accountsOfficeReference: z.string().nullable(),
  /** Codes of the accounts whose bill lines are materials (none by default). */
  materialsAccountCodes: z.array(z.string()),
  /**
   * Code of the liability account Ledgerlink's bills book each CIS deduction to, as a line of its own (issue 42,
   * docs/xero-api.md §4.8: Xero's API refuses its CIS system accounts on line items); null until chosen.
   */
  deductionAccountCode: z.string().nullable(),
  /** Bills from VAT-registered subcontractors carry the VAT domestic reverse charge (Xero UK's DRCHARGE20). */
  reverseCharge: z.boolean(),
});
export type CisSettings = z.infer<typeof cisSettingsSchema>;

export const cisSettingsRequestSchema = z.object({
  contractorName: textSchema(200)
    .nullable()
    .transform((value) => (value === null || value.trim() === '' ? null : value.trim()))
    .refine((value) => value === null || value.length <= 160, CONTRACTOR_NAME_MESSAGE),
  utr: utrSchema,
  employerReference: referenceSchema(isEmployerReference, EMPLOYER_REFERENCE_MESSAGE),
  accountsOfficeReference: referenceSchema(isAccountsOfficeReference, ACCOUNTS_OFFICE_REFERENCE_MESSAGE),
  materialsAccountCodes: z
    .array(textSchema(10).refine((code) => code.trim() !== '', 'Account code must not be empty'))
    .max(50, 'At most 50 materials accounts'),
  /** Left out: kept as it is (screens that do not show it need not send it). Empty or null: none. */
  deductionAccountCode: textSchema(10)
    .nullable()
    .transform((value) => (value === null || value.trim() === '' ? null : value.trim()))
    .optional(),
  /** Left out: kept as it is. */
  reverseCharge: z.boolean({ error: 'Reverse charge must be true or false' }).optional(),
});
export type CisSettingsRequest = z.input<typeof cisSettingsRequestSchema>;

export const subcontractorRefsRequestSchema = z.object({
  utr: utrSchema,
  verificationNumber: verificationNumberSchema,
});
export type SubcontractorRefsRequest = z.input<typeof subcontractorRefsRequestSchema>;

export const subcontractorRefsSchema = z.object({
  contactId: z.string(),
  utr: z.string().nullable(),
  verificationNumber: z.string().nullable(),
});
export type SubcontractorRefs = z.infer<typeof subcontractorRefsSchema>;

/** The CSV's header row (one row per subcontractor, then a totals row). */
export const CIS_RETURN_CSV_HEADER = [
  'Subcontractor',
  'UTR',
  'Verification number',
  'Rate %',
  'Gross amount paid (excl. VAT)',
  'Cost of materials',
  'Amount deducted',
] as const;

// ---- The figures of a return --------------------------------------------------------------------------------

/** A bill as the return reads it (from the invoice cache): pence, ISO dates. */
export interface ReturnBill {
  contactId: string;
  contactName: string;
  /** Net of VAT. */
  subTotalPence: number;
  totalPence: number;
  lineAmountTypes: string | null;
  lines: ReadonlyArray<{ accountCode: string | null; lineAmountPence: number; taxAmountPence: number }>;
  payments: ReadonlyArray<{ date: string | null; amountPence: number }>;
  /** Xero's CISDeduction on the bill; null when Xero computed none (Ledgerlink's own bills). */
  xeroDeductionPence: number | null;
  xeroRate: number | null;
}

/** A bill's CIS figures in full (before any proportion): pence. */
interface BillCisFigures {
  grossPence: number;
  materialsPence: number;
  deductionPence: number;
  /** What the subcontractor is owed: the total less the deduction. */
  payablePence: number;
}

/**
 * A bill's gross (excluding VAT), materials (the net of its lines on materials accounts) and deduction: the one
 * Xero holds when it computed one, otherwise Ledgerlink's 20 % of the bill total (docs/product/features.md §9),
 * on the total less the materials lines (deductions never apply to materials), and none for a subcontractor with
 * gross payment status (rate 0).
 */
export function getBillCisFigures(
  bill: ReturnBill,
  isMaterials: (accountCode: string | null) => boolean,
  contactRate: number | null,
): BillCisFigures {
  const inclusive = bill.lineAmountTypes === 'Inclusive';
  let materialsPence = 0;
  let materialsWithVatPence = 0;
  for (const line of bill.lines) {
    if (!isMaterials(line.accountCode)) continue;
    const net = inclusive ? line.lineAmountPence - line.taxAmountPence : line.lineAmountPence;
    materialsPence += net;
    materialsWithVatPence += inclusive ? line.lineAmountPence : line.lineAmountPence + line.taxAmountPence;
  }
  const deductionPence =
    bill.xeroDeductionPence !== null
      ? bill.xeroDeductionPence
      : contactRate === 0
        ? 0
        : Number(roundHalfUp(BigInt(Math.max(0, bill.totalPence - materialsWithVatPence)) * 20n, 100n));
  return {
    grossPence: bill.subTotalPence,
    materialsPence,
    deductionPence,
    payablePence: bill.totalPence - deductionPence,
  };
}

/** What payments in a tax month carry of a bill: each figure in the share the month's payments paid. */
export function getBillMonthFigures(
  bill: ReturnBill,
  figures: BillCisFigures,
  month: { start: string; end: string },
): { paidPence: number; grossPence: number; materialsPence: number; deductionPence: number } {
  let before = 0;
  let within = 0;
  for (const p of bill.payments) {
    if (!p.date || p.date > month.end) continue;
    if (p.date < month.start) before += p.amountPence;
    else within += p.amountPence;
  }
  const share = (amount: number) => getMonthSharePence(amount, before, within, figures.payablePence);
  return {
    paidPence: within,
    grossPence: share(figures.grossPence),
    materialsPence: share(figures.materialsPence),
    deductionPence: share(figures.deductionPence),
  };
}
