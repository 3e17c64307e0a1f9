import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CIS_RETURN_CSV_HEADER,
  cisMonthsResponseSchema,
  cisReturnQuerySchema,
  cisSettingsRequestSchema,
  cisSettingsSchema,
  cisStatementQuerySchema,
  contactIdParamsSchema,
  markFiledRequestSchema,
  cisNilMarkSchema,
  nilMarkRequestSchema,
  orgQuerySchema,
  periodParamsSchema,
  subcontractorRefsRequestSchema,
  subcontractorRefsSchema,
  cisFilingSchema,
  type CisReturn,
} from '../../../shared/cis-returns';
import { contextOf } from '../organizations/tenancy';
import type { CisReturnsService } from './cis-returns.service';
import { renderStatementsPdf, statementFileName } from './statement-pdf';

/** A CSV cell, always quoted, with spreadsheet formulas neutralised (CSV injection). */
function csvCell(value: string | number | null): string {
  const text = value === null ? '' : typeof value === 'number' ? value.toFixed(2) : value;
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The return as CSV: one row per subcontractor, then the totals; the same figures as the JSON answer. */
export function toReturnCsv(ret: CisReturn): string {
  const rows = [CIS_RETURN_CSV_HEADER.map((h) => csvCell(h)).join(',')];
  for (const l of ret.lines)
    rows.push(
      [
        csvCell(l.name),
        csvCell(l.utr),
        csvCell(l.verificationNumber),
        csvCell(l.rate === null ? null : String(l.rate)),
        csvCell(l.grossAmount),
        csvCell(l.materialsAmount),
        csvCell(l.deductionAmount),
      ].join(','),
    );
  rows.push(
    [
      csvCell(ret.nil ? 'Total (nil return: no payments)' : 'Total'),
      csvCell(null),
      csvCell(null),
      csvCell(null),
      csvCell(ret.totals.grossAmount),
      csvCell(ret.totals.materialsAmount),
      csvCell(ret.totals.deductionAmount),
    ].join(','),
  );
  return `${rows.join('\r\n')}\r\n`;
}

/** Every route here works on one organisation, with cis-bills switched on (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'cis-bills' } as const;

/**
 * The CIS month-end endpoints (issue 29): organisation-scoped and behind the CIS Bills flag (`contextOf` checks
 * membership, connection and flag before anything else).
 */
export function registerCisReturnsRoutes(
  root: FastifyInstance,
  { service }: { service: CisReturnsService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/xero/cis/months',
    {
      config: TENANT,
      schema: {
        querystring: orgQuerySchema,
        response: { 200: cisMonthsResponseSchema },
      },
    },
    async (request) => service.listMonths(contextOf(request), { refresh: request.query.refresh === true }),
  );

  // JSON by default (the shape of cisReturnSchema), or the same figures as text/csv with format=csv.
  app.get(
    '/api/xero/cis/returns',
    { config: TENANT, schema: { querystring: cisReturnQuerySchema } },
    async (request, reply) => {
      const ctx = contextOf(request);
      const ret = await service.getReturn(ctx, request.query.period, request.query.refresh);
      if (request.query.format === 'csv')
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="cis-return-${ret.period}.csv"`)
          .send(toReturnCsv(ret));
      return ret;
    },
  );

  app.post(
    '/api/xero/cis/returns/:period/filing',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        body: markFiledRequestSchema.optional(),
        response: { 200: cisFilingSchema },
      },
    },
    async (request) => service.markFiled(contextOf(request), request.params.period, request.body?.filedOn),
  );

  app.delete(
    '/api/xero/cis/returns/:period/filing',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        response: { 200: z.object({ period: z.string(), filing: z.null() }) },
      },
    },
    async (request) => service.unmarkFiled(contextOf(request), request.params.period),
  );

  // A nil month dealt with without a return: HMRC told in advance, or the scheme inactive (issue 42).
  app.post(
    '/api/xero/cis/returns/:period/nil-mark',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        body: nilMarkRequestSchema,
        response: { 200: cisNilMarkSchema },
      },
    },
    async (request) => service.markNil(contextOf(request), request.params.period, request.body.kind),
  );

  app.delete(
    '/api/xero/cis/returns/:period/nil-mark',
    {
      config: TENANT,
      schema: {
        params: periodParamsSchema,
        querystring: orgQuerySchema,
        response: { 200: z.object({ period: z.string(), nilMark: z.null() }) },
      },
    },
    async (request) => service.unmarkNil(contextOf(request), request.params.period),
  );

  // Every statement of the month as one PDF (a page each).
  app.get(
    '/api/xero/cis/statements',
    { config: TENANT, schema: { querystring: cisStatementQuerySchema } },
    async (request, reply) => {
      const statements = await service.getStatements(contextOf(request), request.query.period, null);
      return reply
        .header('content-type', 'application/pdf')
        .header(
          'content-disposition',
          `attachment; filename="${statementFileName(request.query.period, null)}"`,
        )
        .send(await renderStatementsPdf(statements));
    },
  );

  app.get(
    '/api/xero/cis/statements/:contactId',
    { config: TENANT, schema: { params: contactIdParamsSchema, querystring: cisStatementQuerySchema } },
    async (request, reply) => {
      const statements = await service.getStatements(
        contextOf(request),
        request.query.period,
        request.params.contactId,
      );
      return reply
        .header('content-type', 'application/pdf')
        .header(
          'content-disposition',
          `attachment; filename="${statementFileName(request.query.period, statements[0]?.line.name ?? null)}"`,
        )
        .send(await renderStatementsPdf(statements));
    },
  );

  app.get(
    '/api/xero/cis/settings',
    { config: TENANT, schema: { querystring: orgQuerySchema, response: { 200: cisSettingsSchema } } },
    async (request) => service.getSettings(contextOf(request)),
  );

  app.put(
    '/api/xero/cis/settings',
    {
      config: TENANT,
      schema: {
        querystring: orgQuerySchema,
        body: cisSettingsRequestSchema,
        response: { 200: cisSettingsSchema },
      },
    },
    async (request) => service.updateSettings(contextOf(request), request.body),
  );

  app.put(
    '/api/xero/cis/subcontractors/:contactId',
    {
      config: TENANT,
      schema: {
        params: contactIdParamsSchema,
        querystring: orgQuerySchema,
        body: subcontractorRefsRequestSchema,
        response: { 200: subcontractorRefsSchema },
      },
    },
    async (request) => service.updateRefs(contextOf(request), request.params.contactId, request.body),
  );
}
