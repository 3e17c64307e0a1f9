import { queryOptions, useQuery } from '@tanstack/react-query';
import { attachmentListResponseSchema, type AttachmentListResponse } from '@/shared/pay-invoices';
import { api, isApiError } from '@/client/lib/api-client';
import { payInvoicesKeys } from './query-keys';
import { orgUrl } from '@/client/lib/org-url';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * GET /api/xero/invoices/{invoiceId}/attachments (docs/product/features.md §7). Fails with 'Error fetching
 * attachments: {status text}' (docs/product/features.md §8).
 */
export async function getAttachments(orgId: number, invoiceId: string): Promise<AttachmentListResponse> {
  try {
    return await api.get(orgUrl(`/api/xero/invoices/${encodeURIComponent(invoiceId)}/attachments`, orgId), {
      schema: attachmentListResponseSchema,
    });
  } catch (error) {
    const statusText = isApiError(error)
      ? (REASONS[error.status] ?? error.message)
      : error instanceof Error
        ? error.message
        : 'Network error';
    throw new Error(`Error fetching attachments: ${statusText}`, { cause: error });
  }
}

/** The content address with the organisation, so the server streams the file of the organisation on screen. */
export function getAttachmentContentUrl(
  orgId: number,
  url: string,
  options: { download?: boolean } = {},
): string {
  const [path = url] = url.split('?');
  return orgUrl(path, orgId, { download: options.download ? 'true' : undefined });
}

export const attachmentsQueryOptions = (orgId: number, invoiceId: string) =>
  queryOptions({
    queryKey: payInvoicesKeys.attachments(orgId, invoiceId),
    queryFn: () => getAttachments(orgId, invoiceId),
    // Attachments rarely change while someone is paying: keep them for the session's invoices.
    staleTime: 10 * 60_000,
    gcTime: 15 * 60_000,
  });

export function useAttachments(orgId: number | null, invoiceId: string | null, enabled: boolean) {
  return useQuery({
    ...attachmentsQueryOptions(orgId ?? 0, invoiceId ?? ''),
    enabled: enabled && orgId !== null && invoiceId !== null,
  });
}
