import { Download, ExternalLink, FileText, Paperclip, RefreshCw } from 'lucide-react';
import { useEffect, useState } from 'react';
import { needsAttachmentFetch, type Attachment, type Invoice } from '@/shared/pay-invoices';
import { Button } from '@/client/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from '@/client/components/ui/dialog';
import { Spinner } from '@/client/components/ui/spinner';
import { cn } from '@/client/lib/utils';
import { getAttachmentContentUrl, useAttachments } from '../api/get-attachments';
import { ImageViewer } from './image-viewer';

const isImage = (attachment: Pick<Attachment, 'mimeType'>) =>
  attachment.mimeType.toLowerCase().startsWith('image/');

function FileCard({ orgId, attachment }: { orgId: number; attachment: Attachment }) {
  return (
    <div className="flex flex-col items-center gap-3 rounded-lg border border-dashed border-border p-6 text-center">
      <FileText aria-hidden className="size-10 text-muted-foreground" />
      <div className="min-w-0">
        <p className="break-all text-sm font-medium">{attachment.name}</p>
        <p className="text-xs text-muted-foreground">{attachment.mimeType}</p>
      </div>
      <div className="flex flex-wrap justify-center gap-2">
        <Button variant="outline" size="sm" asChild>
          <a href={getAttachmentContentUrl(orgId, attachment.url)} target="_blank" rel="noopener noreferrer">
            <ExternalLink aria-hidden />
            View
          </a>
        </Button>
        <Button variant="outline" size="sm" asChild>
          <a
            href={getAttachmentContentUrl(orgId, attachment.url, { download: true })}
            download={attachment.name}
          >
            <Download aria-hidden />
            Download
          </a>
        </Button>
      </div>
    </div>
  );
}

/**
 * Attachments (docs/product/features.md §2, §4): fetched when the invoice carries the placeholder; a side
 * panel on wide screens and a section below the invoice under 768 px; loading, error with Retry, and empty
 * states; images with zoom, pan and an Expand dialog; View and Download for other files. Files come through
 * our server only.
 */
export function AttachmentsPanel({
  orgId,
  invoice,
  layout,
}: {
  orgId: number;
  invoice: Invoice;
  layout: 'side' | 'below';
}) {
  const mustFetch = needsAttachmentFetch(invoice.attachments);
  const query = useAttachments(orgId, invoice.invoiceId, mustFetch);
  const attachments: Attachment[] = mustFetch ? (query.data ?? []) : invoice.attachments;
  const [selected, setSelected] = useState(0);
  const [expanded, setExpanded] = useState(false);
  useEffect(() => setSelected(0), [invoice.invoiceId]);
  const current = attachments[Math.min(selected, Math.max(attachments.length - 1, 0))];

  let body;
  if (mustFetch && query.isPending) {
    body = (
      <div className="flex flex-1 flex-col items-center justify-center gap-2 py-12 text-sm text-muted-foreground">
        <Spinner className="size-6" label="Loading attachments" />
        Loading attachments...
      </div>
    );
  } else if (mustFetch && query.isError) {
    body = (
      <div role="alert" className="flex flex-1 flex-col items-center justify-center gap-3 py-10 text-center">
        <p className="text-sm text-destructive">{query.error.message}</p>
        <Button variant="outline" size="sm" onClick={() => void query.refetch()} disabled={query.isFetching}>
          <RefreshCw aria-hidden />
          Retry
        </Button>
      </div>
    );
  } else if (!current) {
    body = (
      <div className="flex flex-1 flex-col items-center justify-center gap-2 py-12 text-center text-sm text-muted-foreground">
        <Paperclip aria-hidden className="size-6" />
        No attachments for this invoice
      </div>
    );
  } else {
    const src = getAttachmentContentUrl(orgId, current.url);
    body = (
      <>
        {attachments.length > 1 ? (
          <div className="flex flex-wrap gap-1" role="tablist" aria-label="Attachments">
            {attachments.map((attachment, index) => (
              <button
                key={attachment.attachmentId}
                type="button"
                role="tab"
                aria-selected={attachment === current}
                onClick={() => setSelected(index)}
                className={cn(
                  'max-w-full truncate rounded-md border px-2 py-1 text-xs',
                  attachment === current
                    ? 'border-primary bg-accent text-accent-foreground'
                    : 'border-border hover:bg-muted',
                )}
              >
                {attachment.name}
              </button>
            ))}
          </div>
        ) : (
          <p className="truncate text-xs text-muted-foreground" title={current.name}>
            {current.name}
          </p>
        )}
        {isImage(current) ? (
          <>
            <ImageViewer
              src={src}
              name={current.name}
              onExpand={() => setExpanded(true)}
              className={layout === 'side' ? 'h-[min(70vh,640px)]' : 'h-[420px]'}
            />
            <Dialog open={expanded} onOpenChange={setExpanded}>
              <DialogContent className="flex h-[92vh] max-w-[min(96vw,1200px)] flex-col">
                <DialogHeader>
                  <DialogTitle className="truncate">{current.name}</DialogTitle>
                  <DialogDescription>
                    Invoice {invoice.invoiceNumber} · {invoice.contactName}
                  </DialogDescription>
                </DialogHeader>
                <ImageViewer src={src} name={current.name} className="min-h-0 flex-1" />
              </DialogContent>
            </Dialog>
          </>
        ) : (
          <FileCard orgId={orgId} attachment={current} />
        )}
      </>
    );
  }

  return (
    <section
      aria-labelledby="attachments-heading"
      className={cn(
        'flex min-w-0 flex-col gap-3 rounded-xl border border-border bg-card p-4 shadow-sm',
        layout === 'side' && 'md:sticky md:top-20',
      )}
    >
      <div className="flex items-center gap-2">
        <Paperclip aria-hidden className="size-4 text-muted-foreground" />
        <h3 id="attachments-heading" className="text-base font-semibold">
          Attachments
        </h3>
        {attachments.length > 0 ? (
          <span className="text-xs text-muted-foreground">({attachments.length})</span>
        ) : null}
      </div>
      {body}
    </section>
  );
}
