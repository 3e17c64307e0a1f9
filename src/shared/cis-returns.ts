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
 *   advance (the Income Tax (Construction Industry Scheme) (Amendment) Regulations 2026, amending SI 2005/2045
 *   reg 4; before then no nil return was needed, CISR61280); a scheme may be made inactive for six months
 *   (SI 2005/2045 reg 4(11), CISR67010).
 * - Late-return penalties (CH62340, CH62360, CH62380, CH62400): £100 at once, £200 more when 2 months late, then
 *   the greater of £300 and 5 % of the deductions on the return at 6 and again at 12 months; for a contractor new
 *   to CIS the fixed ones are capped and the later ones lose their minimum (CH62540–CH62600).
 * - The deductions are paid by the 22nd, by the last working day before when that is a weekend or a bank holiday
 *   (gov.uk/pay-paye-tax; bank-holidays.ts).
 */
import { z } from 'zod';
import { getWorkingDayOnOrBefore } from './bank-holidays';
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

/** One step of the late-return penalty schedule and the day it applies from. */
interface PenaltyStep {
  /** The first day the step applies: the day after the due date, and 2, 6 and 12 months after it. */
  from: string;
  pence: number;
  label: string;
  /** The initial and second fixed penalties (CH62340, CH62360), which the rules for new contractors cap. */
  fixed: boolean;
}

/** The most the initial and second fixed penalties of a new contractor's late returns add up to (CH62560). */
export const NEW_CONTRACTOR_FIXED_PENALTY_CAP_PENCE = 300_000;

/**
 * The late-return penalties of one return (CH62340, CH62360, CH62380, CH62400): £100 the day after the due date,
 * £200 more 2 months after it, then the greater of £300 and 5 % of the deductions on the return at 6 and again at
 * 12 months (12 months: where information was not deliberately withheld; Ledgerlink assumes it was not). Under
 * the rules for contractors new to CIS (FA 2009 Sch 55 para 13, CH62540, CH62580) the 6 and 12 month penalties are
 * 5 % of the deductions with no £300 minimum.
 */
export function getPenaltySchedule(
  dueDate: string,
  deductionPence: number,
  options: { newContractor?: boolean } = {},
): PenaltyStep[] {
  const fivePercent = Number(roundHalfUp(BigInt(Math.max(0, deductionPence)) * 5n, 100n));
  const later = options.newContractor ? fivePercent : Math.max(30_000, fivePercent);
  const laterText = options.newContractor
    ? '5 % of the deductions (new to CIS: no £300 minimum)'
    : '£300 or 5 % of the deductions, whichever is more';
  return [
    { from: addDays(dueDate, 1), pence: 10_000, label: 'late: £100', fixed: true },
    {
      from: addDays(addMonths(dueDate, 2), 1),
      pence: 20_000,
      label: '2 months late: £200 more',
      fixed: true,
    },
    {
      from: addDays(addMonths(dueDate, 6), 1),
      pence: later,
      label: `6 months late: ${laterText}`,
      fixed: false,
    },
    {
      from: addDays(addMonths(dueDate, 12), 1),
      pence: later,
      label: `12 months late: ${laterText} again`,
      fixed: false,
    },
  ];
}

/** The penalty due for a return still not filed on `asOf` (or filed then), under the ordinary rules. */
export function getLatePenaltyPence(dueDate: string, asOf: string, deductionPence: number): number {
  return getPenaltySchedule(dueDate, deductionPence)
    .filter((step) => step.from <= asOf)
    .reduce((sum, step) => sum + step.pence, 0);
}

/** A tax month as the penalty rules see it. */
export interface PenaltyMonth {
  period: string;
  dueDate: string;
  /** The deductions the return shows (as filed) or would show (not filed yet). */
  deductionPence: number;
  /** The day the return was filed; null while it is not. */
  filedOn: string | null;
  /** False when no return is needed (a nil month before 6 April 2026, or HMRC told in advance). */
  needsReturn: boolean;
}

export interface MonthPenalty {
  /** The penalty the month carries on `asOf` (a late return keeps what it reached when it was filed). */
  pence: number;
  /** Filed after its due date. */
  late: boolean;
  /** The next step of a return still not filed: when it applies and how much it adds. */
  next: { from: string; pence: number; label: string } | null;
  /** HMRC's rules for contractors new to CIS apply to this return (FA 2009 Sch 55 para 13, CH62540). */
  newContractor: boolean;
}

/**
 * The late-return penalty of each month. The rules for new contractors (FA 2009 Sch 55 para 13) apply, before the
 * contractor first makes a return, to every return, and after it to that first return and every return whose
 * filing date came before it: their initial and second fixed penalties add up to £3,000 at most (CH62560, taken in
 * the order they arise) and their 6 and 12 month penalties are 5 % of the deductions with no £300 minimum
 * (CH62580). `firstReturnOn` is the day the contractor first made a CIS return when that was before the first
 * return marked filed here (null: the first marked here is the first).
 */
export function getMonthPenalties(
  months: readonly PenaltyMonth[],
  asOf: string,
  firstReturnOn: string | null = null,
): Map<string, MonthPenalty> {
  const filedDays = months.flatMap((m) => (m.filedOn ? [m.filedOn] : []));
  if (firstReturnOn) filedDays.push(firstReturnOn);
  const first = filedDays.length > 0 ? filedDays.reduce((a, b) => (b < a ? b : a)) : null;
  const isNew = (m: PenaltyMonth) =>
    first === null || m.dueDate < first || (m.filedOn !== null && m.filedOn === first);

  type Reached = { period: string; step: PenaltyStep; pence: number };
  const reached: Reached[] = [];
  const nextOf = new Map<string, PenaltyStep | null>();
  for (const m of months) {
    if (!m.needsReturn) continue;
    const until = m.filedOn ?? asOf;
    const schedule = getPenaltySchedule(m.dueDate, m.deductionPence, { newContractor: isNew(m) });
    for (const step of schedule)
      if (step.from <= until) reached.push({ period: m.period, step, pence: step.pence });
    nextOf.set(m.period, m.filedOn ? null : (schedule.find((s) => s.from > asOf) ?? null));
  }
  // The cap on a new contractor's fixed penalties, in the order they arise.
  let capLeft = NEW_CONTRACTOR_FIXED_PENALTY_CAP_PENCE;
  const byPeriod = new Map(months.map((m) => [m.period, m]));
  reached.sort((a, b) => a.step.from.localeCompare(b.step.from) || a.period.localeCompare(b.period));
  for (const r of reached) {
    const month = byPeriod.get(r.period);
    if (!month || !r.step.fixed || !isNew(month)) continue;
    r.pence = Math.min(r.pence, capLeft);
    capLeft -= r.pence;
  }
  const out = new Map<string, MonthPenalty>();
  for (const m of months) {
    const pence = reached.filter((r) => r.period === m.period).reduce((sum, r) => sum + r.pence, 0);
    const next = nextOf.get(m.period) ?? null;
    const nextPence = next && next.fixed && isNew(m) ? Math.min(next.pence, capLeft) : (next?.pence ?? 0);
    out.set(m.period, {
      pence,
      late: m.filedOn !== null && m.filedOn > m.dueDate,
      next: next && nextPence > 0 ? { from: next.from, pence: nextPence, label: next.label } : null,
      newContractor: m.needsReturn && isNew(m),
    });
  }
  return out;
}

// ---- Paying the deductions -----------------------------------------------------------------------------------

/**
 * The day the month's deductions must reach HMRC when paid electronically: the 22nd, or the last working day
 * before it when the 22nd is a weekend or an England and Wales bank holiday ("If the deadline falls on a weekend
 * or bank holiday, make sure your payment reaches HMRC on the last working day before it (unless you're paying by
 * Faster Payments)", gov.uk/pay-paye-tax, which CIS deductions follow).
 */
export function getDeductionsPaymentDueDate(period: string): { due: string; nominal: string } {
  const nominal = getTaxMonth(period).paymentDueDate;
  return { due: getWorkingDayOnOrBefore(nominal), nominal };
}

// ---- Nil months ------------------------------------------------------------------------------------------------

/**
 * How a month with no payments was dealt with instead of a nil return: HMRC told in advance that no payments
 * would be made (from 6 April 2026: the Income Tax (Construction Industry Scheme) (Amendment) Regulations 2026), or
 * the scheme declared inactive for up to six months (SI 2005/2045 reg 4(11), CISR67010).
 */
export const CIS_NIL_MARKS = ['told-in-advance', 'inactive'] as const;
export type CisNilMarkKind = (typeof CIS_NIL_MARKS)[number];
export const NIL_MARK_LABELS: Record<CisNilMarkKind, string> = {
  'told-in-advance': 'HMRC told in advance',
  inactive: 'Scheme inactive',
};

// ---- Correcting a filed return ---------------------------------------------------------------------------------

/**
 * How HMRC is told that a filed return changed (CISR66010, CISR72030): amend it online (HMRC's CIS service, or
 * the software it was sent with), or send a corrected return, write to HMRC, or phone the CIS helpline.
 */
export const CORRECTION_ADVICE =
  "Tell HMRC by amending this return: correct it online in HMRC's CIS service (or the software it was filed with), " +
  'or send a corrected return, write to HMRC or phone the CIS helpline on 0300 200 3210 (HMRC manual CISR66010, ' +
  'CISR72030). Give each subcontractor whose figures changed a corrected statement.';

// ---- References (Xero's API gives none of them: Ledgerlink keeps them) --------------------------------------

export const UTR_MESSAGE = 'UTR must be 10 digits';
export const VERIFICATION_NUMBER_MESSAGE =
  'Verification number must be V followed by 10 digits and up to two letters (like V1234567890A)';
export const EMPLOYER_REFERENCE_MESSAGE =
  "Employer reference must be the tax office's 3 digits, a slash and up to 10 letters or digits (like 123/AB45678)";
export const ACCOUNTS_OFFICE_REFERENCE_MESSAGE =
  'Accounts office reference must be 13 characters like 123PA00012345';
export const CONTRACTOR_NAME_MESSAGE = 'Name on statements must be 1 to 160 characters';
export const FIRST_RETURN_MESSAGE = 'First return date must be a valid date written YYYY-MM-DD';

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

// ---- Checked before filing ---------------------------------------------------------------------------------

export const CIS_FILING_CHECKS = [
  'contractor-utr',
  'employer-reference',
  'accounts-office-reference',
  'subcontractor-utr',
  'verification-number',
] as const;
export type CisFilingCheckCode = (typeof CIS_FILING_CHECKS)[number];

/** One thing a return is filed under (CIS300 and CISR12160 ask for them all), set or missing. */
export interface CisFilingCheck {
  code: CisFilingCheckCode;
  ok: boolean;
  /** What it is, in a few words: "Your UTR", "UTR of Hughes Groundworks Ltd". */
  label: string;
  /** The subcontractor it is about, when it is about one. */
  contactId: string | null;
}

/**
 * The pre-filing checklist: the contractor's UTR, employer reference and accounts office reference; each
 * subcontractor's UTR; a verification number for each subcontractor deducted at the higher rate (30 %), which is
 * the only rate at which the return and the statement carry one (CISR61220, CISR12160).
 */
export function getFilingChecks(
  contractor: {
    utr: string | null;
    employerReference: string | null;
    accountsOfficeReference: string | null;
  },
  lines: ReadonlyArray<{
    contactId: string;
    name: string;
    utr: string | null;
    verificationNumber: string | null;
    rate: number | null;
  }>,
): CisFilingCheck[] {
  const checks: CisFilingCheck[] = [
    {
      code: 'contractor-utr',
      ok: Boolean(contractor.utr),
      label: 'Your UTR (the contractor’s)',
      contactId: null,
    },
    {
      code: 'employer-reference',
      ok: Boolean(contractor.employerReference),
      label: 'Your employer reference',
      contactId: null,
    },
    {
      code: 'accounts-office-reference',
      ok: Boolean(contractor.accountsOfficeReference),
      label: 'Your accounts office reference',
      contactId: null,
    },
  ];
  for (const line of lines) {
    checks.push({
      code: 'subcontractor-utr',
      ok: Boolean(line.utr),
      label: `UTR of ${line.name}`,
      contactId: line.contactId,
    });
    if (line.rate === CIS_HIGHER_RATE)
      checks.push({
        code: 'verification-number',
        ok: Boolean(line.verificationNumber),
        label: `Verification number of ${line.name} (deducted at 30 %)`,
        contactId: line.contactId,
      });
  }
  return checks;
}

/** The refusal's message: each missing thing named ("filed" when marked by hand, "sent to HMRC" from Ledgerlink). */
export function describeMissingForFiling(
  checks: readonly CisFilingCheck[],
  verb: 'filed' | 'sent to HMRC' = 'filed',
): string {
  const missing = checks.filter((c) => !c.ok).map((c) => c.label);
  return `This return cannot be ${verb} yet. Missing: ${missing.join('; ')}.`;
}

/**
 * The one rule of what may be filed (issues 42 and 43): a return marked filed by hand and one sent to HMRC from
 * Ledgerlink are both refused, naming each thing missing, until every check passes. Null when it may be filed.
 */
export function getFilingRefusal(
  checks: readonly CisFilingCheck[],
  verb: 'filed' | 'sent to HMRC' = 'filed',
): { message: string; missing: Array<Pick<CisFilingCheck, 'code' | 'label' | 'contactId'>> } | null {
  const missing = checks.filter((c) => !c.ok);
  if (missing.length === 0) return null;
  return {
    message: describeMissingForFiling(checks, verb),
    missing: missing.map((c) => ({ code: c.code, label: c.label, contactId: c.contactId })),
  };
}

// ---- Who may change what a return is filed under (issue 44 item 4) -----------------------------------------

/**
 * One rule for every reference a return is filed under (the contractor's UTR, employer and accounts office
 * references, the CIS deductions account, each subcontractor's UTR and verification number): any member may fill
 * in one that is not set; once set, only an administrator changes or clears it, as only an administrator undoes a
 * filing. The server refuses with 403 and this message; the screens show such a field as locked.
 */
export const FILED_UNDER_FIELDS = {
  utr: 'your UTR',
  employerReference: 'your employer reference',
  accountsOfficeReference: 'your accounts office reference',
  deductionAccountCode: 'the CIS deductions account',
  subcontractorUtr: "a subcontractor's UTR",
  verificationNumber: "a subcontractor's verification number",
} as const;
export type FiledUnderField = keyof typeof FILED_UNDER_FIELDS;

/** Whether a member who is not an administrator may change a filed-under value from `before` to `after`. */
export function mayChangeFiledUnder(before: string | null, after: string | null, isAdmin: boolean): boolean {
  return isAdmin || before === null || before === after;
}

/** What a screen says beside a filed-under reference it shows read-only to a member (FILED_UNDER_FIELDS). */
export const FILED_UNDER_LOCKED_HINT =
  'Set: only an administrator can change it, as returns are filed under it';

export function filedUnderMessage(fields: readonly FiledUnderField[]): string {
  const names = fields.map((f) => FILED_UNDER_FIELDS[f]);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  return `Only an administrator can change ${list} once set: returns are filed under ${names.length > 1 ? 'them' : 'it'}. Ask an administrator.`;
}

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

export const CIS_LINE_FLAGS = [
  /** Xero does not mark the contact as a CIS subcontractor, yet the bill was treated as one. */
  'not-cis',
  /** Paid with nothing deducted at a rate above 0 %: the contractor owes what should have been deducted. */
  'nothing-deducted',
  /** Xero holds no CIS rate for the contact and no bill says the rate used. */
  'rate-unknown',
  /** Deducted at one rate, while Xero's settings for the contact now say another. */
  'rate-differs',
  /** Payments at more than one rate in the month. */
  'mixed-rates',
  /** Credit notes refunded exceed the month's payments: HMRC's return takes no negative figures. */
  'negative',
] as const;

export const cisLineFlagSchema = z.object({ code: z.enum(CIS_LINE_FLAGS), message: z.string() });
export type CisLineFlag = z.infer<typeof cisLineFlagSchema>;

export const cisReturnLineSchema = z.object({
  contactId: z.string(),
  name: z.string(),
  utr: z.string().nullable(),
  /** Only where the 30 % higher rate was deducted. */
  verificationNumber: z.string().nullable(),
  /**
   * The deduction rate in percent (0, 20 or 30): the one the bills say they were deducted at (`CIS deduction at
   * N%`, Xero's CISRate), else Xero's CIS settings for the contact; null when neither says.
   */
  rate: z.number().nullable(),
  /** Gross amount paid, excluding VAT, in pounds (credit notes refunded in the month taken off). */
  grossAmount: money,
  materialsAmount: money,
  deductionAmount: money,
  /** What the contractor should look at before filing (nothing when all is well). */
  flags: z.array(cisLineFlagSchema).default([]),
});
export type CisReturnLine = z.infer<typeof cisReturnLineSchema>;

export const cisReturnTotalsSchema = z.object({
  grossAmount: money,
  materialsAmount: money,
  deductionAmount: money,
});
export type CisReturnTotals = z.infer<typeof cisReturnTotalsSchema>;

/** HMRC's receipt for a return filed through Ledgerlink (issue 43): the IRmark, HMRC's time and its correlation id. */
export const cisFilingReceiptSchema = z.object({
  irmark: z.string().nullable(),
  receivedAt: z.string().nullable(),
  correlationId: z.string().nullable(),
});
export type CisFilingReceipt = z.infer<typeof cisFilingReceiptSchema>;

export const cisFilingSchema = z.object({
  /** The day HMRC was told. */
  filedOn: z.string(),
  /** When it was marked in Ledgerlink. */
  filedAt: z.string(),
  filedBy: z.string(),
  /** Marked by hand, or filed through Ledgerlink with HMRC's receipt. */
  source: z.enum(['manual', 'hmrc']).default('manual'),
  /** Filed after its due date. */
  late: z.boolean().default(false),
  /** The late-filing penalty the return carries (pounds); 0 on time. */
  penaltyAmount: money.default(0),
  /** The lines and totals as filed; null for a month marked before Ledgerlink kept them. */
  lines: z.array(cisReturnLineSchema).nullable().default(null),
  totals: cisReturnTotalsSchema.nullable().default(null),
  receipt: cisFilingReceiptSchema.nullable().default(null),
});
export type CisFiling = z.infer<typeof cisFilingSchema>;

const figuresSchema = z.object({ grossAmount: money, materialsAmount: money, deductionAmount: money });

/** A subcontractor whose figures moved since the return was filed. */
export const cisReturnChangeSchema = z.object({
  contactId: z.string(),
  name: z.string(),
  kind: z.enum(['added', 'removed', 'changed']),
  filed: figuresSchema.nullable(),
  now: figuresSchema.nullable(),
});
export type CisReturnChange = z.infer<typeof cisReturnChangeSchema>;

export const cisNilMarkSchema = z.object({
  kind: z.enum(CIS_NIL_MARKS),
  markedAt: z.string(),
  markedBy: z.string(),
});
export type CisNilMark = z.infer<typeof cisNilMarkSchema>;

export const cisPenaltySchema = z.object({
  /** Pounds: what the month carries now (a return filed late keeps what it reached). */
  amount: money,
  next: z.object({ from: z.string(), amount: money, label: z.string() }).nullable(),
  /** HMRC's rules for contractors new to CIS apply (CH62540). */
  newContractorRules: z.boolean(),
});
export type CisPenalty = z.infer<typeof cisPenaltySchema>;

export const cisFilingCheckSchema = z.object({
  code: z.enum(CIS_FILING_CHECKS),
  ok: z.boolean(),
  label: z.string(),
  contactId: z.string().nullable(),
});

export const cisReturnSchema = z.object({
  period: z.string(),
  start: z.string(),
  end: z.string(),
  dueDate: z.string(),
  /** The day the deductions must reach HMRC electronically: the 22nd, or the working day before (see the note). */
  paymentDueDate: z.string(),
  /** Why the payment date is not the 22nd; null when it is. */
  paymentDueNote: z.string().nullable(),
  statementDueDate: z.string(),
  /** No payments in the month: a nil return. */
  nil: z.boolean(),
  /** Whether a nil month needs a nil return (compulsory from 6 April 2026, unless HMRC was told in advance). */
  nilReturnRequired: z.boolean(),
  /** How a nil month was dealt with instead of a return, when marked. */
  nilMark: cisNilMarkSchema.nullable(),
  /** The tax month is not over: the figures are what has been paid so far. */
  isCurrent: z.boolean(),
  /** The day HMRC was told, as marked in Ledgerlink; null while not filed. */
  filedAt: z.string().nullable(),
  filing: cisFilingSchema.nullable(),
  /** The live figures differ from the filed ones (a payment added, removed or changed since). */
  changedSinceFiling: z.boolean(),
  changes: z.array(cisReturnChangeSchema),
  /** How HMRC is told of the correction, when the return changed since filing. */
  correctionAdvice: z.string().nullable(),
  penalty: cisPenaltySchema,
  /** Not filed, and its due date has passed while a return is needed. */
  overdue: z.boolean().default(false),
  /** What the return is filed under, each set or missing. */
  checks: z.array(cisFilingCheckSchema),
  lines: z.array(cisReturnLineSchema),
  totals: cisReturnTotalsSchema,
});
export type CisReturn = z.infer<typeof cisReturnSchema>;

export const CIS_MONTH_STATES = ['current', 'due', 'overdue', 'filed', 'not-needed'] as const;

export const cisMonthSummarySchema = z.object({
  period: z.string(),
  start: z.string(),
  end: z.string(),
  dueDate: z.string(),
  paymentDueDate: z.string(),
  nil: z.boolean(),
  nilReturnRequired: z.boolean(),
  nilMark: cisNilMarkSchema.nullable(),
  subcontractors: z.number(),
  deductionAmount: money,
  /** `not-needed`: a nil month that needs no return (before 6 April 2026, or marked). */
  state: z.enum(CIS_MONTH_STATES),
  /** Days to the due date (negative once overdue). */
  daysToDue: z.number(),
  /** The late-filing penalty (pounds): what an unfiled month carries now, what a late one kept; 0 when none. */
  penaltyAmount: money,
  nextPenalty: z.object({ from: z.string(), amount: money }).nullable(),
  newContractorRules: z.boolean(),
  filing: cisFilingSchema.nullable(),
  changedSinceFiling: z.boolean(),
});
export type CisMonthSummary = z.infer<typeof cisMonthSummarySchema>;

export const cisMonthsResponseSchema = z.object({
  today: z.string(),
  /** The day the contractor first made a CIS return, as the penalty rules take it; null: none yet. */
  firstReturnOn: z.string().nullable(),
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

export const nilMarkRequestSchema = z.object({
  kind: z.enum(CIS_NIL_MARKS, { error: 'Mark must be told-in-advance or inactive' }),
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
  /**
   * The day the contractor first made a CIS return, when that was before the first return marked filed in
   * Ledgerlink (HMRC's rules for new contractors hinge on it, CH62540); null: the first marked here was the first.
   */
  firstReturnOn: z.string().nullable().default(null),
  /**
   * Whether the person asking may change a filed-under reference once it is set (administrators only,
   * `FILED_UNDER_FIELDS`); any member may fill in one that is not set.
   */
  canChangeFiledUnder: z.boolean().default(true),
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
  /** Left out: kept as it is. Null: the first return marked filed here was the first. */
  firstReturnOn: z
    .string()
    .max(10, FIRST_RETURN_MESSAGE)
    .refine(isIsoDate, FIRST_RETURN_MESSAGE)
    .nullable()
    .optional(),
});
export type CisSettingsRequest = z.input<typeof cisSettingsRequestSchema>;

export const subcontractorRefsRequestSchema = z.object({
  utr: utrSchema,
  /** Left out: kept as it is (a screen that shows no verification number need not send one). */
  verificationNumber: verificationNumberSchema.optional(),
});
export type SubcontractorRefsRequest = z.input<typeof subcontractorRefsRequestSchema>;

export const subcontractorRefsSchema = z.object({
  contactId: z.string(),
  utr: z.string().nullable(),
  verificationNumber: z.string().nullable(),
});
export type SubcontractorRefs = z.infer<typeof subcontractorRefsSchema>;

/**
 * A rate as the screens say it: the 20 % case plainly, another rate with what it means (issue 42: "30 % — not
 * verified", "0 % — gross payment status").
 */
export function describeCisRate(rate: number | null): string {
  if (rate === null) return 'Rate unknown';
  if (rate === 0) return '0 % — gross payment status';
  if (rate === CIS_HIGHER_RATE) return '30 % — not verified';
  return `${rate} %`;
}

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

/**
 * What moved since a return was filed, per subcontractor: added, removed, or with other figures or another rate.
 * Empty when the live return says what was filed.
 */
export function diffReturnLines(
  filed: readonly CisReturnLine[],
  live: readonly CisReturnLine[],
): CisReturnChange[] {
  const figures = (l: CisReturnLine) => ({
    grossAmount: l.grossAmount,
    materialsAmount: l.materialsAmount,
    deductionAmount: l.deductionAmount,
  });
  const before = new Map(filed.map((l) => [l.contactId, l]));
  const after = new Map(live.map((l) => [l.contactId, l]));
  const changes: CisReturnChange[] = [];
  for (const l of live) {
    const f = before.get(l.contactId);
    if (!f)
      changes.push({ contactId: l.contactId, name: l.name, kind: 'added', filed: null, now: figures(l) });
    else if (
      f.grossAmount !== l.grossAmount ||
      f.materialsAmount !== l.materialsAmount ||
      f.deductionAmount !== l.deductionAmount ||
      f.rate !== l.rate
    )
      changes.push({
        contactId: l.contactId,
        name: l.name,
        kind: 'changed',
        filed: figures(f),
        now: figures(l),
      });
  }
  for (const f of filed)
    if (!after.has(f.contactId))
      changes.push({ contactId: f.contactId, name: f.name, kind: 'removed', filed: figures(f), now: null });
  return changes.sort(
    (a, b) => a.name.localeCompare(b.name, 'en-GB') || a.contactId.localeCompare(b.contactId),
  );
}
