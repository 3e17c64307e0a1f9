import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  customersResponseSchema,
  journalCreateRequestSchema,
  journalCreateResponseSchema,
  salesQuerySchema,
  salesResponseSchema,
  stockJournalEntryListResponseSchema,
  syncStatusResponseSchema,
} from '../../../shared/stock-journal';
import { AppError } from '../../lib/app-error';
import { sendCachedBody } from '../../lib/body-cache';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { refreshFlagSchema } from '../../../shared/input';
import type { ResolveTenant, TenantContext } from '../organizations/tenancy';
import type { StockJournalService } from './stock-journal.service';

const FEATURE = 'stock-journal';

/**
 * The stock-journal endpoints (issue #10; docs/product/features.md §7), given their service (wired in
 * src/server/wiring.ts).
 */
export function registerStockJournalRoutes(
  root: FastifyInstance,
  { service, resolveTenant }: { service: StockJournalService; resolveTenant: ResolveTenant },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  // Who and which organisation come first: before the request is validated, so a stranger or a switched-off
  // feature gets 401/403, never a validation message about data they may not send.
  const tenants = new WeakMap<FastifyRequest, TenantContext>();
  const preValidation = async (request: FastifyRequest) => {
    tenants.set(request, await resolveTenant(request, FEATURE));
  };
  const tenantOf = (request: FastifyRequest): TenantContext => {
    const tenant = tenants.get(request);
    if (!tenant) throw new AppError('INTERNAL', 'Organisation not resolved');
    return tenant;
  };

  app.get(
    '/api/xero/customers',
    {
      preValidation,
      schema: {
        querystring: z.object({ refresh: refreshFlagSchema }),
        response: { 200: customersResponseSchema },
      },
    },
    async (request) => service.listCustomers(tenantOf(request), { refresh: request.query.refresh }),
  );

  app.get(
    '/api/xero/sales',
    {
      preValidation,
      schema: { querystring: salesQuerySchema, response: { 200: salesResponseSchema } },
      // The answer is built by our own typed grouping, and can hold tens of thousands of invoice lines: checking
      // each against the zod schema again costs more than reading and grouping them (bench/stock-journal.ts).
      // The schema still documents the route, and the integration tests parse answers with it.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      // One customer's weeks come from the invoice cache, serialised once per cache version; every customer
      // at once is read from Xero each time.
      const cached = await service.getSalesBody(tenantOf(request), request.query);
      if (cached) return sendCachedBody(request, reply, cached);
      return service.getSales(tenantOf(request), request.query);
    },
  );

  app.get(
    '/api/xero/stock-journal/entries',
    { preValidation, schema: { response: { 200: stockJournalEntryListResponseSchema } } },
    (request) => service.listEntries(tenantOf(request)),
  );

  app.post(
    '/api/xero/stock-journal',
    {
      preValidation,
      schema: { body: journalCreateRequestSchema, response: { 201: journalCreateResponseSchema } },
    },
    async (request, reply) => {
      const idempotencyKey = readIdempotencyKey(request);
      const result = await service.createJournal(tenantOf(request), request.body, {
        idempotencyKey,
        ip: request.ip,
      });
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/api/xero/stock-journal/sync-status',
    { preValidation, schema: { response: { 200: syncStatusResponseSchema } } },
    (request) => service.syncStatus(tenantOf(request)),
  );
}
