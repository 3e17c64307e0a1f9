import { getUkToday } from '../../../shared/dates';
import { fromPence, toPence } from '../../../shared/money';
import { paymentsKnown } from '../../../shared/invoice-payments';
import {
  checkPaymentAgainstBalance,
  getPaymentReference,
  isBalanceFullyPaid,
  PAYMENT_UNDO_WINDOW_MS,
  PLACEHOLDER_ATTACHMENT_ID,
  type AttachmentListResponse,
  type BankAccountsResponse,
  type ForceRefreshResponse,
  type Invoice,
  type InvoiceRefreshResult,
  type InvoiceSyncStatus,
  type PaymentRequest,
  type PaymentResult,
  type PaymentUndoResult,
} from '../../../shared/pay-invoices';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error';
import type { XeroSync, SyncContext, InvoiceView } from '../../xero/sync/sync.service';
import type { CachedPayment } from '../../xero/sync/mappers';
import {
  busyExtra,
  describeBusyDocument,
  hasWriteMark,
  invoiceDocument,
  withWriteMark,
  type RetryActor,
  type WriteLedger,
  type WriteOutcome,
  type WriteRow as LedgerWriteRow,
} from '../../xero/write-ledger';
import type { PayInvoicesXero, XeroContext, XeroPaymentFacts } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import { JsonText, type BodyCache, type CachedBody } from '../../lib/body-cache';
import { createAttachmentStore, type AttachmentListItem } from './attachment-store';
import type { AttachmentStoreRepository } from './attachment-store.repository';
import type {
  AccountRow,
  InvoiceBalance,
  InvoiceListRow,
  InvoiceRow,
  PayInvoicesRepository,
  WriteRow,
} from './pay-invoices.repository';

const SALES_OPEN: InvoiceView = { key: 'sales-open' };

/**
 * A cached invoice Xero itself described this recently (a sync, a refresh, or the answer to a payment) is
 * taken as current instead of asking Xero again. This is what keeps a card + cash payment at 3 Xero calls:
 * the check before the first payment reads the invoice, Xero's answer to it carries the new balance, and the
 * refresh between the two payments and the check before the second are served from that answer. A stale
 * figure cannot cause a wrong payment: Xero refuses an amount above what is outstanding anyway.
 */
export const FRESH_FROM_XERO_MS = 10_000;

/** An Undo arriving just after the client's window closes (clock drift, a slow network) is still honoured. */
const UNDO_GRACE_MS = 30_000;

/** What a second payment on an invoice hears while an earlier one is not settled yet. */
function busyMessage(invoiceNumber: string): string {
  return `A payment on invoice ${invoiceNumber} is still being confirmed by Xero. Refresh the invoice in a moment and check its balance before paying again.`;
}

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

/** Who is asking and for which organisation. */
export interface PayContext extends SyncContext {
  username: string;
  ip?: string | null;
  /** The organisation's invoice-cache version as read with the session, when it was. */
  cacheVersion?: number | undefined;
}

/** What the ledger keeps as the request of a payment (also what the finder matches in Xero). */
interface PaymentPayload {
  invoiceId: string;
  invoiceNumber: string;
  accountId: string;
  amount: number;
  date: string;
  reference: string;
  isCard: boolean;
  /** What the browser asked for, in pence (the amount sent can be a penny less, within the tolerance). */
  requestedPence: number;
}

/** What the ledger keeps as Xero's answer to a payment. */
interface StoredPayment {
  paymentId: string;
  amountDuePence: number | null;
  amountPaidPence: number | null;
  invoiceStatus: string | null;
  /** Xero's UpdatedDateUTC of the payment: the moment the balance above was Xero's (newest wins in the cache). */
  updatedUtc?: string | null;
  /**
   * A look-up found the payment DELETED in Xero (undone before a restore made the database forget both): the
   * write happened and is gone, so a resend answers it as paid then undone (issue 28).
   */
  deleted?: boolean;
}

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

/**
 * Xero's words for "more than is outstanding" become the wording the screen maps to 'Invoice Data Out of
 * Sync' (docs/product/features.md §8).
 */
/** Xero refused a payment because the balance it was checked against is out of date (spec §8's three texts). */
function isOutOfDateRefusal(error: unknown): boolean {
  if (!(error instanceof AppError) || (error.code !== 'XERO_REJECTED' && error.code !== 'VALIDATION_ERROR'))
    return false;
  const text = error.message.toLowerCase();
  return (
    text.includes('fully paid') ||
    text.includes('exceeds the amount outstanding') ||
    text.includes('exceeds the invoice balance') ||
    text.includes('authorised')
  );
}

function translateRejection(error: unknown, amountPence: number, currency: string): never {
  if (error instanceof AppError && (error.code === 'XERO_REJECTED' || error.code === 'VALIDATION_ERROR')) {
    const text = error.message.toLowerCase();
    if (text.includes('fully paid'))
      throw new AppError('UNPROCESSABLE', 'Invoice is already fully paid', error.message);
    if (text.includes('exceeds the amount outstanding') || text.includes('exceeds the invoice balance')) {
      throw new AppError(
        'UNPROCESSABLE',
        `Payment of ${formatAmount(amountPence, currency)} exceeds the invoice balance in Xero`,
        error.message,
      );
    }
    if (text.includes('authorised'))
      throw new AppError('UNPROCESSABLE', `Payment validation failed: ${error.message}`);
  }
  throw error;
}

function formatAmount(pence: number, currency: string): string {
  return `${currency === 'GBP' ? '£' : '$'}${(pence / 100).toFixed(2)}`;
}

/** The invoice's balance Xero reported with a payment, or `fallback` where it reported none. */
function balanceFrom(payment: XeroPaymentFacts | null, fallback: InvoiceBalance): InvoiceBalance {
  return {
    amountDuePence: payment?.invoice?.amountDuePence ?? fallback.amountDuePence,
    amountPaidPence: payment?.invoice?.amountPaidPence ?? fallback.amountPaidPence,
    status: payment?.invoice?.status ?? fallback.status,
  };
}

/**
 * Pay Invoices (docs/product/features.md §2–§9; docs/architecture.md §4): outstanding sales invoices from the
 * cache, single-invoice refresh, attachments streamed through the server, bank accounts, and payments that go
 * through the write ledger so a retried request never pays twice.
 */
export function createPayInvoicesService(deps: {
  repo: PayInvoicesRepository;
  sync: XeroSync;
  /** Xero's operations for this feature (the port's `payInvoices`; a unit test may hand in a fake). */
  xero: PayInvoicesXero;
  ledger: WriteLedger;
  audit: AuditLog;
  /** Serialised invoice lists per organisation and cache version. */
  bodies: BodyCache;
  /** Attachment lists and bytes kept in the database (attachment-store.ts); without it, Xero is asked each time. */
  attachmentStore?: { repo: AttachmentStoreRepository; maxBytes: number; log?: FastifyBaseLogger };
  now?: () => Date;
}) {
  const { repo, sync, ledger, audit, bodies } = deps;
  const { xero } = deps;
  /** Xero's answer as the ledger kept it (either feature's shape, read by the port). */
  const readStoredPayment = (row: WriteRow): StoredPayment => xero.readStoredAnswer(row.response, row.xeroId);
  const now = deps.now ?? (() => new Date());
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

  const isFresh = (row: InvoiceRow) => now().getTime() - row.syncedAt.getTime() < FRESH_FROM_XERO_MS;

  async function readFromXero(ctx: PayContext, invoiceId: string): Promise<InvoiceRow | null> {
    try {
      await sync.refreshInvoice(ctx, invoiceId);
    } catch (error) {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
    return repo.findInvoice(ctx.organizationId, invoiceId);
  }

  /**
   * The invoice as Xero has it now: the cached row when Xero described it seconds ago, or (`trustLive`) while
   * Xero's webhooks keep it current (issue 32: Xero's news of a change reaches the cache within seconds, as
   * fresh as a re-read); else a fresh read. `fromXero` says whether Xero was asked just now.
   */
  async function getCurrentInvoice(
    ctx: PayContext,
    invoiceId: string,
    force: boolean,
    trust: { fresh?: boolean; live?: boolean } = {},
  ): Promise<{ row: InvoiceRow; fromXero: boolean }> {
    const trustFresh = trust.fresh ?? true;
    const cached = await repo.findInvoice(ctx.organizationId, invoiceId);
    const usable =
      cached !== null &&
      (!force ||
        (trustFresh && isFresh(cached)) ||
        (trust.live === true &&
          trustFresh &&
          (await sync.isInvoiceKeptCurrent(ctx, cached.invoiceId, cached.syncedAt))));
    const row = usable ? cached : await readFromXero(ctx, invoiceId);
    if (!row || row.type !== 'ACCREC') throw new AppError('NOT_FOUND', 'Invoice not found in Xero');
    return { row, fromXero: !usable };
  }

  /**
   * Xero refused a payment as out of date (already paid, more than the balance): the cache held an older
   * balance. Reads the invoice again so the cache, and the list the screen reads back, show Xero's; a failed
   * read leaves the invoice marked stale, so the next look asks Xero.
   */
  async function refreshAfterRefusal(ctx: PayContext, invoiceId: string): Promise<void> {
    try {
      await readFromXero(ctx, invoiceId);
    } catch {
      await repo.markStale(ctx.organizationId, invoiceId);
    }
  }

  /** A sales invoice of this organisation we know about (attachments are only fetched for those). */
  async function getKnownInvoice(ctx: PayContext, invoiceId: string): Promise<InvoiceRow> {
    const row = await repo.findInvoice(ctx.organizationId, invoiceId);
    if (!row || row.type !== 'ACCREC') throw new AppError('NOT_FOUND', 'Invoice not found');
    return row;
  }

  function toResult(stored: StoredPayment, completedAt: Date | null): PaymentResult {
    const due = stored.amountDuePence ?? 0;
    return {
      isInvoiceFullyPaid: isBalanceFullyPaid(due),
      paymentId: stored.paymentId,
      amountDue: fromPence(due),
      undoableUntil: new Date((completedAt ?? now()).getTime() + PAYMENT_UNDO_WINDOW_MS).toISOString(),
    };
  }

  /**
   * What the ledger keeps of a payment found in Xero, deleted since or not; the cached balance is marked stale
   * meanwhile.
   */
  async function foundPayment(
    row: LedgerWriteRow,
    match: XeroPaymentFacts,
  ): Promise<WriteOutcome<StoredPayment>> {
    // Xero applied a payment whose answer never reached the cache (lost, or the server stopped): the cached
    // balance is from before it, so the next check or refresh must read Xero, however recently it synced.
    await repo.markStale(row.organizationId, (row.request as PaymentPayload).invoiceId);
    return {
      xeroId: match.paymentId,
      response: {
        paymentId: match.paymentId,
        amountDuePence: match.invoice?.amountDuePence ?? null,
        amountPaidPence: match.invoice?.amountPaidPence ?? null,
        invoiceStatus: match.invoice?.status ?? null,
        updatedUtc: match.updatedUtc,
        ...(match.status === 'DELETED' ? { deleted: true } : {}),
      },
    };
  }

  /**
   * The payment among `payments` that carries `row`'s write mark in its Reference, deleted ones included: the
   * mark is exact, and a payment undone since is still the write (issue 28), not a reason to pay again.
   */
  function markedPayment<P extends { paymentId?: string | null; reference?: string | null }>(
    payments: P[],
    row: LedgerWriteRow,
  ): P | undefined {
    return payments.find((p) => p.paymentId && hasWriteMark(p.reference, row.idempotencyKey));
  }

  /**
   * Looks a payment up in Xero by the mark its write left in the Reference (issue 28 item 4): exact, at any
   * age, so a write the database forgot in a restore is found however long ago it was sent.
   */
  async function findMarkedPaymentInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<StoredPayment> | null> {
    const request = row.request as PaymentPayload;
    const payments = await xero.payments.findForInvoice(ctx, request.invoiceId);
    const marked = markedPayment(payments, row);
    return marked ? foundPayment(row, marked) : null;
  }

  /**
   * Looks a payment up in Xero when its answer was lost: the payment carrying the write's mark; else (a
   * payment sent before writes were marked) a payment on the invoice, into the same account, for the same
   * amount and date, changed after the write was sent, and not already another write's.
   */
  async function findPaymentInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<StoredPayment> | null> {
    const request = row.request as PaymentPayload;
    const payments = await xero.payments.findForInvoice(ctx, request.invoiceId);
    const marked = markedPayment(payments, row);
    if (marked) return foundPayment(row, marked);
    const claimed = await ledger.claimedXeroIds(
      row.organizationId,
      'payment',
      row.id,
      row.targetId ?? request.invoiceId,
    );
    // Xero's clock and ours differ a little: allow two minutes either side of the moment it was sent.
    const sentAt = (row.sentAt ?? row.createdAt).getTime() - 2 * 60_000;
    const match = payments
      .filter(
        (p) =>
          p.paymentId &&
          p.status !== 'DELETED' &&
          !claimed.has(p.paymentId.toLowerCase()) &&
          p.accountId?.toLowerCase() === request.accountId.toLowerCase() &&
          p.amountPence === row.amountPence &&
          p.date === request.date &&
          (!p.updatedUtc || Date.parse(p.updatedUtc) >= sentAt),
      )
      .sort((a, b) => Date.parse(a.updatedUtc ?? '') - Date.parse(b.updatedUtc ?? ''))[0];
    return match ? foundPayment(row, match) : null;
  }

  /** Looks a reversal up in Xero: the payment exists and is DELETED. */
  async function findPaymentDeletionInXero(
    ctx: XeroContext,
    row: LedgerWriteRow,
  ): Promise<WriteOutcome<unknown> | null> {
    const paymentId = row.targetId ?? (row.request as { paymentId: string }).paymentId;
    const payment = await xero.payments.get(ctx, paymentId);
    if (payment?.status !== 'DELETED') return null;
    const invoiceId = payment.invoice?.invoiceId;
    if (invoiceId) await repo.markStale(row.organizationId, invoiceId);
    return {
      xeroId: paymentId,
      response: {
        paymentId,
        amountDuePence: payment.invoice?.amountDuePence ?? null,
        invoiceStatus: payment.invoice?.status ?? null,
      },
    };
  }

  /**
   * The same Idempotency-Key again (the browser retried, the user double-clicked): answer what the first
   * request got, and never check the balance again first, since the first attempt may be what paid it. When the
   * first attempt lost Xero's answer, Xero is asked whether the payment exists instead of sending it again.
   */
  async function replayPayment(
    ctx: PayContext,
    existing: WriteRow,
    payment: PaymentRequest,
  ): Promise<PaymentResult> {
    const first = existing.request as Partial<PaymentPayload>;
    const same =
      existing.kind === 'payment' &&
      first.invoiceId?.toLowerCase() === payment.invoiceId.toLowerCase() &&
      first.accountId?.toLowerCase() === payment.accountId.toLowerCase() &&
      first.isCard === payment.isCard &&
      first.requestedPence === toPence(payment.amount);
    if (!same)
      throw new AppError('VALIDATION_ERROR', 'This Idempotency-Key was already used for a different change');
    // The first attempt lost Xero's answer, or its instance stopped (the ledger's staleness rule): ask Xero
    // whether the payment exists instead of sending it again (the ledger logs it once it is settled).
    const { row, retryAfterMs } = await ledger.settleIfStale(existing, ctx.tenantId);
    const settledNow = row !== existing;
    if (row.state === 'failed') {
      translateRejection(
        new AppError('XERO_REJECTED', row.error ?? 'Xero refused this payment'),
        row.amountPence ?? 0,
        'GBP',
      );
    }
    if (row.state !== 'confirmed') {
      throw new AppError(
        'CONFLICT',
        'This payment is already being processed. Refresh in a moment to see the result.',
        undefined,
        busyExtra(row, retryAfterMs),
      );
    }
    return answerRecorded(ctx, row, settledNow);
  }

  /**
   * The answer to a payment the ledger holds as confirmed, to a caller who did not just send it (a same-key
   * retry, or a write the ledger found in Xero instead of sending it). The first answer is old news: the
   * invoice may have been paid since. The cache is never written from it; the caller is told the balance the
   * cache holds now, read from Xero when `readXero` (the write was settled by a look-up just now, so the cache
   * has not seen it).
   */
  async function answerRecorded(ctx: PayContext, row: WriteRow, readXero: boolean): Promise<PaymentResult> {
    const stored = readStoredPayment(row);
    const request = row.request as PaymentPayload;
    const invoice = await getCurrentInvoice(ctx, request.invoiceId, readXero, { fresh: false }).then(
      (current) => current.row,
      () => null,
    );
    const due = invoice
      ? invoice.status === 'PAID'
        ? 0
        : invoice.amountDuePence
      : (stored.amountDuePence ?? 0);
    const result = toResult({ ...stored, amountDuePence: due }, row.completedAt);
    // Undone since (its Undo confirmed, or Xero holds it DELETED): the answer says so, and offers no Undo of a
    // payment that is gone.
    if (stored.deleted) {
      const at = stored.updatedUtc ? new Date(stored.updatedUtc) : (row.completedAt ?? row.createdAt);
      return { ...result, undone: true, undoableUntil: at.toISOString() };
    }
    const undo = stored.paymentId
      ? await ledger.findConfirmedByXeroId(ctx.organizationId, 'payment.delete', stored.paymentId)
      : null;
    if (!undo) return result;
    return {
      ...result,
      undone: true,
      undoableUntil: (undo.completedAt ?? undo.createdAt).toISOString(),
    };
  }

  return {
    findPaymentInXero,
    findMarkedPaymentInXero,
    findPaymentDeletionInXero,

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
      const toDto = (a: AccountRow) => ({
        accountId: a.accountId,
        name: a.name,
        bankAccountNumber: a.bankAccountNumber ?? '',
      });
      return {
        creditCardAccounts: rows.filter((a) => a.bankAccountType === 'CREDITCARD').map(toDto),
        cashAccounts: rows.filter((a) => a.bankAccountType !== 'CREDITCARD').map(toDto),
      };
    },

    /**
     * "Send again" from the administrators' review list (issue 20): the held payment goes through pay() as a
     * new write, checked against what Xero says is outstanding now, in the name of the administrator. Xero is
     * reached with the grant that made the first attempt.
     */
    async retryHeldPayment(
      row: LedgerWriteRow,
      by: RetryActor,
      idempotencyKey: string,
    ): Promise<{ writeId: number; xeroId: string | null }> {
      if (row.userId === null) {
        throw new AppError(
          'CONFLICT',
          'The user who made this payment no longer exists: cancel it and pay it again on Pay Invoices.',
        );
      }
      const held = row.request as PaymentPayload;
      const result = await this.pay(
        {
          organizationId: row.organizationId,
          tenantId: by.tenantId,
          userId: row.userId,
          username: by.username,
          ip: by.ip ?? null,
        },
        {
          invoiceId: held.invoiceId,
          invoiceNumber: held.invoiceNumber,
          accountId: held.accountId,
          amount: fromPence(held.requestedPence),
          reference: held.reference,
          isCard: held.isCard,
          date: held.date,
        },
        idempotencyKey,
      );
      const written = await ledger.findByKey(row.organizationId, idempotencyKey);
      return { writeId: written?.id ?? 0, xeroId: result.paymentId };
    },

    /**
     * POST /api/xero/payments (docs/architecture.md §4): checks the amount against what Xero says is
     * outstanding now, records the payment in the ledger before sending it with the Idempotency-Key, updates
     * the cached invoice from Xero's answer, and audits it.
     */
    async pay(
      ctx: PayContext,
      payment: PaymentRequest,
      idempotencyKey: string | undefined,
    ): Promise<PaymentResult> {
      const requestedPence = toPence(payment.amount);
      if (idempotencyKey) {
        const existing = await ledger.findByKey(ctx.organizationId, idempotencyKey);
        if (existing) return replayPayment(ctx, existing, payment);
      }
      let account = await repo.findPaymentAccount(ctx.organizationId, payment.accountId);
      if (!account) {
        await sync.syncAccounts(ctx);
        account = await repo.findPaymentAccount(ctx.organizationId, payment.accountId);
      }
      if (!account) {
        throw new AppError(
          'VALIDATION_ERROR',
          'The selected account cannot take payments in Xero. Refresh the accounts and choose another.',
        );
      }
      // An earlier payment on this invoice whose outcome is not known yet: settle it by look-up first; while
      // one is still in flight, refuse naming who is paying (its amount may or may not be in the balance
      // Xero shows). Any other open write on the invoice (an approval, Add Invoices' cash, an Undo) is refused
      // the same way when this payment is recorded: one writer per invoice (issue 28).
      const target =
        (await repo.findInvoice(ctx.organizationId, payment.invoiceId))?.invoiceId ?? payment.invoiceId;
      const earlier = await ledger.settleOpenOnTarget({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        kind: 'payment',
        targetId: target,
      });
      const inFlight = earlier.open[0];
      if (inFlight)
        throw new AppError(
          'CONFLICT',
          describeBusyDocument({
            ...inFlight,
            documentLabel: inFlight.documentLabel ?? payment.invoiceNumber,
          }),
          undefined,
          { writeId: inFlight.id, writeState: 'busy' },
        );
      // A payment settled just now is not in the cached balance: read the invoice from Xero. Otherwise the
      // cached balance stands when Xero described it seconds ago or its webhooks keep it current (issue 32).
      const trust = { fresh: earlier.settled.length === 0, live: true };
      let current = await getCurrentInvoice(ctx, payment.invoiceId, true, trust);
      const refusalOf = (row: InvoiceRow) =>
        row.status !== 'AUTHORISED' && row.status !== 'PAID'
          ? `Payment validation failed: invoice ${row.invoiceNumber ?? ''} is ${row.status} in Xero`
          : checkPaymentAgainstBalance(
              requestedPence,
              row.status === 'PAID' ? 0 : row.amountDuePence,
              row.currencyCode || 'GBP',
            );
      // A refusal is never based on a balance Xero was not asked for just now: the cache may be a moment behind.
      if (refusalOf(current.row) && !current.fromXero)
        current = await getCurrentInvoice(ctx, payment.invoiceId, true, { fresh: false });
      const invoice = current.row;
      const currency = invoice.currencyCode || 'GBP';
      if (invoice.status !== 'AUTHORISED' && invoice.status !== 'PAID') {
        throw new AppError('UNPROCESSABLE', refusalOf(invoice) ?? 'Payment validation failed');
      }
      const refusal = refusalOf(invoice);
      if (refusal) {
        await audit.recordFor(ctx, {
          action: 'payment.create',
          target: invoice.invoiceId,
          result: 'failure',
          detail: {
            invoiceNumber: invoice.invoiceNumber,
            amountPence: requestedPence,
            accountId: account.accountId,
            reason: refusal,
          },
        });
        throw new AppError('UNPROCESSABLE', refusal);
      }
      // Within the 1p tolerance (docs/product/features.md §9) the payment settles the invoice: Xero is sent
      // exactly what is due, since it refuses any amount above that.
      const amountPence = Math.min(requestedPence, invoice.amountDuePence);
      const payload: PaymentPayload = {
        invoiceId: invoice.invoiceId,
        invoiceNumber: invoice.invoiceNumber ?? payment.invoiceNumber,
        accountId: account.accountId,
        amount: fromPence(amountPence),
        // Xero dates a payment by the organisation's calendar: today in the UK, whatever the browser sent.
        date: getUkToday(now()),
        reference:
          payment.reference.trim() ||
          getPaymentReference(invoice.invoiceNumber ?? payment.invoiceNumber, payment.isCard),
        isCard: payment.isCard,
        requestedPence,
      };
      const before: InvoiceBalance = {
        amountDuePence: invoice.amountDuePence - amountPence,
        amountPaidPence: invoice.amountPaidPence + amountPence,
        status: invoice.amountDuePence - amountPence <= 0 ? 'PAID' : 'AUTHORISED',
      };
      let outcome: Awaited<ReturnType<typeof ledger.execute<StoredPayment>>>;
      let sentAt = new Date();
      try {
        // Until Xero's answer is in, the cached balance is not known to be current: if the answer is lost (or
        // the server stops), the next check or refresh reads the invoice from Xero.
        sentAt = new Date();
        await repo.markStale(ctx.organizationId, invoice.invoiceId);
        outcome = await ledger.execute<StoredPayment>({
          organizationId: ctx.organizationId,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          kind: 'payment',
          targetId: invoice.invoiceId,
          amountPence,
          idempotencyKey,
          request: payload,
          exclusiveTarget: { busyMessage: busyMessage(invoice.invoiceNumber ?? payment.invoiceNumber) },
          document: {
            key: invoiceDocument(invoice.invoiceId),
            label: invoice.invoiceNumber ?? payment.invoiceNumber,
          },
          audit: {
            action: 'payment.create',
            target: invoice.invoiceId,
            username: ctx.username,
            ip: ctx.ip ?? null,
            detail: {
              invoiceNumber: invoice.invoiceNumber,
              amountPence,
              accountId: account.accountId,
              accountName: account.name,
              isCard: payment.isCard,
            },
          },
          send: async (key) => {
            const answer = await xero.payments.create(
              ctx,
              {
                invoiceId: payload.invoiceId,
                accountId: payload.accountId,
                amountPence,
                date: payload.date,
                // The write's mark, so Xero keeps a trace of it a restored database can find.
                reference: withWriteMark(payload.reference, key),
              },
              key,
            );
            const balance = balanceFrom(answer, before);
            return {
              xeroId: answer.paymentId,
              response: {
                paymentId: answer.paymentId,
                amountDuePence: balance.amountDuePence,
                amountPaidPence: balance.amountPaidPence,
                invoiceStatus: balance.status,
                updatedUtc: answer.updatedUtc,
              },
            };
          },
        });
      } catch (error) {
        // Refused as out of date: the cache, and the screen reading it back, take Xero's balance.
        if (isOutOfDateRefusal(error)) await refreshAfterRefusal(ctx, invoice.invoiceId);
        translateRejection(error, amountPence, currency);
      }
      // Not sent: the ledger found the payment in Xero already (its mark, after a restore; or another instance
      // settled it). That answer is a look-up's, deleted since perhaps: it never writes the cache.
      if (outcome.replayed) {
        const found = await ledger.findById(outcome.writeId);
        if (found) return answerRecorded(ctx, found, true);
      }
      const stored = outcome.response;
      const balance: InvoiceBalance = {
        amountDuePence: stored.amountDuePence ?? before.amountDuePence,
        amountPaidPence: stored.amountPaidPence ?? before.amountPaidPence,
        status: stored.invoiceStatus ?? before.status,
      };
      // Newest wins: an answer older than what the cache holds (a concurrent payment answered later) leaves it.
      await repo.applyPayment(
        ctx.organizationId,
        invoice.invoiceId,
        balance,
        { paymentId: stored.paymentId, date: payload.date, amountPence, reference: payload.reference },
        stored.updatedUtc ? new Date(stored.updatedUtc) : null,
        sentAt,
      );
      const write = await ledger.findById(outcome.writeId);
      return toResult({ ...stored, amountDuePence: balance.amountDuePence }, write?.completedAt ?? null);
    },

    /**
     * POST /api/xero/payments/{paymentId}/undo (beyond the spec): deletes in Xero a payment this user made here
     * in the last couple of minutes. The ledger key is derived from the payment, so a repeated Undo replays the
     * first answer instead of asking Xero to delete it twice.
     */
    async undoPayment(ctx: PayContext, paymentId: string): Promise<PaymentUndoResult> {
      const write = await ledger.findConfirmedByXeroId(ctx.organizationId, 'payment', paymentId);
      if (!write) throw new AppError('NOT_FOUND', 'Payment not found');
      if (write.userId !== ctx.userId)
        throw new AppError('FORBIDDEN', 'Only the person who made this payment can undo it here');
      const madeAt = (write.completedAt ?? write.createdAt).getTime();
      if (now().getTime() - madeAt > PAYMENT_UNDO_WINDOW_MS + UNDO_GRACE_MS) {
        throw new AppError(
          'CONFLICT',
          'This payment can no longer be undone here. Remove it in Xero if it is wrong.',
        );
      }
      const request = write.request as PaymentPayload;
      const xeroPaymentId = write.xeroId ?? paymentId;
      const fallback: InvoiceBalance = { amountDuePence: 0, amountPaidPence: 0, status: 'AUTHORISED' };
      const cached = await repo.findInvoice(ctx.organizationId, request.invoiceId);
      if (cached) {
        fallback.amountDuePence = cached.amountDuePence + (write.amountPence ?? 0);
        fallback.amountPaidPence = Math.max(0, cached.amountPaidPence - (write.amountPence ?? 0));
      }
      const sentAt = new Date();
      const outcome = await ledger.execute<InvoiceBalance & { updatedUtc?: string | null }>({
        organizationId: ctx.organizationId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        kind: 'payment.delete',
        targetId: xeroPaymentId,
        amountPence: write.amountPence,
        idempotencyKey: `payment-undo:${xeroPaymentId.toLowerCase()}`,
        request: { paymentId: xeroPaymentId, invoiceId: request.invoiceId },
        document: { key: invoiceDocument(request.invoiceId), label: request.invoiceNumber },
        audit: {
          action: 'payment.undo',
          target: request.invoiceId,
          username: ctx.username,
          ip: ctx.ip ?? null,
          detail: {
            paymentId: xeroPaymentId,
            invoiceNumber: request.invoiceNumber,
            amountPence: write.amountPence,
          },
        },
        send: async (key) => {
          const answer = await xero.payments.delete(ctx, xeroPaymentId, key);
          return {
            xeroId: xeroPaymentId,
            response: { ...balanceFrom(answer, fallback), updatedUtc: answer?.updatedUtc ?? null },
          };
        },
      });
      const { updatedUtc, ...balance } = outcome.response;
      // A replayed Undo is old news: the cache keeps what it holds.
      if (!outcome.replayed) {
        await repo.removePayment(
          ctx.organizationId,
          request.invoiceId,
          balance,
          xeroPaymentId,
          updatedUtc ? new Date(updatedUtc) : null,
          sentAt,
        );
      }
      return {
        message: 'Payment removed from Xero',
        invoiceId: request.invoiceId,
        amountDue: fromPence(balance.amountDuePence),
      };
    },
  };
}
export type PayInvoicesService = ReturnType<typeof createPayInvoicesService>;
