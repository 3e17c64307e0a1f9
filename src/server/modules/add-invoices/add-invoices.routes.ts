import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  draftInvoiceCreateRequestSchema,
  draftInvoiceCreateResponseSchema,
  draftInvoiceListResponseSchema,
  draftInvoiceUpdateRequestSchema,
  draftInvoiceUpdateResponseSchema,
  newInvoiceDefaultsSchema,
  unfinishedDraftActionsSchema,
} from '../../../shared/add-invoices';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { readRedoConfirmed } from '../../lib/redo-warning';
import { refreshFlagSchema } from '../../../shared/input';
import { contextOf } from '../organizations/tenancy';
import { createActionKey, type AddInvoicesService } from './add-invoices.service';

/** The browser's key for one user action (kept across that action's retries), or a fresh one. */
function readActionKey(request: FastifyRequest): string {
  return readIdempotencyKey(request) ?? createActionKey();
}

/** Every route here works on one organisation, with add-invoices switched on (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'add-invoices' } as const;

/** The add-invoices endpoints (issue #8), given their service (wired in src/server/wiring.ts). */
export function registerAddInvoicesRoutes(
  root: FastifyInstance,
  { service }: { service: AddInvoicesService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/xero/draft-invoices',
    {
      config: TENANT,
      schema: {
        querystring: z.object({
          refresh: refreshFlagSchema,
          // Read by resolveTenant: an organisation the request names must be one of the user's.
          organizationId: z.string().max(20).optional(),
          org: z.string().max(20).optional(),
        }),
        response: { 200: draftInvoiceListResponseSchema },
      },
    },
    async (request) => {
      return service.listDrafts(contextOf(request), { refresh: request.query.refresh });
    },
  );

  app.get(
    '/api/xero/draft-invoices/defaults',
    {
      config: TENANT,
      schema: {
        querystring: z.object({
          organizationId: z.string().max(20).optional(),
          org: z.string().max(20).optional(),
        }),
        response: { 200: newInvoiceDefaultsSchema },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      return service.findNewInvoiceDefaults(ctx);
    },
  );

  app.get(
    '/api/xero/draft-invoices/unfinished',
    {
      config: TENANT,
      schema: {
        querystring: z.object({
          organizationId: z.string().max(20).optional(),
          org: z.string().max(20).optional(),
        }),
        response: { 200: unfinishedDraftActionsSchema },
      },
    },
    async (request) => service.listUnfinished(contextOf(request)),
  );

  app.post(
    '/api/xero/draft-invoices/update',
    {
      config: TENANT,
      schema: { body: draftInvoiceUpdateRequestSchema, response: { 200: draftInvoiceUpdateResponseSchema } },
    },
    async (request) => {
      const ctx = contextOf(request);
      const actionKey = readActionKey(request);
      return service.updateDrafts(ctx, request.body.invoices, actionKey);
    },
  );

  app.post(
    '/api/xero/draft-invoices/create',
    {
      config: TENANT,
      schema: { body: draftInvoiceCreateRequestSchema, response: { 200: draftInvoiceCreateResponseSchema } },
    },
    async (request) => {
      const ctx = contextOf(request);
      const actionKey = readActionKey(request);
      return service.createInvoice(ctx, request.body, actionKey, readRedoConfirmed(request));
    },
  );
}
