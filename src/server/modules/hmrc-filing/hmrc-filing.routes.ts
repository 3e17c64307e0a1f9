import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  cisStatementQuerySchema,
  contactIdParamsSchema,
  orgQueryFields,
  orgQuerySchema,
  periodParamsSchema,
  periodSchema,
} from '../../../shared/cis-returns';
import {
  cisDeadlineSchema,
  hmrcCredentialsRequestSchema,
  hmrcRemindersRequestSchema,
  hmrcSetupSchema,
  statementEmailSchema,
  statementEmailsSchema,
  submissionRequestSchema,
  submissionSchema,
  subcontractorStatusesSchema,
  verificationPendingSchema,
  verificationRequestSchema,
  verificationSchema,
} from '../../../shared/hmrc-filing';
import { AppError } from '../../lib/app-error';
import { readIdempotencyKey } from '../../lib/idempotency-key';
import { contextOf } from '../organizations/tenancy';
import type { HmrcFilingService } from './hmrc-filing.service';

/** Filing works on one organisation, behind the CIS Bills flag as the CIS month-end is (decision 007). */
const TENANT = { tenant: 'cis-bills' } as const;

/**
 * Filing with HMRC (issue 43): set-up, verification, the return's submission, statements by email, deadlines, and
 * demo mode's outbox (the mail of the organisations the signed-in user belongs to).
 */
export function registerHmrcFilingRoutes(root: FastifyInstance, deps: { service: HmrcFilingService }): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { service } = deps;

  app.get(
    '/api/xero/cis/hmrc',
    { config: TENANT, schema: { querystring: orgQuerySchema, response: { 200: hmrcSetupSchema } } },
    async (request) => service.getSetup(contextOf(request)),
  );
  app.put(
    '/api/xero/cis/hmrc/credentials',
    {
      config: TENANT,
      schema: {
        querystring: orgQuerySchema,
        body: hmrcCredentialsRequestSchema,
        response: { 200: hmrcSetupSchema },
      },
    },
    async (request) => service.saveCredentials(contextOf(request), request.body),
  );
  app.delete(
    '/api/xero/cis/hmrc/credentials',
    { config: TENANT, schema: { querystring: orgQuerySchema, response: { 200: hmrcSetupSchema } } },
    async (request) => service.deleteCredentials(contextOf(request)),
  );
  app.put(
    '/api/xero/cis/hmrc/reminders',
    {
      config: TENANT,
      schema: {
        querystring: orgQuerySchema,
        body: hmrcRemindersRequestSchema,
        response: { 200: hmrcSetupSchema },
      },
    },
    async (request) => service.saveReminders(contextOf(request), request.body),
  );

  app.get(
    '/api/xero/cis/subcontractors/verifications',
    {
      config: TENANT,
      schema: {
        // `period`: HMRC's rule as it stood for that tax month's payments (CIS Returns), else as of today (CIS Bills).
        querystring: z.object({ ...orgQueryFields, period: periodSchema.optional() }),
        response: { 200: subcontractorStatusesSchema },
      },
    },
    async (request) => ({
      subcontractors: await service.listSubcontractors(contextOf(request), request.query.period ?? null),
    }),
  );
  app.post(
    '/api/xero/cis/subcontractors/:contactId/verification',
    {
      config: TENANT,
      schema: {
        params: contactIdParamsSchema,
        querystring: orgQuerySchema,
        body: verificationRequestSchema.optional(),
        response: { 200: verificationSchema, 202: verificationPendingSchema },
      },
    },
    async (request, reply) => {
      const answer = await service.verify(
        contextOf(request),
        request.params.contactId,
        verificationRequestSchema.parse(request.body ?? {}),
        readIdempotencyKey(request) ?? null,
      );
      return 'state' in answer ? reply.status(202).send(answer) : answer;
    },
  );
  app.get(
    '/api/xero/cis/subcontractors/:contactId/verification',
    {
      config: TENANT,
      schema: {
        params: contactIdParamsSchema,
        querystring: orgQuerySchema,
        response: { 200: verificationSchema, 202: verificationPendingSchema },
      },
    },
    async (request, reply) => {
      const answer = await service.getVerification(contextOf(request), request.params.contactId);
      return 'state' in answer ? reply.status(202).send(answer) : answer;
    },
  );

  app.post(
    '/api/xero/cis/returns/:period/submission',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        body: submissionRequestSchema,
        response: { 200: submissionSchema },
      },
    },
    async (request) =>
      service.submitReturn(
        contextOf(request),
        request.params.period,
        request.body,
        readIdempotencyKey(request) ?? null,
      ),
  );
  app.get(
    '/api/xero/cis/returns/:period/submission',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        response: { 200: submissionSchema },
      },
    },
    async (request) => service.getSubmission(contextOf(request), request.params.period),
  );

  app.post(
    '/api/xero/cis/statements/:contactId/email',
    {
      config: TENANT,
      schema: {
        params: contactIdParamsSchema,
        querystring: cisStatementQuerySchema,
        response: { 200: statementEmailSchema },
      },
    },
    async (request) =>
      service.emailStatement(contextOf(request), request.query.period, request.params.contactId),
  );
  app.get(
    '/api/xero/cis/statements/emails',
    {
      config: TENANT,
      schema: { querystring: cisStatementQuerySchema, response: { 200: statementEmailsSchema } },
    },
    async (request) => ({
      emails: await service.listStatementEmails(contextOf(request), request.query.period),
    }),
  );

  app.get(
    '/api/xero/cis/deadlines',
    { config: TENANT, schema: { querystring: orgQuerySchema, response: { 200: cisDeadlineSchema } } },
    async (request) => service.getDeadline(contextOf(request)),
  );

  // Demo mode's outbox: what Ledgerlink "sent" by email for the organisation (statements, reminders).
  const outboxMessage = z.object({
    id: z.number(),
    to: z.string(),
    from: z.string(),
    subject: z.string(),
    body: z.string(),
    attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), size: z.number() })),
    sentAt: z.string(),
  });
  const outboxId = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
  app.get(
    '/api/xero/cis/outbox',
    {
      config: TENANT,
      schema: {
        querystring: orgQuerySchema,
        response: { 200: z.object({ messages: z.array(outboxMessage) }) },
      },
    },
    async (request) => {
      const rows = await service.findOutbox([contextOf(request).organizationId]);
      return {
        messages: rows.map((r) => ({
          id: r.id,
          to: r.sentTo,
          from: r.sentFrom,
          subject: r.subject,
          body: r.body,
          attachments: r.attachments,
          sentAt: r.createdAt.toISOString(),
        })),
      };
    },
  );
  app.get(
    '/api/xero/cis/outbox/:id/attachments/:position',
    {
      config: TENANT,
      schema: {
        params: outboxId.extend({ position: z.coerce.number().int().min(0).max(100) }),
        querystring: orgQuerySchema,
      },
    },
    async (request, reply) => {
      const found = await service.findOutboxAttachment(request.params.id, request.params.position);
      if (!found || found.organizationId !== contextOf(request).organizationId)
        throw new AppError('NOT_FOUND', 'No such attachment in the outbox');
      return reply
        .header('content-type', found.contentType)
        .header('content-disposition', `inline; filename="${found.filename.replace(/["\\\r\n]/g, '')}"`)
        .send(found.content);
    },
  );
  app.get(
    '/api/xero/cis/outbox/:id/raw',
    { config: TENANT, schema: { params: outboxId, querystring: orgQuerySchema } },
    async (request, reply) => {
      const found = await service.findOutboxRaw(request.params.id);
      if (!found || found.organizationId !== contextOf(request).organizationId)
        throw new AppError('NOT_FOUND', 'No such message in the outbox');
      return reply
        .header('content-type', 'message/rfc822')
        .header('content-disposition', `attachment; filename="message-${request.params.id}.eml"`)
        .send(found.raw);
    },
  );
}
