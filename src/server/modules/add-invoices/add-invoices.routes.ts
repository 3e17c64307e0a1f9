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
} from '../../../shared/add-invoices';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { createAddInvoicesRepository } from './add-invoices.repository';
import { createActionKey, createAddInvoicesService, type AddInvoicesContext } from './add-invoices.service';

/** The browser's key for one user action (kept across that action's retries), or a fresh one. */
function readActionKey(request: FastifyRequest): string {
  return readIdempotencyKey(request) ?? createActionKey();
}

/** The add-invoices endpoints (issue #8). Collaborators come from `app.services`, wired once in app.ts. */
export function registerAddInvoicesRoutes(root: FastifyInstance): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { db, xeroHttp, ledger, sync, audit, resolveTenant } = root.services;
  const service = createAddInvoicesService({
    repo: createAddInvoicesRepository(db),
    http: xeroHttp,
    ledger,
    sync,
    audit,
  });

  async function contextOf(request: FastifyRequest): Promise<AddInvoicesContext> {
    const tenant = await resolveTenant(request, 'add-invoices');
    return {
      organizationId: tenant.organizationId,
      tenantId: tenant.tenantId,
      userId: tenant.user.id,
      username: tenant.user.username,
      ip: request.ip,
      organization: tenant.organization,
    };
  }

  app.get(
    '/api/xero/draft-invoices',
    {
      schema: {
        querystring: z.object({
          refresh: z.enum(['true', 'false', '1', '0']).optional(),
          // Read by resolveTenant: an organisation the request names must be one of the user's.
          organizationId: z.string().max(20).optional(),
          org: z.string().max(20).optional(),
        }),
        response: { 200: draftInvoiceListResponseSchema },
      },
    },
    async (request) => {
      const ctx = await contextOf(request);
      const refresh = request.query.refresh === 'true' || request.query.refresh === '1';
      return service.listDrafts(ctx, { refresh });
    },
  );

  app.get(
    '/api/xero/draft-invoices/defaults',
    {
      schema: {
        querystring: z.object({
          organizationId: z.string().max(20).optional(),
          org: z.string().max(20).optional(),
        }),
        response: { 200: newInvoiceDefaultsSchema },
      },
    },
    async (request) => {
      const ctx = await contextOf(request);
      return service.findNewInvoiceDefaults(ctx);
    },
  );

  app.post(
    '/api/xero/draft-invoices/update',
    {
      schema: { body: draftInvoiceUpdateRequestSchema, response: { 200: draftInvoiceUpdateResponseSchema } },
    },
    async (request) => {
      const ctx = await contextOf(request);
      const actionKey = readActionKey(request);
      return service.updateDrafts(ctx, request.body.invoices, actionKey);
    },
  );

  app.post(
    '/api/xero/draft-invoices/create',
    {
      schema: { body: draftInvoiceCreateRequestSchema, response: { 200: draftInvoiceCreateResponseSchema } },
    },
    async (request) => {
      const ctx = await contextOf(request);
      const actionKey = readActionKey(request);
      return service.createInvoice(ctx, request.body, actionKey);
    },
  );
}
