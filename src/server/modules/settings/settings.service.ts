import { getUkToday } from '../../../shared/dates';
import {
  CONTACT_SEARCH_LIMIT,
  DEFAULT_ID_FIELDS,
  getOldDataCutoffDate,
  toConnectionDefaults,
  type Account,
  type ConnectionDefaults,
  type Contact,
  type ContactGroup,
  type DefaultIdField,
  type SettingsUpdateRequest,
  type VatRate,
} from '../../../shared/settings';
import { AppError } from '../../lib/app-error';
import type { AccountsPort } from '../../xero/xero-port';
import type { XeroSync } from '../../xero/sync/sync.service';
import { PAYMENT_WRITE_KINDS, type WriteLedger } from '../../ledger/index';
import type { AuditLog } from '../audit/audit';
import type { RequestContext } from '../organizations/tenancy';
import { createReferenceChecks, syncContext } from './reference-checks';
import { compareAccounts, findAccountProblem, refuse, type AccountKind } from './reference-rules';
import type {
  AccountRow,
  ContactGroupRow,
  ContactRow,
  OrganizationDefaultsUpdate,
  SettingsRepository,
  TaxRateRow,
} from './settings.repository';

export type { AccountKind } from './reference-rules';

const toAccount = (row: AccountRow): Account => ({ id: row.accountId, code: row.code ?? '', name: row.name });
const toContact = (row: ContactRow): Contact => ({ id: row.contactId, name: row.name });
const toContactGroup = (row: ContactGroupRow): ContactGroup => ({ id: row.groupId, name: row.name });
const toVatRate = (row: TaxRateRow): VatRate => ({
  id: row.taxType,
  name: row.name,
  rate: Number(row.rate),
  canApplyToRevenue: row.canApplyToRevenue,
  canApplyToExpenses: row.canApplyToExpenses,
});

type SettingsChange = Partial<Record<keyof ConnectionDefaults, string | number | null>>;

/** Who asked, for the audit log. */
export interface ActorInfo {
  userId: number;
  username: string;
  ip: string;
}

/**
 * Organisation defaults, the reference lists they are chosen from, and the two cache clean-ups. Every
 * reference is checked against Ledgerlink's copy of the organisation's Xero data, which is synced first
 * when it never was, and once more when a chosen item is missing (it may be new in Xero).
 */
export function createSettingsService(deps: {
  repo: SettingsRepository;
  sync: XeroSync;
  accounts: AccountsPort;
  audit: AuditLog;
  ledger: WriteLedger;
}) {
  const { repo, sync, accounts: accountsPort, audit, ledger } = deps;
  const { checkReferences } = createReferenceChecks({ repo, sync });

  async function loadAccounts(tenant: RequestContext, refresh: boolean) {
    await sync.syncAccounts(syncContext(tenant), { force: refresh });
    return repo.listAccounts(tenant.organizationId);
  }

  return {
    /**
     * Accounts of one kind, active and usable for it (docs/product/shell.md §7 sales/bill/asset/cost
     * accounts).
     */
    async listAccounts(
      tenant: RequestContext,
      kind: AccountKind,
      options: { refresh?: boolean } = {},
    ): Promise<Account[]> {
      const rows = await loadAccounts(tenant, options.refresh === true);
      return rows
        .filter((r) => findAccountProblem(kind, r) === null)
        .sort(compareAccounts)
        .map(toAccount);
    },

    /** Card and cash accounts for the Pay Invoices defaults, from the accounts cache. */
    async listBankAccounts(tenant: RequestContext, options: { refresh?: boolean } = {}) {
      const rows = (await loadAccounts(tenant, options.refresh === true)).sort(compareAccounts);
      const toBank = (r: AccountRow) => ({
        accountId: r.accountId,
        name: r.name,
        bankAccountNumber: r.bankAccountNumber ?? '',
      });
      return {
        creditCardAccounts: rows
          .filter((r) => findAccountProblem('credit-card-account', r) === null)
          .map(toBank),
        cashAccounts: rows.filter((r) => findAccountProblem('cash-account', r) === null).map(toBank),
      };
    },

    /** Active VAT rates, each saying whether it may go on sales and on bills. */
    async listVatRates(tenant: RequestContext, options: { refresh?: boolean } = {}): Promise<VatRate[]> {
      await sync.syncTaxRates(syncContext(tenant), { force: options.refresh === true });
      return (await repo.listTaxRates(tenant.organizationId))
        .filter((r) => r.status === 'ACTIVE')
        .map(toVatRate);
    },

    async listContactGroups(
      tenant: RequestContext,
      options: { refresh?: boolean } = {},
    ): Promise<ContactGroup[]> {
      await sync.syncContacts(syncContext(tenant), { force: options.refresh === true });
      return (await repo.listContactGroups(tenant.organizationId)).map(toContactGroup);
    },

    /**
     * Active contacts whose name contains `search`, by name (at most 50), followed by the contacts named in
     * `ids` (those already chosen, so the selector can show their names whatever the search).
     */
    async searchContacts(
      tenant: RequestContext,
      options: { search?: string; ids?: string[]; refresh?: boolean } = {},
    ): Promise<Contact[]> {
      await sync.syncContacts(syncContext(tenant), { force: options.refresh === true });
      const found = await repo.searchContacts(
        tenant.organizationId,
        options.search ?? '',
        CONTACT_SEARCH_LIMIT,
      );
      const extra = (await repo.findContacts(tenant.organizationId, options.ids ?? [])).filter(
        (c) => !found.some((f) => f.contactId === c.contactId),
      );
      return [...found, ...extra].map(toContact);
    },

    /**
     * PATCH /api/xero/settings: applies the fields that differ from what is stored, after checking each
     * changed reference against Xero's data; records the change with before and after in the audit log.
     */
    async updateSettings(
      tenant: RequestContext,
      patch: SettingsUpdateRequest,
      actor: ActorInfo,
    ): Promise<ConnectionDefaults> {
      const current = toConnectionDefaults(tenant.organization);
      const before: SettingsChange = {};
      const after: SettingsChange = {};
      const update: OrganizationDefaultsUpdate = {};
      const changedIds: Partial<Record<DefaultIdField, string>> = {};

      for (const field of DEFAULT_ID_FIELDS) {
        if (!(field in patch)) continue;
        const next = patch[field] ?? null;
        const stored = current[field] === '' ? null : current[field];
        if (next === stored) continue;
        before[field] = stored;
        after[field] = next;
        update[field] = next;
        if (next !== null) changedIds[field] = next;
      }
      if (patch.defaultTaxStatus !== undefined && patch.defaultTaxStatus !== current.defaultTaxStatus) {
        before.defaultTaxStatus = current.defaultTaxStatus;
        after.defaultTaxStatus = patch.defaultTaxStatus;
        update.defaultTaxStatus = patch.defaultTaxStatus;
      }
      if (
        patch.defaultStockJournalPostingStatus !== undefined &&
        patch.defaultStockJournalPostingStatus !== current.defaultStockJournalPostingStatus
      ) {
        before.defaultStockJournalPostingStatus = current.defaultStockJournalPostingStatus;
        after.defaultStockJournalPostingStatus = patch.defaultStockJournalPostingStatus;
        update.defaultStockJournalPostingStatus = patch.defaultStockJournalPostingStatus;
      }
      const margin = patch.defaultStockJournalMarginRate;
      if (
        margin !== undefined &&
        Math.round(margin * 100) !== Math.round(current.defaultStockJournalMarginRate * 100)
      ) {
        before.defaultStockJournalMarginRate = current.defaultStockJournalMarginRate;
        after.defaultStockJournalMarginRate = margin;
        // numeric(10,2) column: the text form keeps the two decimals exact.
        update.defaultStockJournalMarginRate = margin.toFixed(2);
      }

      if (Object.keys(update).length === 0) return current;

      const stock =
        'defaultStockJournalStockAccountId' in update
          ? update.defaultStockJournalStockAccountId
          : current.defaultStockJournalStockAccountId || null;
      const cost =
        'defaultStockJournalCostAccountId' in update
          ? update.defaultStockJournalCostAccountId
          : current.defaultStockJournalCostAccountId || null;
      if (stock && cost && stock === cost) {
        refuse(
          'defaultStockJournalCostAccountId',
          'the cost account must differ from the stock account, or the journal would move nothing.',
        );
      }

      /** The audit line of this change: refused with the reason and what was attempted, or saved with before and after. */
      const recordUpdate = (result: 'success' | 'failure', detail: Record<string, unknown>) =>
        audit.recordFor(
          { ...actor, organizationId: tenant.organizationId },
          {
            action: 'settings.update',
            target: tenant.organization.tenantName,
            result,
            detail,
          },
        );

      try {
        await checkReferences(tenant, changedIds);
      } catch (error) {
        if (error instanceof AppError && error.code === 'VALIDATION_ERROR') {
          await recordUpdate('failure', { reason: error.message, attempted: after });
        }
        throw error;
      }

      const row = await repo.updateDefaults(tenant.organizationId, update);
      if (!row) throw new AppError('NOT_FOUND', `Organization with ID ${tenant.organizationId} not found`);
      await recordUpdate('success', { before, after });
      return toConnectionDefaults(row);
    },

    /**
     * POST /api/xero/bank-accounts/cleanup: drops cached bank-account rows Xero no longer has (deleted or
     * replaced accounts that would show as duplicates) and refreshes the others. One read call to Xero;
     * nothing in Xero changes.
     */
    async cleanupBankAccounts(tenant: RequestContext, actor: ActorInfo): Promise<{ deletedCount: number }> {
      const ctx = syncContext(tenant);
      const live = (await accountsPort.listBank(ctx)).filter((a) => a.status !== 'DELETED');
      const liveIds = new Set(live.map((a) => a.accountId));
      const cached = await repo.listBankAccounts(tenant.organizationId);
      const stale = cached.filter((row) => !liveIds.has(row.accountId)).map((row) => row.accountId);
      const deletedCount = await repo.deleteAccounts(tenant.organizationId, stale);
      await repo.upsertAccounts(live.map((a) => ({ ...a, organizationId: tenant.organizationId })));
      await audit.recordFor(
        { ...actor, organizationId: tenant.organizationId },
        {
          action: 'settings.cleanup.bank-accounts',
          target: tenant.organization.tenantName,
          result: 'success',
          detail: { deletedCount, kept: live.length },
        },
      );
      return { deletedCount };
    },

    /**
     * POST /api/xero/data/cleanup: drops cached invoices that are paid, voided or deleted and dated more than
     * three months ago, and confirmed payment rows of the local ledger completed more than three months ago.
     * Only Ledgerlink's copy changes; nothing is sent to Xero.
     */
    async cleanupOldData(
      tenant: RequestContext,
      actor: ActorInfo,
      now: Date = new Date(),
    ): Promise<{ deletedInvoices: number; deletedPayments: number }> {
      const cutoffDate = getOldDataCutoffDate(getUkToday(now));
      const cutoff = new Date(`${cutoffDate}T00:00:00Z`);
      const deletedInvoices = await repo.deleteFinishedInvoicesBefore(tenant.organizationId, cutoffDate);
      if (deletedInvoices > 0) await repo.resetCustomerInvoiceViews(tenant.organizationId);
      const deletedPayments = await ledger.forgetConfirmedBefore(
        tenant.organizationId,
        PAYMENT_WRITE_KINDS,
        cutoff,
      );
      await audit.recordFor(
        { ...actor, organizationId: tenant.organizationId },
        {
          action: 'settings.cleanup.data',
          target: tenant.organization.tenantName,
          result: 'success',
          detail: { deletedInvoices, deletedPayments, before: cutoffDate },
        },
      );
      return { deletedInvoices, deletedPayments };
    },
  };
}
export type SettingsService = ReturnType<typeof createSettingsService>;
