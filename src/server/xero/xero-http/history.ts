import { z } from 'zod';
import { AppError } from '../../lib/app-error';
import { toDateOrNull } from '../sync/mappers';
import type { XeroContext } from '../xero-port';
import type { XeroHttp } from './http';

/** `GET /Invoices/{id}/History` (developer.xero.com/documentation/api/accounting/historyandnotes). */
const historyEnvelope = z.object({
  HistoryRecords: z.array(
    z.object({
      Changes: z.string().nullish(),
      DateUTC: z.string().nullish(),
      Details: z.string().nullish(),
    }),
  ),
});

/**
 * When Xero created an invoice or a bill: its history's "Created" record (Xero's invoices carry no creation date
 * of their own, only UpdatedDateUTC). Null when Xero has no such invoice or no such record. One call; made only
 * for the redo warning (issue 44), which names what Xero already has.
 */
export async function readInvoiceCreatedAt(
  http: XeroHttp,
  ctx: XeroContext,
  invoiceId: string,
): Promise<Date | null> {
  try {
    const { data } = await http.send(ctx.userId, ctx.tenantId, {
      method: 'GET',
      path: `/api.xro/2.0/Invoices/${encodeURIComponent(invoiceId)}/History`,
      schema: historyEnvelope,
    });
    const created = data.HistoryRecords.filter((r) => /^created/i.test(r.Changes ?? ''))
      .map((r) => toDateOrNull(r.DateUTC))
      .filter((d): d is Date => d !== null)
      .sort((a, b) => a.getTime() - b.getTime())[0];
    return created ?? null;
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}
