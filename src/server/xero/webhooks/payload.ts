import { z } from 'zod';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Xero's timestamps in webhooks come with or without a zone (`2025-10-21T01:15:39.902`, UTC implied); an
 * ISO string either way.
 */
const eventDate = z
  .string()
  .max(40)
  .transform((value, ctx) => {
    const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
    const at = new Date(withZone);
    if (Number.isNaN(at.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'Invalid eventDateUtc' });
      return z.NEVER;
    }
    return at;
  });

/** One event of a delivery (Xero's webhooks spec, `WebhookEvent.events[]`). Case varies in Xero's own examples. */
export const xeroWebhookEventSchema = z.object({
  resourceUrl: z.string().max(500),
  resourceId: z.string().regex(GUID, 'Invalid resourceId'),
  eventDateUtc: eventDate,
  eventType: z
    .string()
    .max(40)
    .transform((v) => v.toUpperCase()),
  eventCategory: z
    .string()
    .max(40)
    .transform((v) => v.toUpperCase()),
  tenantId: z.string().regex(GUID, 'Invalid tenantId'),
  tenantType: z
    .string()
    .max(40)
    .transform((v) => v.toUpperCase()),
});

/**
 * A delivery: events, the sequence numbers of its first and last event, and random entropy. The
 * intent-to-receive check sends the same shape with no events and sequences 0.
 */
export const xeroWebhookPayloadSchema = z.object({
  events: z.array(xeroWebhookEventSchema).max(1000),
  firstEventSequence: z.number().int().min(0),
  lastEventSequence: z.number().int().min(0),
  entropy: z.string().max(200),
});
export type XeroWebhookPayload = z.infer<typeof xeroWebhookPayloadSchema>;
export type XeroWebhookEvent = z.infer<typeof xeroWebhookEventSchema>;
