import { fromPence } from '../../../shared/money';
import { isXeroId } from '../../../shared/input';
import {
  ALL_CUSTOMERS,
  getWeeklySalesRange,
  groupSalesByWeek,
  type Customer,
  type SalesLineInput,
  type SalesPeriod,
  type SalesQuery,
} from '../../../shared/stock-journal';
import { AppError } from '../../lib/app-error';
import type { CachedBody } from '../../lib/body-cache';
import type { RequestContext } from '../organizations/tenancy';
import type { SaleInvoice } from '../../xero/xero-port';
import { JOURNAL_MESSAGES, toSyncContext, toXeroContext, type StockJournalServiceDeps } from './context';

/** Invoice rows to the grouping's lines: gross = Total, VAT = TotalTax, net = SubTotal, as Xero computed them. */
export function buildSalesPeriods(rows: readonly SaleInvoice[]): SalesPeriod[] {
  const lines: SalesLineInput[] = rows.map((r) => ({
    customerName: r.contactName,
    invoiceNumber: r.invoiceNumber,
    date: r.date,
    grossAmount: fromPence(r.totalPence),
    vatAmount: fromPence(r.totalTaxPence),
    netAmount: fromPence(r.subTotalPence),
  }));
  return groupSalesByWeek(lines);
}

/** The weeks of sales a journal is posted from, and the customers to filter them by. */
export function createSalesWeeks(deps: StockJournalServiceDeps) {
  const { repo, sync, sales, bodies } = deps;
  return {
    /**
     * Customers for the filter (docs/product/features.md §2), from the contacts cache (synced once, again on
     * `refresh`).
     */
    async listCustomers(tenant: RequestContext, options: { refresh?: boolean } = {}): Promise<Customer[]> {
      await sync.syncContacts(toSyncContext(tenant), { force: options.refresh === true });
      return repo.listCustomers(tenant.organizationId, tenant.organization.defaultStockJournalContactId);
    },

    /**
     * Weekly periods (docs/product/features.md §2, §3) of whole Monday–Sunday weeks around the range. For one
     * customer, from the invoice cache (`refresh` first brings it up to date: one call, answered 304 when
     * nothing changed).
     */
    async getSales(tenant: RequestContext, query: SalesQuery): Promise<SalesPeriod[]> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      if (!customerId)
        return buildSalesPeriods(
          await sales.listInRange(toXeroContext(tenant), range.fromDate, range.toDate),
        );
      if (!isXeroId(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      if (query.refresh) await sync.syncInvoices(toSyncContext(tenant), view);
      else await sync.ensureInvoices(toSyncContext(tenant), view);
      return buildSalesPeriods(
        await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate),
      );
    },

    /**
     * One customer's weekly sales (as `getSales`), serialised and kept under the organisation's invoice-cache
     * version, so a repeated read is answered without reading or grouping the invoices again. Null for every
     * customer at once: that is read from Xero itself, never from the cache.
     */
    async getSalesBody(tenant: RequestContext, query: SalesQuery): Promise<CachedBody | null> {
      const customerId = query.customerId && query.customerId !== ALL_CUSTOMERS ? query.customerId : null;
      if (!customerId) return null;
      if (!isXeroId(customerId)) throw new AppError('VALIDATION_ERROR', JOURNAL_MESSAGES.unknownCustomer);
      const view = { key: 'sales-contact', contactId: customerId.toLowerCase() } as const;
      const range = getWeeklySalesRange(query.fromDate, query.toDate);
      const refresh = query.refresh;
      if (refresh) await sync.syncInvoices(toSyncContext(tenant), view);
      const version =
        refresh || tenant.cacheVersion === undefined
          ? await sync.readCacheVersion(tenant.organizationId)
          : tenant.cacheVersion;
      return bodies.get(
        `sales:${tenant.organizationId}:${view.contactId}:${range.fromDate}:${range.toDate}`,
        version,
        async () => {
          await sync.ensureInvoices(toSyncContext(tenant), view);
          return buildSalesPeriods(
            await repo.listSalesInvoices(tenant.organizationId, view.contactId, range.fromDate, range.toDate),
          );
        },
      );
    },
  };
}
