import { getUkToday } from '../../../shared/dates';
import { fromPence } from '../../../shared/money';
import { paymentsKnown } from '../../../shared/invoice-payments';
import {
  PLACEHOLDER_ATTACHMENT_ID,
  type AttachmentListResponse,
  type BankAccountsResponse,
  type ForceRefreshResponse,
  type Invoice,
  type InvoiceRefreshResult,
  type InvoiceSyncStatus,
} from '../../../shared/pay-invoices';
import { AppError } from '../../lib/app-error';
import { JsonText, type CachedBody } from '../../lib/body-cache';
import type { InvoiceView } from '../../xero/sync/sync.service';
import type { CachedPayment } from '../../xero/sync/mappers';
import { createAttachmentStore, type AttachmentListItem } from './attachment-store';
import type { PayContext, PayInvoicesCore, PayInvoicesDeps } from './pay-invoices.context';
import type { CachedAccount } from '../../xero/cache/cache.repository';
import type { InvoiceListRow, InvoiceRow } from './pay-invoices.repository';

/**
 * Pay Invoices' reads (docs/product/features.md §2–§4; docs/architecture.md §4): the outstanding invoices from the
 * cache, one invoice refreshed, its attachments streamed through the server, and the bank accounts.
 */

const SALES_OPEN: InvoiceView = { key: 'sales-open' };

/** Attachment types a browser may show inline from our origin; anything else is downloaded, never rendered. */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'application/pdf',
  'text/plain',
]);

export interface AttachmentContent {
  body: Buffer;
  mimeType: string;
  fileName: string;
  inline: boolean;
}

/** What the list shows for an invoice with files: the screen fetches them (docs/product/features.md §3). */
const PLACEHOLDER_ATTACHMENTS = [
  { attachmentId: PLACEHOLDER_ATTACHMENT_ID, name: '', mimeType: '', url: '' },
];
const PLACEHOLDER_ATTACHMENTS_JSON = JSON.stringify(PLACEHOLDER_ATTACHMENTS);

/**
 * One invoice as the screen gets it. The list's answer is the same mapping written by the database
 * (repository.listOutstandingJson); pay-invoices.list-json.test.ts keeps the two equal byte for byte.
 */
export function toInvoiceDto(row: InvoiceListRow): Invoice {
  return {
    invoiceId: row.invoiceId,
    invoiceNumber: row.invoiceNumber ?? '',
    contactName: row.contactName ?? '',
    date: row.date ?? row.dueDate ?? getUkToday(row.syncedAt),
    dueDate: row.dueDate,
    status: describeStatus(row),
    totalAmount: fromPence(row.totalPence),
    amountDue: fromPence(row.amountDuePence),
    currency: row.currencyCode || 'GBP',
    // The list never pays for attachment look-ups: a placeholder tells the screen to fetch them
    // (docs/product/features.md §3).
    attachments: row.hasAttachments ? PLACEHOLDER_ATTACHMENTS.map((a) => ({ ...a })) : [],
  };
}

/**
 * docs/architecture.md §4: AUTHORISED, SENT (sent to the contact) or PARTIAL (something already paid); Xero's
 * word otherwise.
 */
function describeStatus(row: Pick<InvoiceRow, 'status' | 'amountPaidPence' | 'sentToContact'>): string {
  if (row.status !== 'AUTHORISED') return row.status;
  if (row.amountPaidPence > 0) return 'PARTIAL';
  return row.sentToContact ? 'SENT' : 'AUTHORISED';
}

function toPaymentsDto(row: InvoiceRow): InvoiceRefreshResult['payments'] {
  return (row.payments as CachedPayment[]).map((p) => ({
    paymentId: p.paymentId,
    date: p.date ?? row.date ?? getUkToday(),
    amount: fromPence(p.amountPence),
    reference: p.reference,
    accountId: null,
  }));
}

export function createPayInvoicesReads(deps: PayInvoicesDeps, core: PayInvoicesCore) {
  const { repo, sync, bodies, xero } = deps;
  const { now, getCurrentInvoice } = core;
  const attachments = createAttachmentStore({
    repo: deps.attachmentStore?.repo ?? null,
    maxBytes: deps.attachmentStore?.maxBytes ?? 0,
    log: deps.attachmentStore?.log,
    xero: xero.attachments,
    now,
  });

  /**
   * Per list scope, a cache version at which the view was known complete: once complete, a view becomes partial
   * again only through a forced refresh or a forgotten view, which delete rows and so move the version on.
   */
  const completeAt = new Map<string, { version: number; progress: InvoiceSyncStatus }>();
  function rememberComplete(scope: string, version: number, progress: InvoiceSyncStatus) {
    completeAt.delete(scope);
    completeAt.set(scope, { version, progress });
    if (completeAt.size > 10_000) completeAt.delete(completeAt.keys().next().value ?? '');
  }

  const listOutstanding = async (ctx: PayContext) =>
    new JsonText(await repo.listOutstandingJson(ctx.organizationId, PLACEHOLDER_ATTACHMENTS_JSON));

  /** A sales invoice of this organisation we know about (attachments are only fetched for those). */
  async function getKnownInvoice(ctx: PayContext, invoiceId: string): Promise<InvoiceRow> {
    const row = await repo.findInvoice(ctx.organizationId, invoiceId);
    if (!row || row.type !== 'ACCREC') throw new AppError('NOT_FOUND', 'Invoice not found');
    return row;
  }

  return {
    /**
     * GET /api/xero/invoices, serialised: `refresh` asks Xero what changed first; otherwise the list built at the
     * organisation's current cache version is answered as it is. A miss (first visit, or something changed)
     * syncs the view if it never was, then reads the list's columns and serialises them once.
     */
    async listInvoicesBody(
      ctx: PayContext,
      options: { refresh: boolean },
    ): Promise<{ body: CachedBody; sync: InvoiceSyncStatus }> {
      const scope = `invoices:${ctx.organizationId}:sales-open`;
      // Known complete at the version the session read: the body at that version is whole (no query).
      const known = completeAt.get(scope);
      if (!options.refresh && ctx.cacheVersion !== undefined && known?.version === ctx.cacheVersion) {
        const body = await bodies.get(scope, ctx.cacheVersion, () => listOutstanding(ctx));
        return { body, sync: known.progress };
      }
      // A first visit answers once Xero's first page is in, the rest follows in the background (issue 19). The
      // progress is read before the version and the version before the body, so an answer never says more is
      // in than its body holds: "complete" always comes with the whole list.
      let progress = await sync.ensureInvoicesInBackground(ctx, SALES_OPEN);
      if (options.refresh && progress.complete) {
        await sync.syncInvoices(ctx, SALES_OPEN);
        progress = await sync.readInvoiceProgress(ctx, SALES_OPEN);
      }
      const version = await sync.readCacheVersion(ctx.organizationId);
      if (progress.complete) rememberComplete(scope, version, progress);
      const body = await bodies.get(scope, version, () => listOutstanding(ctx));
      return { body, sync: progress };
    },

    /**
     * The list's first visit started as the page itself is asked for (issue 32): the browser asks for the list
     * only once its scripts have run, and by then Xero's first page is on its way or in. Reads nothing when
     * the list was read whole before; the list request that follows waits for the same first page.
     */
    async startInvoiceList(ctx: PayContext): Promise<void> {
      await sync.ensureInvoicesInBackground(ctx, SALES_OPEN);
    },

    /**
     * What the list holds, counted (the Today page, issue 47): how many invoices await payment and what is due on
     * them, from the rows the list is made of, with how far the list's read from Xero has got (the screen says
     * "1,000 of 5,048" until it is whole). Reads nothing from Xero.
     */
    async summarizeOutstanding(ctx: PayContext): Promise<{
      count: number;
      amountDuePence: number;
      otherCurrencies: number;
      progress: InvoiceSyncStatus;
    }> {
      const progress = await sync.readInvoiceProgress(ctx, SALES_OPEN);
      return { ...(await repo.summarizeOutstanding(ctx.organizationId)), progress };
    },

    /** The whole list read from Xero if it never was (every page; nothing when it is in the cache). */
    async readInvoiceList(ctx: PayContext): Promise<void> {
      await sync.ensureInvoices(ctx, SALES_OPEN);
    },

    /** POST /api/xero/invoices/refresh: drop the cached view and read it again from Xero. */
    async forceRefresh(ctx: PayContext): Promise<ForceRefreshResponse> {
      await sync.syncInvoices(ctx, SALES_OPEN, { full: true });
      const count = await repo.countOutstanding(ctx.organizationId);
      return { count, message: `${count} invoices loaded from Xero` };
    },

    /** One invoice, from Xero when `refresh` (unless Xero described it seconds ago), with its payments. */
    async getInvoice(
      ctx: PayContext,
      invoiceId: string,
      options: { refresh: boolean },
    ): Promise<InvoiceRefreshResult> {
      // The lists are read in summary, without payments (docs/xero-api.md §4.1): an invoice whose cached payments
      // do not add up to what Xero says was paid is read whole, once, here.
      // Xero may attach a file without moving the invoice's UpdatedDateUTC: a refresh reads its attachments again.
      if (options.refresh) await attachments.forgetList(ctx.organizationId, invoiceId);
      const cached = await repo.findInvoice(ctx.organizationId, invoiceId);
      const incomplete =
        cached !== null && !paymentsKnown(cached.payments as CachedPayment[], cached.amountPaidPence);
      const { row } = await getCurrentInvoice(ctx, invoiceId, options.refresh || incomplete, {
        fresh: !incomplete,
      });
      return {
        message: options.refresh ? 'Invoice refreshed from Xero' : 'Invoice loaded',
        invoice: toInvoiceDto(row),
        payments: toPaymentsDto(row),
      };
    },

    /** The invoice's attachments: kept while current (attachment-store.ts), else Xero's list. */
    async listAttachments(ctx: PayContext, invoiceId: string): Promise<AttachmentListResponse> {
      const invoice = await getKnownInvoice(ctx, invoiceId);
      const { items } = await attachments.list(ctx, invoice);
      return items.map((a) => {
        const mimeType = a.mimeType || 'application/octet-stream';
        return {
          attachmentId: a.attachmentId,
          name: a.fileName,
          mimeType,
          // Our own address: the browser never sees Xero's URL or a token.
          url: `/api/xero/invoices/${encodeURIComponent(invoice.invoiceId)}/attachments/${encodeURIComponent(a.attachmentId)}/content`,
        };
      });
    },

    /**
     * The bytes of one attachment of the invoice's list, typed with the MIME type Xero lists for it: kept bytes
     * when this organisation has them for the same id and ContentLength, else downloaded once and kept.
     */
    async getAttachmentContent(
      ctx: PayContext,
      invoiceId: string,
      attachmentId: string,
    ): Promise<AttachmentContent> {
      const invoice = await getKnownInvoice(ctx, invoiceId);
      const id = attachmentId.toLowerCase();
      const find = (items: AttachmentListItem[]) => items.find((a) => a.attachmentId.toLowerCase() === id);
      const listed = await attachments.list(ctx, invoice);
      // Not in a kept list: the file may be newer than the list, so Xero's list is read (once).
      const item =
        find(listed.items) ??
        (listed.fromXero ? undefined : find((await attachments.list(ctx, invoice, { reread: true })).items));
      if (!item) throw new AppError('NOT_FOUND', 'Attachment not found');
      const { body, mimeType } = await attachments.content(ctx, invoice.invoiceId, item);
      return { body, mimeType, fileName: item.fileName, inline: INLINE_TYPES.has(mimeType) };
    },

    /**
     * GET /api/xero/bank-accounts: BANK accounts, CREDITCARD → card, every other bank account → cash
     * (docs/architecture.md §4).
     */
    async listBankAccounts(ctx: PayContext, options: { refresh: boolean }): Promise<BankAccountsResponse> {
      await sync.syncAccounts(ctx, { force: options.refresh });
      const rows = await repo.listBankAccounts(ctx.organizationId);
      // Xero's API has no bank account number in the accounts cache yet: the screen shows names only.
      const toDto = (a: CachedAccount) => ({
        accountId: a.accountId,
        name: a.name,
        bankAccountNumber: a.bankAccountNumber ?? '',
      });
      return {
        creditCardAccounts: rows.filter((a) => a.bankAccountType === 'CREDITCARD').map(toDto),
        cashAccounts: rows.filter((a) => a.bankAccountType !== 'CREDITCARD').map(toDto),
      };
    },
  };
}
