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
  ADMIN_CANCELLED_MESSAGE,
  adminReviewWriteDetailSchema,
  adminReviewWriteSchema,
  adminReviewWritesResponseSchema,
  adminSettleWriteRequestSchema,
} from '../../../shared/admin';
import { idTextSchema } from '../../../shared/input';
import { AppError } from '../../lib/app-error';
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../audit/audit';
import { requireAdmin } from '../auth/guards';
import type { WriteLedger, WriteAudit, WriteRow } from '../../xero/write-ledger';
import type { AdminService } from './admin.service';

const idParam = (name: string) => z.object({ [name]: idTextSchema() });

const ALREADY_SETTLED_MESSAGE = 'This write was already settled. Refresh the list.';

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
  deps: { service: AdminService; ledger: WriteLedger },
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
      return rows.map((r) => ({ ...r, at: r.at.toISOString(), detail: r.detail ?? null }));
    },
  );

  app.get('/api/admin/audit.csv', { schema: { querystring: auditQuerySchema } }, async (request, reply) => {
    requireAdmin(request);
    const rows = await service.listAudit(request.query, AUDIT_MAX_LIMIT);
    const header = [
      'When (UTC)',
      'User',
      'Organization ID',
      'Action',
      'Target',
      'Result',
      'Detail',
      'IP address',
    ];
    const lines = [header.map(csvCell).join(',')];
    for (const r of rows) {
      lines.push(
        [
          r.at.toISOString(),
          r.username ?? r.userId,
          r.organizationId,
          r.action,
          r.target,
          r.result,
          r.detail,
          r.ip,
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
  const reviewView = (write: WriteRow, tenantName: string | null) => ({
    id: write.id,
    organizationId: write.organizationId,
    organizationName: tenantName,
    kind: write.kind,
    amountPence: write.amountPence,
    targetId: write.targetId,
    username: (write.audit as WriteAudit | null)?.username ?? null,
    createdAt: write.createdAt.toISOString(),
    summary: (write.audit as WriteAudit | null)?.action ?? null,
    request: write.request ?? null,
    error: write.error,
    state: write.state,
    canRetry: deps.ledger.canRetry(write.kind),
  });

  /** The write while it awaits review; once settled, a look is a 404 and a second settle a 409. */
  async function findReviewRow(writeId: number, settledIs: 'NOT_FOUND' | 'CONFLICT') {
    const row = (await deps.ledger.listNeedsReview()).find((r) => r.write.id === writeId);
    if (row) return row;
    const exists = await deps.ledger.findById(writeId);
    if (!exists) throw new AppError('NOT_FOUND', `Write with ID ${writeId} not found`);
    throw new AppError(settledIs, ALREADY_SETTLED_MESSAGE);
  }

  app.get(
    '/api/admin/writes/review',
    { schema: { response: { 200: adminReviewWritesResponseSchema } } },
    async (request) => {
      requireAdmin(request);
      return (await deps.ledger.listNeedsReview()).map((r) => reviewView(r.write, r.tenantName));
    },
  );

  app.get(
    '/api/admin/writes/:writeId',
    { schema: { params: idParam('writeId'), response: { 200: adminReviewWriteDetailSchema } } },
    async (request) => {
      requireAdmin(request);
      const { write, tenantId, tenantName } = await findReviewRow(
        Number((request.params as { writeId: number }).writeId),
        'NOT_FOUND',
      );
      return { ...reviewView(write, tenantName), xero: await deps.ledger.peekInXero(write, tenantId) };
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
      const writeId = Number((request.params as { writeId: number }).writeId);
      const { tenantName, tenantId } = await findReviewRow(writeId, 'CONFLICT');
      const body = request.body;
      if (body.action === 'retry') {
        const retried = await deps.ledger.retryReview(writeId, tenantId, {
          userId: actor.id,
          username: actor.username,
          ip: request.ip,
        });
        if (!retried) throw new AppError('CONFLICT', ALREADY_SETTLED_MESSAGE);
        return { ...reviewView(retried.after, tenantName), retriedAs: retried.retried };
      }
      const settled = await deps.ledger.settleReview(
        writeId,
        body.action === 'done'
          ? { state: 'confirmed', xeroId: body.xeroId ? body.xeroId : null }
          : { state: 'failed', error: ADMIN_CANCELLED_MESSAGE },
        { userId: actor.id, username: actor.username, ip: request.ip },
      );
      if (!settled) throw new AppError('CONFLICT', ALREADY_SETTLED_MESSAGE);
      return reviewView(settled.after, tenantName);
    },
  );
}
