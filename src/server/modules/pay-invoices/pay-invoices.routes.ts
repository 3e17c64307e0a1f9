import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  attachmentListResponseSchema,
  bankAccountsResponseSchema,
  forceRefreshResponseSchema,
  invoiceListResponseSchema,
  invoiceSyncStatusSchema,
  INVOICES_SYNC_HEADER,
  invoiceRefreshRequestSchema,
  invoiceRefreshResultSchema,
  paymentRequestSchema,
  paymentResultSchema,
  paymentUndoResultSchema,
} from '../../../shared/pay-invoices';
import { AppError } from '../../lib/app-error';
import { readRedoConfirmed } from '../../lib/redo-warning';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { sendCachedBody } from '../../lib/body-cache';
import { isXeroId, refreshFlagSchema, xeroIdSchema as guid } from '../../../shared/input';
import { contextOf } from '../organizations/tenancy';
import type { PayInvoicesService } from './pay-invoices.service';

/** `?refresh=true`; `org`/`organizationId` pass through for the tenancy hook. */
const refreshQuery = z.looseObject({ refresh: refreshFlagSchema });

/** Every route here works on one organisation, with pay-invoices switched on (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'pay-invoices' } as const;

/**
 * The pay-invoices endpoints (issue #7; docs/product/features.md §7 Pay Invoices rows,
 * docs/architecture.md §4), given their service (wired in src/server/wiring.ts).
 */
export function registerPayInvoicesRoutes(
  root: FastifyInstance,
  { service }: { service: PayInvoicesService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // The list is served from its serialised body while the organisation's invoice cache is unchanged (the
  // schema documents it; the tests parse answers with it). How complete it is goes in a header (issue 19).
  app.get(
    '/api/xero/invoices',
    {
      config: TENANT,
      schema: {
        description: `The outstanding sales invoices. A first visit is answered once Xero's first page is in and the rest is read in the background; the \`${INVOICES_SYNC_HEADER}\` header says how far: JSON \`{"complete": boolean, "fetched": number, "total": number | null}\`.`,
        querystring: refreshQuery,
        response: { 200: invoiceListResponseSchema },
      },
    },
    async (request, reply) => {
      const { body, sync } = await service.listInvoicesBody(contextOf(request), {
        refresh: request.query.refresh,
      });
      reply.header(INVOICES_SYNC_HEADER, JSON.stringify(invoiceSyncStatusSchema.parse(sync)));
      return sendCachedBody(request, reply, body, {
        ...(sync.complete ? {} : { etagVariant: `${sync.fetched}of${sync.total ?? 'x'}` }),
      });
    },
  );

  app.post(
    '/api/xero/invoices/refresh',
    {
      config: TENANT,
      schema: {
        body: invoiceRefreshRequestSchema.nullish(),
        response: { 200: z.union([forceRefreshResponseSchema, invoiceRefreshResultSchema]) },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const invoiceId = request.body?.invoiceId;
      if (invoiceId !== undefined) {
        if (!isXeroId(invoiceId)) throw new AppError('VALIDATION_ERROR', 'Invalid invoice ID');
        return service.getInvoice(ctx, invoiceId, { refresh: true });
      }
      return service.forceRefresh(ctx);
    },
  );

  app.get(
    '/api/xero/invoices/:invoiceId',
    {
      config: TENANT,
      schema: {
        params: z.object({ invoiceId: guid('invoice') }),
        querystring: refreshQuery,
        response: { 200: invoiceRefreshResultSchema },
      },
    },
    async (request) =>
      service.getInvoice(contextOf(request), request.params.invoiceId, {
        refresh: request.query.refresh,
      }),
  );

  app.get(
    '/api/xero/invoices/:invoiceId/attachments',
    {
      config: TENANT,
      schema: {
        params: z.object({ invoiceId: guid('invoice') }),
        response: { 200: attachmentListResponseSchema },
      },
    },
    async (request) => service.listAttachments(contextOf(request), request.params.invoiceId),
  );

  app.get(
    '/api/xero/invoices/:invoiceId/attachments/:attachmentId/content',
    {
      // Opened in a tab of its own from the attachment's link: an image, PDF or text shown as a page.
      config: { ...TENANT, shownAsPage: true },
      schema: {
        params: z.object({ invoiceId: guid('invoice'), attachmentId: guid('attachment') }),
        querystring: z.looseObject({ download: z.enum(['true', '1']).optional() }),
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const file = await service.getAttachmentContent(
        ctx,
        request.params.invoiceId,
        request.params.attachmentId,
      );
      const asDownload = request.query.download !== undefined || !file.inline;
      const safeName = file.fileName.replace(/[^\w.\- ()]/g, '_') || 'attachment';
      reply
        .type(file.mimeType)
        .header(
          'content-disposition',
          `${asDownload ? 'attachment' : 'inline'}; filename="${safeName}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
        )
        .header('content-length', String(file.body.length))
        // Never kept by the browser: after sign-out the same browser must not open the invoice from its cache.
        .header('cache-control', 'no-store');
      // A file that is not a plain image, PDF or text never runs as a page of our origin.
      if (!file.inline) reply.header('content-security-policy', "sandbox; default-src 'none'");
      return reply.send(file.body);
    },
  );

  app.get(
    '/api/xero/bank-accounts',
    { config: TENANT, schema: { querystring: refreshQuery, response: { 200: bankAccountsResponseSchema } } },
    async (request) => service.listBankAccounts(contextOf(request), { refresh: request.query.refresh }),
  );

  app.post(
    '/api/xero/payments',
    { config: TENANT, schema: { body: paymentRequestSchema, response: { 200: paymentResultSchema } } },
    async (request) => {
      const key = readIdempotencyKey(request);
      return service.pay(contextOf(request), request.body, key, readRedoConfirmed(request));
    },
  );

  app.post(
    '/api/xero/payments/:paymentId/undo',
    {
      config: TENANT,
      schema: {
        params: z.object({ paymentId: guid('payment') }),
        response: { 200: paymentUndoResultSchema },
      },
    },
    async (request) => service.undoPayment(contextOf(request), request.params.paymentId),
  );
}
