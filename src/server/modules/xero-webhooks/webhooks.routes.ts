import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../../lib/app-error';
import { xeroWebhookPayloadSchema } from '../../xero/webhooks/payload';
import type { WebhookHealthService } from '../../xero/webhooks/health';
import type { WebhookProcessor } from '../../xero/webhooks/processor';
import { isXeroSignatureValid } from '../../xero/webhooks/signature';

export const WEBHOOK_PATH = '/api/xero/webhooks';
/** Xero's deliveries are a few KB; nothing larger is read. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;

/**
 * `POST /api/xero/webhooks`: Xero calls it, not a browser, so it has no session and no same-origin check (both
 * skipped for this path in app.ts and plugins/security.ts). It trusts only the signature: the raw body is
 * hashed before it is parsed, and a delivery without a valid `x-xero-signature` is answered 401 with nothing
 * stored. A valid one is stored, answered 200 with no body (Xero's rules for the answer, including the
 * intent-to-receive check), then applied (docs/decisions/018-webhooks.md).
 */
export function registerXeroWebhookRoutes(
  root: FastifyInstance,
  deps: {
    webhookKey: string | undefined;
    processor: WebhookProcessor;
    /** Keeps the stream's sequence and who got a delivery, for the fallback rule (health.ts). */
    health?: Pick<WebhookHealthService, 'recordDelivery'>;
  },
): void {
  const { webhookKey, processor, health } = deps;
  const verified = new WeakSet<FastifyRequest>();
  void root.register(async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (request, raw, done) => {
        if (!webhookKey)
          return done(
            new AppError('NOT_FOUND', 'Webhooks are not set up on this server (XERO_WEBHOOK_KEY)'),
            undefined,
          );
        const body = raw as Buffer;
        if (!isXeroSignatureValid(body, request.headers['x-xero-signature'], webhookKey)) {
          return done(new AppError('UNAUTHENTICATED', 'Invalid webhook signature'), undefined);
        }
        verified.add(request);
        try {
          done(null, JSON.parse(body.toString('utf8')) as unknown);
        } catch {
          done(new AppError('VALIDATION_ERROR', 'Request body is not valid JSON'), undefined);
        }
      },
    );

    app.post(
      WEBHOOK_PATH,
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: { body: xeroWebhookPayloadSchema, hide: true },
        // A delivery with no body (so no parser ran) or another content type is not signed as Xero signs.
        preValidation: async (request) => {
          if (!webhookKey)
            throw new AppError('NOT_FOUND', 'Webhooks are not set up on this server (XERO_WEBHOOK_KEY)');
          if (!verified.has(request)) throw new AppError('UNAUTHENTICATED', 'Invalid webhook signature');
        },
      },
      async (request, reply) => {
        await processor.store(request.body);
        await health?.recordDelivery(request.body);
        // Applied after the answer: Xero wants one within 5 seconds, and a read from Xero may take longer.
        setImmediate(() => void processor.drain());
        return reply.status(200).send();
      },
    );
  });
}
