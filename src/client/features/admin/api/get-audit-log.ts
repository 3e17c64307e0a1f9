import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/client/lib/api-client';
import { adminKeys } from './query-keys';

/** One line of the activity log (`GET /api/admin/audit`, beyond the spec). */
export const auditEntrySchema = z.object({
  id: z.number(),
  at: z.string(),
  userId: z.number().nullable(),
  username: z.string().nullable(),
  organizationId: z.number().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  result: z.enum(['success', 'failure']),
  detail: z.record(z.string(), z.unknown()).nullable(),
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export interface AuditFilters {
  /** An action prefix: "settings." matches every settings action. */
  action?: string;
  userId?: number;
  organizationId?: number;
  /** YYYY-MM-DD, inclusive (UTC days). */
  from?: string;
  to?: string;
}

/** Lines shown at first, and added by each "Show more"; the CSV export carries up to 5,000. */
export const AUDIT_PAGE_SIZE = 50;
export const AUDIT_MAX_LIMIT = 5000;

function toQuery(filters: AuditFilters, limit?: number): string {
  const params = new URLSearchParams();
  if (filters.action) params.set('action', filters.action);
  if (filters.userId) params.set('userId', String(filters.userId));
  if (filters.organizationId) params.set('organizationId', String(filters.organizationId));
  if (filters.from) params.set('from', filters.from);
  if (filters.to) params.set('to', filters.to);
  if (limit) params.set('limit', String(limit));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function getAuditLog(filters: AuditFilters, limit: number = AUDIT_PAGE_SIZE): Promise<AuditEntry[]> {
  return api.get(`/api/admin/audit${toQuery(filters, Math.min(limit, AUDIT_MAX_LIMIT))}`, { schema: z.array(auditEntrySchema) });
}

/** The CSV download of the same filters (`GET /api/admin/audit.csv`). */
export function getAuditCsvHref(filters: AuditFilters): string {
  return `/api/admin/audit.csv${toQuery(filters)}`;
}

export const auditLogQueryOptions = (filters: AuditFilters, limit: number) =>
  queryOptions({ queryKey: adminKeys.audit({ ...filters, limit }), queryFn: () => getAuditLog(filters, limit) });

export function useAuditLog(filters: AuditFilters, limit: number, isAdmin: boolean) {
  return useQuery({ ...auditLogQueryOptions(filters, limit), enabled: isAdmin, placeholderData: keepPreviousData });
}
