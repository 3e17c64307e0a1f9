import type { FastifyInstance } from 'fastify';
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
import { sendCachedBody } from '../../lib/body-cache';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { refreshFlagSchema } from '../../../shared/input';
import { contextOf } from '../organizations/tenancy';
import type { StockJournalService } from './stock-journal.service';

/** Every route here works on one organisation, with Stock Journal switched on (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'stock-journal' } as const;

/**
 * The stock-journal endpoints (issue #10; docs/product/features.md §7), given their service (wired in
 * src/server/wiring.ts).
 */
export function registerStockJournalRoutes(
  root: FastifyInstance,
  { service }: { service: StockJournalService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/xero/customers',
    {
      config: TENANT,
      schema: {
        querystring: z.object({ refresh: refreshFlagSchema }),
        response: { 200: customersResponseSchema },
      },
    },
    async (request) => service.listCustomers(contextOf(request), { refresh: request.query.refresh }),
  );

  app.get(
    '/api/xero/sales',
    {
      config: TENANT,
      schema: { querystring: salesQuerySchema, response: { 200: salesResponseSchema } },
      // The answer is built by our own typed grouping, and can hold tens of thousands of invoice lines: checking
      // each against the zod schema again costs more than reading and grouping them (bench/stock-journal.ts).
      // The schema still documents the route, and the integration tests parse answers with it.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      // One customer's weeks come from the invoice cache, serialised once per cache version; every customer
      // at once is read from Xero each time.
      const cached = await service.getSalesBody(contextOf(request), request.query);
      if (cached) return sendCachedBody(request, reply, cached);
      return service.getSales(contextOf(request), request.query);
    },
  );

  app.get(
    '/api/xero/stock-journal/entries',
    { config: TENANT, schema: { response: { 200: stockJournalEntryListResponseSchema } } },
    (request) => service.listEntries(contextOf(request)),
  );

  app.post(
    '/api/xero/stock-journal',
    {
      config: TENANT,
      schema: { body: journalCreateRequestSchema, response: { 201: journalCreateResponseSchema } },
    },
    async (request, reply) => {
      const idempotencyKey = readIdempotencyKey(request);
      const result = await service.createJournal(contextOf(request), request.body, {
        idempotencyKey,
        ip: request.ip,
      });
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/api/xero/stock-journal/sync-status',
    { config: TENANT, schema: { response: { 200: syncStatusResponseSchema } } },
    (request) => service.syncStatus(contextOf(request)),
  );
}
