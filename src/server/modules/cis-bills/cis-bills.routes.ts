import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  approveBillResponseSchema,
  billIdParamsSchema,
  checkCisContactsRequestSchema,
  checkCisContactsResponseSchema,
  cisBillSetupSchema,
  cisBillsListQuerySchema,
  cisContactListResponseSchema,
  createBillRequestSchema,
  createBillResponseSchema,
  createBillsRequestSchema,
  createBillsResponseSchema,
  DEFAULT_BILL_ACCOUNT_HEADER,
  deleteBillResponseSchema,
  draftBillListResponseSchema,
  updateBillRequestSchema,
  updateBillResponseSchema,
} from '../../../shared/cis-bills';
import { accountSchema } from '../../../shared/settings';
import { readRedoConfirmed } from '../../lib/redo-warning';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { contextOf } from '../organizations/tenancy';
import type { CisBillsService } from './cis-bills.service';

function readHeader(request: FastifyRequest, name: string): string | null {
  const raw = request.headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value.slice(0, 200) : null;
}

/** Every route here works on one organisation, with cis-bills switched on (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'cis-bills' } as const;

/**
 * The cis-bills endpoints (issue #9, docs/product/features.md §7), given their service (wired in
 * src/server/wiring.ts).
 */
export function registerCisBillsRoutes(
  root: FastifyInstance,
  { service }: { service: CisBillsService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/xero/cis-contacts',
    {
      config: TENANT,
      schema: { querystring: cisBillsListQuerySchema, response: { 200: cisContactListResponseSchema } },
    },
    async (request) => service.listCisContacts(contextOf(request), { refresh: request.query.refresh }),
  );

  // Beyond the spec (issue 19): the CIS settings of the subcontractors the screen shows or the user picked.
  app.post(
    '/api/xero/cis-contacts/check',
    {
      config: TENANT,
      schema: {
        body: checkCisContactsRequestSchema,
        response: { 200: checkCisContactsResponseSchema },
      },
    },
    async (request) => service.checkCisContacts(contextOf(request), request.body.contactIds),
  );

  app.get(
    '/api/xero/direct-costs-accounts',
    {
      config: TENANT,
      schema: { querystring: cisBillsListQuerySchema, response: { 200: accountSchema.array() } },
    },
    async (request) =>
      service.listDirectCostsAccounts(contextOf(request), {
        refresh: request.query.refresh,
      }),
  );

  // Beyond the spec (issue 42): the accounts that can hold CIS deductions (ordinary liability accounts).
  app.get(
    '/api/xero/cis-deduction-accounts',
    {
      config: TENANT,
      schema: { querystring: cisBillsListQuerySchema, response: { 200: accountSchema.array() } },
    },
    async (request) => service.listDeductionAccounts(contextOf(request), { refresh: request.query.refresh }),
  );

  // Beyond the spec (issue 42): where a bill's deduction and materials go, and whether the reverse charge applies.
  app.get(
    '/api/xero/cis-bill-setup',
    {
      config: TENANT,
      schema: { querystring: cisBillsListQuerySchema, response: { 200: cisBillSetupSchema } },
    },
    async (request) => service.getBillSetup(contextOf(request)),
  );

  app.get(
    '/api/xero/draft-bills',
    {
      config: TENANT,
      schema: { querystring: cisBillsListQuerySchema, response: { 200: draftBillListResponseSchema } },
    },
    async (request) =>
      service.listDraftBills(contextOf(request), {
        refresh: request.query.refresh,
        cisOnly: request.query.cisOnly === 'true',
      }),
  );

  app.post(
    '/api/xero/create-bill',
    {
      config: TENANT,
      schema: { body: createBillRequestSchema, response: { 200: createBillResponseSchema } },
    },
    async (request) =>
      service.createBill(
        contextOf(request),
        readIdempotencyKey(request),
        request.body,
        readRedoConfirmed(request),
      ),
  );

  // Beyond the spec: several bills in one request, sent to Xero as one batch (per-bill results).
  app.post(
    '/api/xero/create-bills',
    {
      config: TENANT,
      schema: { body: createBillsRequestSchema, response: { 200: createBillsResponseSchema } },
    },
    async (request) => {
      const ctx = contextOf(request);
      const key = readIdempotencyKey(request);
      const results = await service.createBills(
        ctx,
        request.body.bills.map(({ id, ...bill }) => ({
          id,
          key: key ? `${key}:${id}` : undefined,
          request: bill,
        })),
        readRedoConfirmed(request),
      );
      const created = results.filter((r) => r.ok).length;
      return { results, created, failed: results.length - created };
    },
  );

  app.patch(
    '/api/xero/update-bill/:id',
    {
      config: TENANT,
      schema: {
        params: billIdParamsSchema,
        body: updateBillRequestSchema,
        response: { 200: updateBillResponseSchema },
      },
    },
    async (request) =>
      service.updateBill(
        contextOf(request),
        request.params.id,
        request.body.amount,
        readIdempotencyKey(request),
      ),
  );

  app.post(
    '/api/xero/approve-bill/:id',
    { config: TENANT, schema: { params: billIdParamsSchema, response: { 200: approveBillResponseSchema } } },
    async (request) =>
      service.approveBill(
        contextOf(request),
        request.params.id,
        readHeader(request, DEFAULT_BILL_ACCOUNT_HEADER),
        readIdempotencyKey(request),
      ),
  );

  app.post(
    '/api/xero/delete-bill/:id',
    { config: TENANT, schema: { params: billIdParamsSchema, response: { 200: deleteBillResponseSchema } } },
    async (request) => service.deleteBill(contextOf(request), request.params.id, readIdempotencyKey(request)),
  );
}
