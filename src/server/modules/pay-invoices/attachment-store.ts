import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { PayInvoicesXero, XeroContext } from '../../xero/xero-port';
import type { AttachmentStoreRepository, StoredAttachmentListItem } from './attachment-store.repository';

/**
 * How long an invoice's attachment list read from Xero is reused. Xero does not always move an invoice's
 * UpdatedDateUTC when a file is attached to it (or removed), so an unchanged invoice is no proof its list is:
 * past this age the list is read again, and Refresh Invoice always reads it again.
 */
export const ATTACHMENT_LIST_MAX_AGE_MS = 10 * 60_000;

const OCTET_STREAM = 'application/octet-stream';

export type AttachmentListItem = StoredAttachmentListItem;

/** Who asks Xero, for which organisation (kept lists and files are the organisation's). */
type StoreContext = XeroContext & { organizationId: number };

/** The invoice as the cache has it: the list is reused only while its UpdatedDateUTC has not moved. */
export interface InvoiceStamp {
  invoiceId: string;
  updatedUtc: Date | null;
}

/**
 * Attachments fetched from Xero once and kept (issue 19, egress), in the database so every instance shares
 * them and they survive restarts:
 * - each invoice's attachment list (attachment_lists), reused while the cached invoice's UpdatedDateUTC is the
 *   one it was read with and it is younger than ATTACHMENT_LIST_MAX_AGE_MS;
 * - the bytes, content-addressed (attachment_blobs, by SHA-256), reached through the organisation's mapping of
 *   (attachment id, ContentLength as Xero lists it) → hash (attachment_files). The same file on two invoices is
 *   stored once. Over the budget (ATTACHMENT_STORE_MB) the least recently used blobs go, with their mappings; a
 *   file above a quarter of the budget is served and not kept; a budget of 0 keeps nothing.
 * Without a repository (unit tests with a faked port) nothing is kept: every call asks Xero.
 */
export function createAttachmentStore(deps: {
  repo: AttachmentStoreRepository | null;
  xero: PayInvoicesXero['attachments'];
  /** The size budget of the stored bytes; 0 = none kept. */
  maxBytes: number;
  log?: FastifyBaseLogger | undefined;
  now?: () => Date;
}) {
  const { repo, xero, maxBytes, log } = deps;
  const now = deps.now ?? (() => new Date());

  const sameInstant = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

  async function readFromXero(ctx: StoreContext, invoice: InvoiceStamp): Promise<AttachmentListItem[]> {
    const listed = await xero.list(ctx, invoice.invoiceId);
    const items = listed.map((a) => ({
      attachmentId: a.attachmentId,
      fileName: a.fileName,
      mimeType: a.mimeType,
      contentLength: a.contentLength ?? null,
    }));
    await repo?.saveList(ctx.organizationId, invoice.invoiceId, invoice.updatedUtc, items, now());
    return items;
  }

  return {
    /**
     * The invoice's attachments: the kept list while it is current, else Xero's (then kept). `fromXero` says
     * whether Xero was asked just now; `reread` asks it whatever is kept.
     */
    async list(
      ctx: StoreContext,
      invoice: InvoiceStamp,
      options: { reread?: boolean } = {},
    ): Promise<{ items: AttachmentListItem[]; fromXero: boolean }> {
      if (repo && !options.reread) {
        const kept = await repo.findList(ctx.organizationId, invoice.invoiceId);
        const age = kept ? now().getTime() - kept.fetchedAt.getTime() : Infinity;
        if (
          kept &&
          sameInstant(kept.invoiceUpdatedUtc, invoice.updatedUtc) &&
          age >= 0 &&
          age < ATTACHMENT_LIST_MAX_AGE_MS
        ) {
          return { items: kept.attachments, fromXero: false };
        }
      }
      return { items: await readFromXero(ctx, invoice), fromXero: true };
    },

    /** Refresh Invoice: the next look at the invoice's attachments asks Xero. */
    async forgetList(organizationId: number, invoiceId: string): Promise<void> {
      await repo?.forgetList(organizationId, invoiceId);
    },

    /**
     * The bytes of one listed attachment and the MIME type to serve them as (the listed one, or the one Xero
     * sends with the file when the list says only octet-stream): kept bytes when this organisation has them for
     * this id and length, else downloaded from Xero once and kept.
     */
    async content(
      ctx: StoreContext,
      invoiceId: string,
      item: AttachmentListItem,
    ): Promise<{ body: Buffer; mimeType: string; fromStore: boolean }> {
      const listed = item.mimeType || OCTET_STREAM;
      const length = item.contentLength;
      // Kept bytes are found by the length Xero lists: without one (or without a budget) nothing is kept.
      const store = repo && maxBytes > 0 && length !== null && length >= 0 ? { repo, length } : null;
      if (store) {
        const kept = await store.repo.findFile(ctx.organizationId, item.attachmentId, store.length);
        if (kept) {
          const mimeType = listed !== OCTET_STREAM ? listed.toLowerCase() : kept.mimeType;
          return { body: kept.body, mimeType, fromStore: true };
        }
      }
      const { body, contentType } = await xero.get(ctx, invoiceId, item.attachmentId);
      const sent = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      const mimeType = listed !== OCTET_STREAM ? listed.toLowerCase() : sent || listed;
      // Kept only when the bytes are the length Xero lists (else the list is older than the file) and small
      // enough for the budget.
      if (store && body.length === store.length && body.length <= maxBytes / 4) {
        const sha256 = crypto.createHash('sha256').update(body).digest('hex');
        try {
          await store.repo.saveFile({
            organizationId: ctx.organizationId,
            attachmentId: item.attachmentId,
            contentLength: store.length,
            sha256,
            body,
            mimeType,
            fileName: item.fileName,
          });
          await store.repo.evictBeyond(maxBytes);
        } catch (error) {
          // Keeping is an optimisation: the file is served all the same, and downloaded again next time.
          log?.warn({ err: error }, 'keeping an attachment failed');
        }
      }
      return { body, mimeType, fromStore: false };
    },
  };
}
export type AttachmentStore = ReturnType<typeof createAttachmentStore>;
