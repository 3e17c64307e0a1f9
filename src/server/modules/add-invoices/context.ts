/** What every part of Add Invoices shares: who acts, what the service is built from, its texts and activity lines. */
import type { AuditLog, AuditAction } from '../audit/audit';
import type { OrganizationAccessRow } from '../organizations/organizations.repository';
import { AppError } from '../../lib/app-error';
import type { XeroSync } from '../../xero/sync/sync.service';
import type { WriteAudit, WriteLedger } from '../../ledger/index';
import type { AddInvoicesXero } from '../../xero/xero-port';
import type { AddInvoicesRepository, CachedInvoiceRow } from './add-invoices.repository';

/** Who acts, for which organisation (from `resolveTenant`), and from where (for the audit log). */
export interface AddInvoicesContext {
  organizationId: number;
  tenantId: string;
  userId: number;
  username: string;
  ip: string;
  organization: OrganizationAccessRow;
}

/** What the Add Invoices service is built from (wired in src/server/wiring.ts); each part takes what it uses. */
export interface AddInvoicesDeps {
  repo: AddInvoicesRepository;
  /** Xero's operations for this feature (the port's `addInvoices`; a unit test may hand in a fake). */
  xero: AddInvoicesXero;
  ledger: WriteLedger;
  sync: XeroSync;
  /** Kept for the wiring; every line of this feature is written by the ledger when its write settles. */
  audit?: AuditLog;
}

/** Largest batch per Xero call: docs/xero-api.md §3 advises modest batches of about 50 elements. */
export const XERO_BATCH_SIZE = 50;

export const MISSING_CASH_ACCOUNT_MESSAGE =
  'No default cash account is set for this organization. Choose a Default Cash Account in Settings before entering cash amounts.';
export const NOT_A_DRAFT_MESSAGE =
  'This invoice is not one of the draft invoices of this organization. Refresh the list and try again.';

export function numberOf(invoice: CachedInvoiceRow): string {
  return invoice.invoiceNumber || invoice.invoiceId;
}

export function messageOf(error: unknown): string {
  if (error instanceof AppError)
    return error.detail && error.code !== 'XERO_UNAVAILABLE'
      ? `${error.message}: ${error.detail}`
      : error.message;
  return error instanceof Error ? error.message : String(error);
}

export const syncCtx = (ctx: AddInvoicesContext) => ({
  organizationId: ctx.organizationId,
  tenantId: ctx.tenantId,
  userId: ctx.userId,
});

export function requireCashAccount(ctx: AddInvoicesContext): string {
  const id = ctx.organization.defaultCashAccountId;
  if (!id) throw new AppError('VALIDATION_ERROR', MISSING_CASH_ACCOUNT_MESSAGE);
  return id;
}

/** The activity-log line of a write: the ledger writes it once the write settles. */
export const auditOf = (
  ctx: AddInvoicesContext,
  action: AuditAction,
  target: string | null,
  detail: Record<string, unknown>,
): WriteAudit => ({
  action,
  target,
  username: ctx.username,
  ip: ctx.ip,
  detail,
});

/** An approval's line says what Xero approved; its cash payment has a line of its own (issue 28). */
export const approvalAudit = (ctx: AddInvoicesContext, invoice: CachedInvoiceRow) =>
  auditOf(ctx, 'add-invoices.approve', invoice.invoiceId, {
    invoiceNumber: numberOf(invoice),
    totalPence: invoice.totalPence,
  });

export const cashPaymentAudit = (
  ctx: AddInvoicesContext,
  invoiceId: string | null,
  invoiceNumber: string,
  cash: { cashPence: number; pendingPence: number },
  cashAccountId: string,
) =>
  auditOf(ctx, 'add-invoices.cash-payment', invoiceId, {
    invoiceNumber,
    amountPence: cash.cashPence,
    fromPendingPence: cash.pendingPence,
    accountId: cashAccountId,
  });

export const pendingCashAudit = (
  ctx: AddInvoicesContext,
  invoiceId: string | null,
  invoiceNumber: string,
  pence: number,
  pendingBeforePence: number,
) =>
  auditOf(ctx, 'add-invoices.cash-pending', invoiceId, {
    invoiceNumber,
    amountPence: pence,
    pendingBeforePence,
  });
