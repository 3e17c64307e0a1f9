import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { needsAttachmentFetch, type Invoice } from '@/shared/pay-invoices';
import { attachmentsQueryOptions, getAttachmentContentUrl } from '../api/get-attachments';

/** The next invoice's attachments are fetched ahead, images included, so moving on shows them at once. */
export function usePrefetchAttachments(orgId: number, next: Invoice | null): void {
  const queryClient = useQueryClient();
  const nextId = next && needsAttachmentFetch(next.attachments) ? next.invoiceId : null;
  useEffect(() => {
    if (!nextId) return;
    let cancelled = false;
    queryClient
      .fetchQuery(attachmentsQueryOptions(orgId, nextId))
      .then((files) => {
        if (cancelled) return;
        for (const file of files) {
          if (file.mimeType.startsWith('image/')) new Image().src = getAttachmentContentUrl(orgId, file.url);
        }
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [nextId, orgId, queryClient]);
}
