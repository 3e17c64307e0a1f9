import type { DraftInvoice, NewInvoiceDefaults, UnfinishedDraftAction } from '../../../shared/add-invoices';
import { getUkToday } from '../../../shared/dates';
import { formatMoney, fromPence } from '../../../shared/money';
import type { WriteAudit } from '../../ledger/index';
import { syncCtx, type AddInvoicesContext, type AddInvoicesDeps } from './context';

/** What the Add Invoices screen reads: the drafts, the user's unfinished changes, the New Invoice defaults. */
export function createDraftReads({ repo, ledger, sync }: Pick<AddInvoicesDeps, 'repo' | 'ledger' | 'sync'>) {
  /**
   * Draft sales invoices (docs/product/features.md §7 GET /api/xero/draft-invoices), synced first when
   * never seen or on `refresh`.
   */
  async function listDrafts(ctx: AddInvoicesContext, options: { refresh: boolean }): Promise<DraftInvoice[]> {
    if (options.refresh) await sync.syncInvoices(syncCtx(ctx), { key: 'sales-draft' });
    else await sync.ensureInvoices(syncCtx(ctx), { key: 'sales-draft' });
    const rows = await repo.findDrafts(ctx.organizationId);
    return rows
      .map((r) => ({
        id: r.invoiceId,
        invoiceNumber: r.invoiceNumber ?? '',
        contactName: r.contactName ?? '',
        date: r.date ?? getUkToday(),
        totalAmount: fromPence(r.totalPence),
        currency: r.currencyCode || 'GBP',
        pendingCashAmount: fromPence(r.pendingPence ?? 0),
      }))
      .sort((a, b) =>
        a.date < b.date ? 1 : a.date > b.date ? -1 : a.invoiceNumber.localeCompare(b.invoiceNumber),
      );
  }

  /**
   * This user's Add Invoices changes that wait for an administrator (issue 28): each says what was done,
   * what was not, and that Admin → Needs review settles it, so the person who acted sees it even when the
   * server that took the change stopped before answering.
   */
  async function listUnfinished(ctx: AddInvoicesContext): Promise<UnfinishedDraftAction[]> {
    const held = await ledger.listNeedsReviewFor(ctx.organizationId, ctx.userId);
    return held
      .map((row) => {
        const audit = row.audit as WriteAudit | null;
        if (!audit?.action.startsWith('add-invoices.')) return null;
        const number = String(audit.detail?.invoiceNumber ?? '') || (row.targetId ?? 'A new invoice');
        const amount = formatMoney(row.amountPence ?? 0);
        const why = row.error ? ` (${row.error})` : '';
        const settles = 'an administrator settles it under Admin → Needs review.';
        const message =
          audit.action === 'add-invoices.cash-payment'
            ? `The cash payment of ${amount} on ${number} could not be finished${why}. Do not pay it again on Pay Invoices: ${settles}`
            : audit.action === 'add-invoices.approve'
              ? `Xero has not confirmed whether ${number} was approved${why}; ${settles}`
              : `A change to ${number} could not be finished${why}; ${settles}`;
        return { writeId: row.id, invoiceId: row.targetId, invoiceNumber: number, message };
      })
      .filter((r): r is UnfinishedDraftAction => r !== null);
  }

  /** The defaults the New Invoice row shows and needs, named as Xero names them. */
  async function findNewInvoiceDefaults(ctx: AddInvoicesContext): Promise<NewInvoiceDefaults> {
    const org = ctx.organization;
    const sctx = syncCtx(ctx);
    await Promise.all([
      org.defaultContactId ? sync.syncContacts(sctx) : null,
      org.defaultSalesAccountId || org.defaultCashAccountId ? sync.syncAccounts(sctx) : null,
      org.defaultVatRateId ? sync.syncTaxRates(sctx) : null,
    ]);
    const [contact, sales, cash, vat] = await Promise.all([
      org.defaultContactId ? repo.findContact(ctx.organizationId, org.defaultContactId) : null,
      org.defaultSalesAccountId ? repo.findAccount(ctx.organizationId, org.defaultSalesAccountId) : null,
      org.defaultCashAccountId ? repo.findAccount(ctx.organizationId, org.defaultCashAccountId) : null,
      org.defaultVatRateId ? repo.findTaxRate(ctx.organizationId, org.defaultVatRateId) : null,
    ]);
    const named = (id: string | null, name: string | null | undefined) =>
      id ? { id, name: name ?? id } : null;
    return {
      contact: named(org.defaultContactId, contact?.name),
      salesAccount: named(
        org.defaultSalesAccountId,
        sales ? `${sales.code ? `${sales.code} - ` : ''}${sales.name}` : null,
      ),
      vatRate: named(org.defaultVatRateId, vat ? `${vat.name} (${Number(vat.rate)}%)` : null),
      cashAccount: named(org.defaultCashAccountId, cash?.name),
      taxStatus: org.defaultTaxStatus,
      missing: [
        !org.defaultContactId && 'Default Contact',
        !org.defaultSalesAccountId && 'Default Sales Account',
      ].filter((m): m is string => Boolean(m)),
    };
  }

  return { listDrafts, listUnfinished, findNewInvoiceDefaults };
}
