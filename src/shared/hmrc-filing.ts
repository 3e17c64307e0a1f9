/**
 * Filing with HMRC (issue 43): the contracts of verification, the monthly return's submission, statements by
 * email and deadlines, and HMRC's rules they rest on, shared by the server, the screens and the tests.
 *
 * - Verify a subcontractor before the first payment, and again when they were not paid in the current or the two
 *   previous tax years (CISR51050; gov.uk "What you must do as a CIS contractor: verify subcontractors").
 * - The tax treatment HMRC answers is the rate: gross payment status 0 %, net 20 %, not matched 30 % (CISR51050).
 * - A return HMRC accepted is corrected through HMRC, not by sending it again from software: the contractor
 *   corrects it in HMRC's CIS online service, or calls the CIS helpline, or writes (CISR66010, CISR72030).
 * - Statements are owed to subcontractors paid under deduction, within 14 days of the tax month's end; one to a
 *   subcontractor paid gross is not required (CISR12160, CIS340 §3.29).
 */
import { z } from 'zod';
import { emailSchema } from './admin';
import { addDays, getDateParts } from './dates';
import { textSchema } from './input';
import { getTaxMonth } from './cis-returns';

/** A tax year starts on 6 April: the year of the tax year a date falls in (2026 = 6 Apr 2026 – 5 Apr 2027). */
export function getTaxYearOf(isoDate: string): number {
  const { year, month, day } = getDateParts(isoDate);
  return month > 4 || (month === 4 && day >= 6) ? year : year - 1;
}

/**
 * Whether HMRC's rule asks for a verification before paying: never paid (by this contractor), or last paid before
 * the start of the tax year two years before the current one (CISR51050).
 */
export function isVerificationNeeded(lastPaidOn: string | null, today: string): boolean {
  if (!lastPaidOn) return true;
  return getTaxYearOf(lastPaidOn) < getTaxYearOf(today) - 2;
}

/**
 * Why a subcontractor needs verifying, in words; null when HMRC's rule does not ask for it. `as`: asked before the
 * next payment (today), or about a tax month's payments (`lastPaidOn` then before the month, `today` its first day).
 */
export function verificationReason(
  lastPaidOn: string | null,
  today: string,
  as: 'today' | 'month' = 'today',
): string | null {
  if (!isVerificationNeeded(lastPaidOn, today)) return null;
  if (as === 'month')
    return lastPaidOn
      ? 'Not paid in the tax year of this month or the two before it: HMRC’s rule asks for a verification before paying again, and none from Ledgerlink is recorded by the month’s end.'
      : 'Not paid before this month: HMRC’s rule asks for a verification before the first payment, and none from Ledgerlink is recorded by the month’s end.';
  if (!lastPaidOn)
    return 'Not paid before: HMRC asks contractors to verify a new subcontractor before paying them.';
  return 'Not paid in this tax year or the two before it: HMRC asks for the subcontractor to be verified again.';
}

/**
 * A subcontractor's latest verification with HMRC, as the deduction and the return use it (issue 43: HMRC's answer
 * "is the rate the deduction uses"). `verificationNumber` is HMRC's; an unmatched subcontractor's (rate 30) carries a
 * letter at its end and is the one a return and a statement must quote (CISR12160, CIS300 "VerificationNumber").
 */
export interface VerifiedRate {
  rate: 0 | 20 | 30;
  matched: boolean;
  verificationNumber: string | null;
  verifiedAt: string;
}

/**
 * The one narrow port CIS Bills and CIS Returns read verifications through (handed in by src/server/wiring.ts):
 * the latest verification of each of these contacts (ids compared without case), keyed by lower-case contact id.
 */
export type FindVerifiedRates = (
  organizationId: number,
  contactIds: readonly string[],
) => Promise<ReadonlyMap<string, VerifiedRate>>;

/** The verification number a return line at the higher rate quotes: HMRC's unmatched answer, or one typed. */
export function pickVerificationNumber(
  typed: { verificationNumber: string | null; updatedAt?: Date | string | null } | undefined,
  verified: VerifiedRate | undefined,
): string | null {
  const fromHmrc = verified && verified.rate === 30 ? verified.verificationNumber : null;
  const own = typed?.verificationNumber ?? null;
  if (!fromHmrc) return own;
  if (!own) return fromHmrc;
  // Both: the later one (a number typed after a verification from Ledgerlink, from a verification done elsewhere).
  const typedAt = typed?.updatedAt ? new Date(typed.updatedAt).getTime() : 0;
  return typedAt > new Date(verified?.verifiedAt ?? 0).getTime() ? own : fromHmrc;
}

/** The day the deadline reminder goes: 5 days before the return's due date (the 14th). */
export const REMINDER_DAYS_BEFORE = 5;
export function getReminderDate(period: string): string {
  return addDays(getTaxMonth(period).dueDate, -REMINDER_DAYS_BEFORE);
}

/** How a return HMRC accepted is corrected (CISR66010, CISR72030). */
export const CORRECTION_ROUTE =
  "HMRC has this return. To correct it, use HMRC's CIS online service (sign in with the same Government Gateway user ID), or call the CIS helpline on 0300 200 3210: a return HMRC accepted is not sent again.";

// ---- Contracts ----------------------------------------------------------------------------------------------

export const SUBCONTRACTOR_TYPES = ['soletrader', 'company', 'partnership', 'trust'] as const;
export const SUBCONTRACTOR_TYPE_LABELS: Record<(typeof SUBCONTRACTOR_TYPES)[number], string> = {
  soletrader: 'Sole trader',
  company: 'Company',
  partnership: 'Partnership',
  trust: 'Trust',
};

const optionalText = (max: number) =>
  textSchema(max)
    .nullable()
    .optional()
    .transform((v) => (v === null || v === undefined || v.trim() === '' ? null : v.trim()));

/** What a person says about a subcontractor to verify them (the UTR defaults to the one kept for them). */
export const verificationRequestSchema = z.object({
  type: z
    .enum(SUBCONTRACTOR_TYPES, { error: 'Type must be sole trader, company, partnership or trust' })
    .optional(),
  /** The name HMRC knows: a trading name, or a sole trader's first name and surname. */
  tradingName: optionalText(56),
  firstName: optionalText(35),
  surname: optionalText(35),
  utr: optionalText(20),
  nino: optionalText(20),
  crn: optionalText(20),
  partnershipName: optionalText(56),
  partnershipUtr: optionalText(20),
});
export type VerificationRequest = z.input<typeof verificationRequestSchema>;

export const verificationSchema = z.object({
  contactId: z.string(),
  matched: z.boolean(),
  /** 0, 20 or 30: the rate the deduction uses. */
  rate: z.number(),
  taxTreatment: z.string(),
  verificationNumber: z.string().nullable(),
  verifiedAt: z.string(),
  verifiedBy: z.string(),
  utr: z.string(),
  /** Xero's CIS rate for the contact, null when Xero has none. */
  xeroRate: z.number().nullable(),
  /** Xero's contact says another rate than HMRC's answer. */
  disagreesWithXero: z.boolean(),
});
export type Verification = z.infer<typeof verificationSchema>;

/** A verification still on its way: HMRC has not answered yet (the screen asks again). */
export const verificationPendingSchema = z.object({ state: z.literal('sending'), message: z.string() });

export const subcontractorStatusSchema = z.object({
  contactId: z.string(),
  name: z.string(),
  utr: z.string().nullable(),
  email: z.string().nullable(),
  lastPaidOn: z.string().nullable(),
  needsVerification: z.boolean(),
  reason: z.string().nullable(),
  verification: verificationSchema.nullable(),
  sending: z.boolean(),
});
export type SubcontractorStatus = z.infer<typeof subcontractorStatusSchema>;
export const subcontractorStatusesSchema = z.object({ subcontractors: z.array(subcontractorStatusSchema) });

export const submissionRequestSchema = z.object({
  declarations: z.object(
    {
      employmentStatus: z.boolean({ error: 'Declarations must be true or false' }),
      verification: z.boolean({ error: 'Declarations must be true or false' }),
      informationCorrect: z.boolean({ error: 'Declarations must be true or false' }),
    },
    { error: 'The three declarations are required' },
  ),
  /** "Scheme inactive": no payments to subcontractors expected in the next six months. */
  inactive: z.boolean().optional(),
});
export type SubmissionRequest = z.input<typeof submissionRequestSchema>;

export const hmrcReasonSchema = z.object({
  number: z.string(),
  message: z.string(),
  hmrcText: z.string(),
  location: z.string().nullable(),
});
export type HmrcReasonDto = z.infer<typeof hmrcReasonSchema>;

export const submissionReceiptSchema = z.object({
  /** The IRmark Ledgerlink sent (base64) and as HMRC prints it (base32). */
  irmark: z.string(),
  irmarkBase32: z.string(),
  /** HMRC's IRmark on its receipt; null when the answer carried none. */
  hmrcIrmark: z.string().nullable(),
  /** When HMRC accepted it. */
  timestamp: z.string(),
  message: z.string(),
});

export const filedLineSchema = z.object({
  contactId: z.string(),
  name: z.string(),
  utr: z.string().nullable(),
  verificationNumber: z.string().nullable(),
  rate: z.number().nullable(),
  grossAmount: z.number(),
  materialsAmount: z.number(),
  deductionAmount: z.number(),
});

export const submissionSchema = z.object({
  id: z.number(),
  period: z.string(),
  state: z.enum(['sending', 'accepted', 'rejected']),
  correlationId: z.string().nullable(),
  receipt: submissionReceiptSchema.optional(),
  errors: z.array(hmrcReasonSchema).optional(),
  /** HMRC called the failure temporary: the same return may be sent again. */
  retryable: z.boolean(),
  nil: z.boolean(),
  inactive: z.boolean(),
  gatewayTest: z.boolean(),
  submittedBy: z.string(),
  submittedAt: z.string(),
  answeredAt: z.string().nullable(),
  /** The lines as sent (payments and materials in whole pounds, as HMRC takes them). */
  lines: z.array(filedLineSchema),
  /** After acceptance: how a correction reaches HMRC. */
  correction: z.string().nullable(),
});
export type Submission = z.infer<typeof submissionSchema>;

export const statementEmailSchema = z.object({
  contactId: z.string(),
  period: z.string(),
  to: z.string(),
  sentAt: z.string(),
  sentBy: z.string(),
  /** 'outbox' in demo mode. */
  via: z.enum(['smtp', 'outbox']).optional(),
});
export type StatementEmail = z.infer<typeof statementEmailSchema>;
export const statementEmailsSchema = z.object({ emails: z.array(statementEmailSchema) });

export const hmrcSetupSchema = z.object({
  /** Credentials are kept for this organisation (never sent back). */
  configured: z.boolean(),
  /** The user ID's last characters, to recognise it. */
  userIdHint: z.string().nullable(),
  updatedAt: z.string().nullable(),
  updatedBy: z.string().nullable(),
  /** Where returns go: the built-in sandbox, HMRC's test service, HMRC, another URL; null when filing is off. */
  endpoint: z.enum(['sandbox', 'test', 'live', 'custom']).nullable(),
  gatewayTest: z.boolean(),
  mail: z.enum(['smtp', 'outbox', 'off']),
  remindersEnabled: z.boolean(),
  reminderEmail: z.string().nullable(),
});
export type HmrcSetup = z.infer<typeof hmrcSetupSchema>;

export const hmrcCredentialsRequestSchema = z.object({
  userId: textSchema(64).trim().min(1, 'Government Gateway user ID is required'),
  password: z
    .string()
    .min(1, 'Government Gateway password is required')
    .max(128, 'Government Gateway password is at most 128 characters'),
});

export const hmrcRemindersRequestSchema = z.object({
  enabled: z.boolean({ error: 'Reminders must be on or off' }),
  email: z
    .union([z.literal(''), emailSchema])
    .nullable()
    .optional(),
});

export const cisDeadlineSchema = z.object({
  today: z.string(),
  /** The month whose return is due next (or overdue). */
  period: z.string(),
  end: z.string(),
  returnDueDate: z.string(),
  statementsDueDate: z.string(),
  paymentDueDate: z.string(),
  daysToDue: z.number(),
  state: z.enum(['due', 'overdue', 'filed']),
  /** When the reminder email goes, if reminders are on. */
  reminderDate: z.string(),
  remindersEnabled: z.boolean(),
  /** Earlier months still not filed. */
  overdueEarlier: z.number(),
});
export type CisDeadline = z.infer<typeof cisDeadlineSchema>;
