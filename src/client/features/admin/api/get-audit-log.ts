import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { AUDIT_MAX_LIMIT, auditEntrySchema, type AuditEntry, type AuditFilters } from '@/shared/admin';
import { api } from '@/client/lib/api-client';
import { adminKeys } from './query-keys';

/** Lines shown at first, and added by each "Show more"; the CSV export carries up to AUDIT_MAX_LIMIT. */
export const AUDIT_PAGE_SIZE = 50;

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
  return api.get(`/api/admin/audit${toQuery(filters, Math.min(limit, AUDIT_MAX_LIMIT))}`, {
    schema: z.array(auditEntrySchema),
  });
}

/** The CSV download of the same filters (`GET /api/admin/audit.csv`). */
export function getAuditCsvHref(filters: AuditFilters): string {
  return `/api/admin/audit.csv${toQuery(filters)}`;
}

export const auditLogQueryOptions = (filters: AuditFilters, limit: number) =>
  queryOptions({
    queryKey: adminKeys.audit({ ...filters, limit }),
    queryFn: () => getAuditLog(filters, limit),
  });

export function useAuditLog(filters: AuditFilters, limit: number, isAdmin: boolean) {
  return useQuery({
    ...auditLogQueryOptions(filters, limit),
    enabled: isAdmin,
    placeholderData: keepPreviousData,
  });
}
