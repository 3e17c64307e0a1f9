import { fromPence } from '../../../shared/money';
import { isBalanceFullyPaid, PAYMENT_UNDO_WINDOW_MS, type PaymentResult } from '../../../shared/pay-invoices';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error';
import type { BodyCache } from '../../lib/body-cache';
import type { XeroSync, SyncContext } from '../../xero/sync/sync.service';
import type { WriteLedger } from '../../ledger/index';
import type { PayInvoicesXero } from '../../xero/xero-port';
import type { AuditLog } from '../audit/audit';
import type { AttachmentStoreRepository } from './attachment-store.repository';
import type { InvoiceRow, PayInvoicesRepository, WriteRow } from './pay-invoices.repository';

/**
 * What Pay Invoices' parts share (pay-invoices.service.ts composes them): who is asking, what the ledger keeps of
 * a payment, Xero's refusals in the spec's words, and the invoice as Xero has it now.
 */

/**
 * A cached invoice Xero itself described this recently (a sync, a refresh, or the answer to a payment) is
 * taken as current instead of asking Xero again. This is what keeps a card + cash payment at 3 Xero calls:
 * the check before the first payment reads the invoice, Xero's answer to it carries the new balance, and the
 * refresh between the two payments and the check before the second are served from that answer. A stale
 * figure cannot cause a wrong payment: Xero refuses an amount above what is outstanding anyway.
 */
export const FRESH_FROM_XERO_MS = 10_000;

/** Who is asking and for which organisation. */
export interface PayContext extends SyncContext {
  username: string;
  ip?: string | null;
  /** The organisation's invoice-cache version as read with the session, when it was. */
  cacheVersion?: number | undefined;
}

/** What the ledger keeps as the request of a payment (also what the finder matches in Xero). */
export interface PaymentPayload {
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
export interface StoredPayment {
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

/**
 * Xero's words for "more than is outstanding" become the wording the screen maps to 'Invoice Data Out of
 * Sync' (docs/product/features.md §8).
 */
/** Xero refused a payment because the balance it was checked against is out of date (spec §8's three texts). */
export function isOutOfDateRefusal(error: unknown): boolean {
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

export function translateRejection(error: unknown, amountPence: number, currency: string): never {
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

/** What the service is built from (wired once in wiring.ts; a unit test may hand in fakes). */
export interface PayInvoicesDeps {
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
}

/** The helpers every part uses: the clock, Xero's answer as the ledger kept it, and the invoice as Xero has it now. */
export function createPayInvoicesCore(deps: PayInvoicesDeps) {
  const { repo, sync, xero } = deps;
  /** Xero's answer as the ledger kept it (either feature's shape, read by the port). */
  const readStoredPayment = (row: WriteRow): StoredPayment => xero.readStoredAnswer(row.response, row.xeroId);
  const now = deps.now ?? (() => new Date());

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

  function toResult(stored: StoredPayment, completedAt: Date | null): PaymentResult {
    const due = stored.amountDuePence ?? 0;
    return {
      isInvoiceFullyPaid: isBalanceFullyPaid(due),
      paymentId: stored.paymentId,
      amountDue: fromPence(due),
      undoableUntil: new Date((completedAt ?? now()).getTime() + PAYMENT_UNDO_WINDOW_MS).toISOString(),
    };
  }

  return { now, readStoredPayment, readFromXero, getCurrentInvoice, toResult };
}
export type PayInvoicesCore = ReturnType<typeof createPayInvoicesCore>;
