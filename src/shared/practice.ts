import { z } from 'zod';
import {
  CIS_ROW_STATES,
  CONNECTION_STATES,
  TODAY_ROW_STATUSES,
  type CisRowState,
  type TodayConnectionState,
  type TodayRowStatus,
} from './practice-rules';
import { webhookHealthSchema } from './webhook-health';

// Names and rules are zod-free so a page can import them without zod (decision 022).
export * from './practice-rules';

const money = z.number();

/**
 * GET /api/practice/today (issue 47): one row per organisation the user may see, in the order a bookkeeper
 * works them (`sortTodayRows`). Every figure is what that organisation's own screen shows; null where the
 * figure does not apply (its feature is off, or, for Stock Journal, no customer is chosen in Settings) or is
 * not known yet (`status` says which).
 */
export const todayRowSchema = z.object({
  organizationId: z.number().int(),
  tenantName: z.string().nullable(),
  /**
   * The user's connection to the organisation: connected, Xero asks to reconnect (the token was refused), or
   * not connected; with live updates from Xero's webhooks, or why not (decision 018).
   */
  connection: z.object({
    state: z.enum(CONNECTION_STATES) as z.ZodType<TodayConnectionState>,
    liveUpdates: webhookHealthSchema.nullable(),
  }),
  /**
   * ready: every figure is in; reading: Xero is being read (the invoices may be "so far"); waiting: queued for a
   * read; failed: the read failed (`message` says why); not-connected: no figures.
   */
  status: z.enum(TODAY_ROW_STATUSES) as z.ZodType<TodayRowStatus>,
  message: z.string().nullable(),
  /** Pay Invoices: invoices awaiting payment and what is due on them in pounds (`total`: Xero's count while read). */
  invoicesAwaiting: z
    .object({
      count: z.number().int(),
      amount: money,
      /** Invoices in another currency among them: counted, their amounts not in the pounds. */
      otherCurrencies: z.number().int(),
      complete: z.boolean(),
      total: z.number().int().nullable(),
    })
    .nullable(),
  /** Add Invoices: drafts to approve. */
  draftInvoices: z.number().int().nullable(),
  /** CIS Bills: draft bills of subcontractors. */
  draftBills: z.number().int().nullable(),
  /** CIS Returns: the month to act on (the overdue one with the largest penalty, else the newest ended). */
  cis: z
    .object({
      period: z.string(),
      state: z.enum(CIS_ROW_STATES) as z.ZodType<CisRowState>,
      dueDate: z.string(),
      daysToDue: z.number().int(),
      penaltyAmount: money,
      overdueMonths: z.number().int(),
    })
    .nullable(),
  /** Stock Journal: weeks with sales and no journal, for the customer chosen in Settings. */
  stockJournalUnposted: z.number().int().nullable(),
  /** The weeks that figure counts (the link opens Stock Journal on them). */
  stockJournalWeeks: z.object({ fromDate: z.string(), toDate: z.string() }).nullable(),
  /** Admin → Needs review: writes whose outcome in Xero a person must settle. */
  needsReview: z.number().int(),
  /** Whether this user may open Admin → Needs review (administrators). */
  canReview: z.boolean(),
  /** Figures still being read while the row is `reading` (the others are shown already); empty otherwise. */
  pending: z.array(
    z.enum(['invoicesAwaiting', 'draftInvoices', 'draftBills', 'cis', 'stockJournalUnposted']),
  ),
});
export type TodayRow = z.infer<typeof todayRowSchema>;
export const todayResponseSchema = z.array(todayRowSchema);
export type TodayResponse = z.infer<typeof todayResponseSchema>;

/** GET /api/practice/events: rows of these organisations changed; the page asks for the list again. */
export const todayEventSchema = z.object({ organizationIds: z.array(z.number().int()) });
