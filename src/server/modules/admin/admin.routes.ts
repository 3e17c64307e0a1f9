import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  adminOrganizationSchema,
  adminOrganizationsResponseSchema,
  adminUnlockResponseSchema,
  adminSetAdminRequestSchema,
  adminUserPatchSchema,
  adminUserSchema,
  adminUsersResponseSchema,
  AUDIT_MAX_LIMIT,
  auditEntrySchema,
  auditQuerySchema,
  featureTogglePatchSchema,
  adminReviewWriteDetailSchema,
  adminReviewWriteSchema,
  adminReviewWritesResponseSchema,
  adminSettleWriteRequestSchema,
} from '../../../shared/admin';
import { idTextSchema } from '../../../shared/input';
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../audit/audit';
import { requireAdmin } from '../auth/guards';
import type { AdminService } from './admin.service';
import type { WriteReviewService } from './write-review.service';

const idParam = (name: string) => z.object({ [name]: idTextSchema() });

function csvCell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  // Quote everything; neutralise spreadsheet formulas (CSV injection).
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** /api/admin/* of docs/product/shell.md §7: refused (403) to anyone who is not an administrator. */
export function registerAdminRoutes(
  root: FastifyInstance,
  deps: { service: AdminService; review: WriteReviewService },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { service } = deps;
  /** The administrator making a change, as the activity log names them. */
  const actorOf = (request: FastifyRequest): AuditActor => {
    const admin = requireAdmin(request);
    return { userId: admin.id, username: admin.username, ip: request.ip };
  };

  app.get(
    '/api/admin/organizations',
    { schema: { response: { 200: adminOrganizationsResponseSchema } } },
    async (request) => {
      requireAdmin(request);
      return service.listOrganizations();
    },
  );

  app.patch(
    '/api/admin/organizations/:orgId/features',
    {
      schema: {
        params: idParam('orgId'),
        body: featureTogglePatchSchema,
        response: { 200: adminOrganizationSchema },
      },
    },
    async (request) =>
      service.updateFeatures(
        actorOf(request),
        Number((request.params as { orgId: number }).orgId),
        request.body,
      ),
  );

  app.get(
    '/api/admin/users',
    { schema: { response: { 200: adminUsersResponseSchema } } },
    async (request) => {
      requireAdmin(request);
      return service.listUsers();
    },
  );

  // Lifts a sign-in lock (issue 16): the account's recent failed attempts are forgotten, from every address.
  app.post(
    '/api/admin/users/:userId/unlock',
    { schema: { params: idParam('userId'), response: { 200: adminUnlockResponseSchema } } },
    async (request) => {
      await service.unlockUser(actorOf(request), Number((request.params as { userId: number }).userId));
      return { ok: true as const };
    },
  );

  app.patch(
    '/api/admin/users/:userId',
    { schema: { params: idParam('userId'), body: adminUserPatchSchema, response: { 200: adminUserSchema } } },
    async (request) => {
      const body = request.body;
      const patch = {
        ...(body.username !== undefined ? { username: body.username } : {}),
        ...(body.email !== undefined ? { email: body.email ? body.email : null } : {}),
        ...(body.isAdmin !== undefined ? { isAdmin: body.isAdmin } : {}),
      };
      return service.changeUser(
        actorOf(request),
        Number((request.params as { userId: number }).userId),
        patch,
      );
    },
  );

  app.patch(
    '/api/admin/users/:userId/admin',
    {
      schema: {
        params: idParam('userId'),
        body: adminSetAdminRequestSchema,
        response: { 200: adminUserSchema },
      },
    },
    async (request) =>
      service.changeUser(actorOf(request), Number((request.params as { userId: number }).userId), {
        isAdmin: request.body.isAdmin,
      }),
  );

  app.get(
    '/api/admin/audit',
    { schema: { querystring: auditQuerySchema, response: { 200: z.array(auditEntrySchema) } } },
    async (request) => {
      requireAdmin(request);
      const rows = await service.listAudit(request.query, request.query.limit);
      return rows.map(({ cachedInvoiceNumber: _cached, ...r }) => ({
        ...r,
        at: r.at.toISOString(),
        detail: r.detail ?? null,
      }));
    },
  );

  app.get('/api/admin/audit.csv', { schema: { querystring: auditQuerySchema } }, async (request, reply) => {
    requireAdmin(request);
    const rows = await service.listAudit(request.query, AUDIT_MAX_LIMIT);
    // What happened in words first (issue 45 item 3); the raw columns as recorded at the end.
    const header = [
      'When (UTC)',
      'User',
      'Organization',
      'What happened',
      'Result',
      'Action',
      'Target',
      'Detail',
      'IP address',
      'Organization ID',
      'Target ID',
    ];
    const lines = [header.map(csvCell).join(',')];
    for (const r of rows) {
      lines.push(
        [
          r.at.toISOString(),
          r.username ?? r.userId,
          r.organizationName ?? r.organizationId,
          r.description,
          r.result,
          r.action,
          r.targetLabel,
          r.detail,
          r.ip,
          r.organizationId,
          r.target,
        ]
          .map(csvCell)
          .join(','),
      );
    }
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="ledgerlink-activity.csv"')
      .send(`${lines.join('\r\n')}\r\n`);
  });

  // Writes that need a person (issue 20 part 4): what Ledgerlink knows, what Xero says now, and settling them.
  app.get(
    '/api/admin/writes/review',
    { schema: { response: { 200: adminReviewWritesResponseSchema } } },
    async (request) => {
      requireAdmin(request);
      return deps.review.listForReview();
    },
  );

  app.get(
    '/api/admin/writes/:writeId',
    { schema: { params: idParam('writeId'), response: { 200: adminReviewWriteDetailSchema } } },
    async (request) => {
      requireAdmin(request);
      return deps.review.getForReview(Number((request.params as { writeId: number }).writeId));
    },
  );

  app.post(
    '/api/admin/writes/:writeId/settle',
    {
      schema: {
        params: idParam('writeId'),
        body: adminSettleWriteRequestSchema,
        response: { 200: adminReviewWriteSchema },
      },
    },
    async (request) => {
      const actor = requireAdmin(request);
      return deps.review.settle(Number((request.params as { writeId: number }).writeId), request.body, {
        userId: actor.id,
        username: actor.username,
        ip: request.ip,
      });
    },
  );
}
