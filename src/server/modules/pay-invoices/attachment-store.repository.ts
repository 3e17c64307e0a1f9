import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  attachmentBlobs,
  attachmentFiles,
  attachmentLists,
  type StoredAttachmentListItem,
} from '../../db/schema/index';

export type AttachmentListRow = typeof attachmentLists.$inferSelect;
export type { StoredAttachmentListItem };

/** A stored file as one organisation reaches it: its mapping and the blob's bytes. */
export interface StoredFile {
  sha256: string;
  body: Buffer;
  mimeType: string;
  fileName: string;
}

/**
 * Drizzle queries of the attachment store (attachment-store.ts). Lists and mappings are always filtered by the
 * organisation; blobs are shared content, reached only through a mapping.
 */
export function createAttachmentStoreRepository(db: Db) {
  return {
    async findList(organizationId: number, invoiceId: string): Promise<AttachmentListRow | null> {
      const [row] = await db
        .select()
        .from(attachmentLists)
        .where(
          and(
            eq(attachmentLists.organizationId, organizationId),
            eq(attachmentLists.invoiceId, invoiceId.toLowerCase()),
          ),
        );
      return row ?? null;
    },

    async saveList(
      organizationId: number,
      invoiceId: string,
      invoiceUpdatedUtc: Date | null,
      attachments: StoredAttachmentListItem[],
      fetchedAt: Date,
    ): Promise<void> {
      await db
        .insert(attachmentLists)
        .values({
          organizationId,
          invoiceId: invoiceId.toLowerCase(),
          invoiceUpdatedUtc,
          fetchedAt,
          attachments,
        })
        .onConflictDoUpdate({
          target: [attachmentLists.organizationId, attachmentLists.invoiceId],
          set: { invoiceUpdatedUtc, fetchedAt, attachments },
        });
    },

    async forgetList(organizationId: number, invoiceId: string): Promise<void> {
      await db
        .delete(attachmentLists)
        .where(
          and(
            eq(attachmentLists.organizationId, organizationId),
            eq(attachmentLists.invoiceId, invoiceId.toLowerCase()),
          ),
        );
    },

    /** The organisation's stored file for this attachment at this length, marked as used now. */
    async findFile(
      organizationId: number,
      attachmentId: string,
      contentLength: number,
    ): Promise<StoredFile | null> {
      const [mapping] = await db
        .select({
          sha256: attachmentFiles.sha256,
          mimeType: attachmentFiles.mimeType,
          fileName: attachmentFiles.fileName,
        })
        .from(attachmentFiles)
        .where(
          and(
            eq(attachmentFiles.organizationId, organizationId),
            eq(attachmentFiles.attachmentId, attachmentId.toLowerCase()),
            eq(attachmentFiles.contentLength, contentLength),
          ),
        );
      if (!mapping) return null;
      // Read and touch in one statement: the least recently used go first when the store is over its budget.
      const [blob] = await db
        .update(attachmentBlobs)
        .set({ lastUsedAt: sql`clock_timestamp()` })
        .where(eq(attachmentBlobs.sha256, mapping.sha256))
        .returning({ content: attachmentBlobs.content });
      if (!blob) return null;
      return { ...mapping, body: blob.content };
    },

    /** Keeps the bytes (once per content) and the organisation's mapping to them, in one transaction. */
    async saveFile(file: {
      organizationId: number;
      attachmentId: string;
      contentLength: number;
      sha256: string;
      body: Buffer;
      mimeType: string;
      fileName: string;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .insert(attachmentBlobs)
          .values({
            sha256: file.sha256,
            content: file.body,
            size: file.body.length,
            lastUsedAt: sql`clock_timestamp()`,
          })
          .onConflictDoUpdate({
            target: attachmentBlobs.sha256,
            set: { lastUsedAt: sql`clock_timestamp()` },
          });
        const mapping = {
          sha256: file.sha256,
          mimeType: file.mimeType,
          fileName: file.fileName,
        };
        await tx
          .insert(attachmentFiles)
          .values({
            organizationId: file.organizationId,
            attachmentId: file.attachmentId.toLowerCase(),
            contentLength: file.contentLength,
            ...mapping,
          })
          .onConflictDoUpdate({
            target: [
              attachmentFiles.organizationId,
              attachmentFiles.attachmentId,
              attachmentFiles.contentLength,
            ],
            set: mapping,
          });
      });
    },

    /**
     * Removes the least recently used blobs (their mappings go with them, on delete cascade) until what is left
     * fits in `maxBytes`: the newest blobs are kept while their running total fits. Returns how many went.
     */
    async evictBeyond(maxBytes: number): Promise<number> {
      const ranked = db
        .select({
          sha256: attachmentBlobs.sha256,
          running:
            sql<number>`sum(${attachmentBlobs.size}) over (order by ${attachmentBlobs.lastUsedAt} desc, ${attachmentBlobs.sha256})`.as(
              'running',
            ),
        })
        .from(attachmentBlobs)
        .as('ranked');
      const removed = await db
        .delete(attachmentBlobs)
        .where(
          inArray(
            attachmentBlobs.sha256,
            db.select({ sha256: ranked.sha256 }).from(ranked).where(gt(ranked.running, maxBytes)),
          ),
        )
        .returning({ sha256: attachmentBlobs.sha256 });
      return removed.length;
    },

    /** The stored blobs, most recently used first (tests and operations). */
    async listBlobs(): Promise<Array<{ sha256: string; size: number; lastUsedAt: Date }>> {
      return db
        .select({
          sha256: attachmentBlobs.sha256,
          size: attachmentBlobs.size,
          lastUsedAt: attachmentBlobs.lastUsedAt,
        })
        .from(attachmentBlobs)
        .orderBy(desc(attachmentBlobs.lastUsedAt));
    },
  };
}
export type AttachmentStoreRepository = ReturnType<typeof createAttachmentStoreRepository>;
