/**
 * How the Pay Invoices screen behaves, beyond its texts (docs/product/features.md §4, §9): the success
 * banner's timing, the attachment zoom, and the window event that raises the out-of-sync flag. Only the
 * browser uses them.
 */
import { z } from 'zod';

/**
 * Success banner display time and exit animation, ms (docs/product/features.md §4 "Success banner for 1.5 s
 * (exit animation 0.5 s)").
 */
export const SUCCESS_BANNER_MS = 1500;
export const SUCCESS_BANNER_EXIT_MS = 500;

/**
 * Attachment image zoom (docs/product/features.md §4, §9): min 0.5, max 3, default 3; button step 0.25, wheel
 * step 0.1.
 */
export const ATTACHMENT_ZOOM = { min: 0.5, max: 3, initial: 3, buttonStep: 0.25, wheelStep: 0.1 } as const;

/**
 * Apply a zoom step and keep the result between 0.5 and 3 (docs/product/features.md §4), rounded to 2
 * decimals so repeated 0.1 wheel steps do not drift.
 */
export function stepAttachmentZoom(current: number, delta: number): number {
  const next = Math.round((current + delta) * 100) / 100;
  return Math.min(ATTACHMENT_ZOOM.max, Math.max(ATTACHMENT_ZOOM.min, next));
}

/** Name of the window event that raises the out-of-sync flag (docs/product/features.md §4). */
export const PAYMENT_ERROR_EVENT = 'xero-payment-error';

/**
 * Detail of the `xero-payment-error` event (docs/product/features.md §4 "carrying needsRefresh and
 * invoiceId").
 */
export const paymentErrorEventDetailSchema = z.object({
  needsRefresh: z.boolean(),
  invoiceId: z.string().nullish(),
});
export type PaymentErrorEventDetail = z.infer<typeof paymentErrorEventDetailSchema>;
