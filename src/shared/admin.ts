import { z } from 'zod';
import { FEATURE_FLAG_FIELD_NAMES, type FeatureFlagField } from './feature-flags';
import { idTextSchema, textSchema } from './input';

/**
 * The email rule of docs/product/shell.md §5: text, an at sign, a domain, a suffix of two or more letters.
 * Empty is allowed where the field is optional.
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[A-Za-z]{2,}$/;
/** Toast title and text when an edited email breaks the rule (docs/product/shell.md §5). */
export const INVALID_EMAIL_TITLE = 'Invalid email format';
export const INVALID_EMAIL_MESSAGE = 'Please enter a valid email address';

export function isValidEmail(value: string): boolean {
  return EMAIL_PATTERN.test(value);
}

export const emailSchema = textSchema(254).trim().regex(EMAIL_PATTERN, INVALID_EMAIL_MESSAGE);
/** The email as edited by a person: empty means "no email". */
export const optionalEmailSchema = z.union([z.literal(''), emailSchema]);

export const USERNAME_MIN_LENGTH = 3;
export const USERNAME_MAX_LENGTH = 64;
export const usernameSchema = z
  .string()
  .trim()
  .min(USERNAME_MIN_LENGTH, `Username must be at least ${USERNAME_MIN_LENGTH} characters`)
  .max(USERNAME_MAX_LENGTH, `Username must be at most ${USERNAME_MAX_LENGTH} characters`)
  .regex(/^[A-Za-z0-9._@+-]+$/, 'Username may contain letters, digits and . _ @ + - only');

/** GET /api/admin/check (docs/product/shell.md §6); a failure is treated as false. */
export const adminCheckResponseSchema = z.object({ isAdmin: z.boolean() });

/** GET /api/admin/organizations: one row per organisation (docs/product/shell.md §3). */
export const adminOrganizationSchema = z.object({
  id: z.number().int(),
  tenantName: z.string().nullable(),
  featurePayInvoices: z.boolean(),
  featureAddInvoices: z.boolean(),
  featureCisBills: z.boolean(),
  featureStockJournal: z.boolean(),
});
export type AdminOrganization = z.infer<typeof adminOrganizationSchema>;
export const adminOrganizationsResponseSchema = z.array(adminOrganizationSchema);

/** GET /api/admin/users: one row per user (docs/product/shell.md §3). */
export const adminUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullable(),
  isAdmin: z.boolean(),
  isXeroUser: z.boolean(),
  /** Sign-in is refused to browsers the account has not signed in from (too many failed attempts); an administrator can lift it. */
  signInLocked: z.boolean().optional(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** POST /api/admin/users/{userId}/unlock: lifts the account's sign-in lock. */
export const adminUnlockResponseSchema = z.object({ ok: z.literal(true) });
export const adminUsersResponseSchema = z.array(adminUserSchema);

/**
 * PATCH /api/admin/organizations/{orgId}/features: exactly one feature flag name with a boolean
 * (docs/product/shell.md §7), e.g. `{ "featureCisBills": true }`.
 */
export const featureTogglePatchSchema = z.union(
  FEATURE_FLAG_FIELD_NAMES.map((field) => z.object({ [field]: z.boolean() }).strict()) as [
    z.ZodObject<{ featurePayInvoices: z.ZodBoolean }>,
    z.ZodObject<{ featureAddInvoices: z.ZodBoolean }>,
    z.ZodObject<{ featureCisBills: z.ZodBoolean }>,
    z.ZodObject<{ featureStockJournal: z.ZodBoolean }>,
  ],
);
export type FeatureTogglePatch = Partial<Record<FeatureFlagField, boolean>>;

export function createFeatureTogglePatch(field: FeatureFlagField, enabled: boolean): FeatureTogglePatch {
  return { [field]: enabled };
}

/** PATCH /api/admin/users/{userId}: any of username, email, isAdmin; only changed fields are sent. */
export const adminUserPatchSchema = z
  .object({
    username: usernameSchema.optional(),
    /** '' or null clears the email. */
    email: optionalEmailSchema.nullable().optional(),
    isAdmin: z.boolean().optional(),
  })
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, { message: 'No changes to save' });
export type AdminUserPatch = z.infer<typeof adminUserPatchSchema>;

/** PATCH /api/admin/users/{userId}/admin. */
export const adminSetAdminRequestSchema = z.object({ isAdmin: z.boolean() });

/** The most lines the activity log answers at once; the CSV export carries that many. */
export const AUDIT_MAX_LIMIT = 5000;

/** One line of the activity log (`GET /api/admin/audit`, beyond the spec). */
export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  userId: z.number().nullable(),
  username: z.string().nullable(),
  organizationId: z.number().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  result: z.enum(['success', 'failure']),
  detail: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
  /** The organisation's name (issue 33 item 8); null for a line about no organisation or one gone. */
  organizationName: z.string().nullable(),
  /** What the target is to a person: an invoice's number rather than its id (`getAuditTargetLabel`). */
  targetLabel: z.string().nullable(),
  /**
   * The line in words (issue 45 item 3): "Paid £120.00 on invoice INV-0042 with Business Credit Card (800)",
   * by the action's describer (src/server/modules/audit/describe.ts).
   */
  description: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/**
 * The target of an activity-log line as a person knows it (issue 33 item 8): the invoice or bill number the
 * line recorded, else the number the cache holds for that id, else the target as recorded (a username, a
 * period, a setting). Never a call to Xero.
 */
export function getAuditTargetLabel(entry: {
  target: string | null;
  detail: Record<string, unknown> | null;
  cachedInvoiceNumber?: string | null;
}): string | null {
  const recorded = entry.detail?.['invoiceNumber'];
  if (typeof recorded === 'string' && recorded.trim() !== '') return recorded;
  if (entry.cachedInvoiceNumber) return entry.cachedInvoiceNumber;
  return entry.target;
}

/** The query of `GET /api/admin/audit` and `GET /api/admin/audit.csv`: the activity log's filters and a line count. */
export const auditQuerySchema = z.object({
  /** An action prefix: "settings." matches every settings action. */
  action: textSchema(100).optional(),
  userId: idTextSchema('Invalid user ID').optional(),
  organizationId: idTextSchema('Invalid organization ID').optional(),
  /** YYYY-MM-DD, inclusive (UTC days). */
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_MAX_LIMIT).default(500),
});
export type AuditQuery = z.output<typeof auditQuerySchema>;
/** The activity log's filters, as the admin screen holds them. */
export type AuditFilters = Omit<AuditQuery, 'limit'>;

/**
 * Writes that need a person (issue 20 part 4): the ledger could not tell whether Xero applied them.
 * GET /api/admin/writes/review lists them; GET /api/admin/writes/{writeId} adds Xero's current state.
 */
export const adminReviewWriteSchema = z.object({
  id: z.number().int(),
  organizationId: z.number().int(),
  organizationName: z.string().nullable(),
  kind: z.string(),
  amountPence: z.number().int().nullable(),
  targetId: z.string().nullable(),
  username: z.string().nullable(),
  createdAt: z.string(),
  /** The activity-log line the write stands for, e.g. 'payment.create'; null when it has none. */
  summary: z.string().nullable(),
  request: z.unknown(),
  error: z.string().nullable(),
  state: z.string(),
  /** Whether an administrator can send this kind of change again from the list ("Send again"). */
  canRetry: z.boolean(),
  /** After "Send again": the new write that carried the change (its ledger id and Xero id). */
  retriedAs: z.object({ writeId: z.number().int(), xeroId: z.string().nullable() }).optional(),
});
export type AdminReviewWrite = z.infer<typeof adminReviewWriteSchema>;
export const adminReviewWritesResponseSchema = z.array(adminReviewWriteSchema);

/** What Xero says now: it has the change (with its id), it does not, or it could not be asked. */
export const xeroLookupSchema = z.discriminatedUnion('status', [
  /** `keptBy: 'ledgerlink'`: a change that never goes to Xero (pending cash), looked up in Ledgerlink's own rows. */
  z.object({
    status: z.literal('found'),
    xeroId: z.string().nullable(),
    keptBy: z.literal('ledgerlink').optional(),
  }),
  z.object({ status: z.literal('missing'), keptBy: z.literal('ledgerlink').optional() }),
  z.object({ status: z.literal('unavailable'), message: z.string() }),
]);
export type XeroLookup = z.infer<typeof xeroLookupSchema>;
export const adminReviewWriteDetailSchema = adminReviewWriteSchema.extend({ xero: xeroLookupSchema });
export type AdminReviewWriteDetail = z.infer<typeof adminReviewWriteDetailSchema>;

/** POST /api/admin/writes/{writeId}/settle: mark done (optionally with the Xero id found), cancel, or send again. */
export const adminSettleWriteRequestSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('done'), xeroId: textSchema(100).trim().optional() }).strict(),
  z.object({ action: z.literal('cancel') }).strict(),
  z.object({ action: z.literal('retry') }).strict(),
]);
export type AdminSettleWriteRequest = z.infer<typeof adminSettleWriteRequestSchema>;
export const ADMIN_CANCELLED_MESSAGE = 'cancelled by an administrator';
