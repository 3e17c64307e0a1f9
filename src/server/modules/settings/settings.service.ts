import { getUkToday } from '../../../shared/dates';
import {
  CONTACT_SEARCH_LIMIT,
  DEFAULT_ID_FIELDS,
  SETTING_FIELD_LABELS,
  SETTING_REFERENCE_KINDS,
  getOldDataCutoffDate,
  toConnectionDefaults,
  type Account,
  type ConnectionDefaults,
  type Contact,
  type ContactGroup,
  type DefaultIdField,
  type SettingReferenceKind,
  type SettingsUpdateRequest,
  type VatRate,
} from '../../../shared/settings';
import { XERO_ACCOUNT_CLASS_BY_TYPE } from '../../../shared/xero-accounts';
import { AppError } from '../../lib/app-error';
import type { AccountsPort } from '../../xero/xero-port';
import type { XeroSync } from '../../xero/sync/sync.service';
import { PAYMENT_WRITE_KINDS, type WriteLedger } from '../../ledger/index';
import type { AuditLog } from '../audit/audit';
import type { RequestContext } from '../organizations/tenancy';
import type {
  AccountRow,
  ContactGroupRow,
  ContactRow,
  OrganizationDefaultsUpdate,
  SettingsRepository,
  TaxRateRow,
} from './settings.repository';

export type AccountKind = Extract<
  SettingReferenceKind,
  'credit-card-account' | 'cash-account' | 'sales-account' | 'bill-account' | 'stock-account' | 'cost-account'
>;
type VatRateKind = Extract<SettingReferenceKind, 'sales-vat-rate' | 'bill-vat-rate'>;

/** Account types a bill line or the cost side of a stock journal may use (docs/xero-api.md §4.4 pickers). */
const COST_TYPES = new Set(['DIRECTCOSTS', 'EXPENSE', 'OVERHEADS']);

type AccountFacts = Pick<
  AccountRow,
  'name' | 'type' | 'class' | 'status' | 'bankAccountType' | 'systemAccount'
>;

function getAccountClass(account: AccountFacts): string | null {
  return account.class ?? XERO_ACCOUNT_CLASS_BY_TYPE[account.type] ?? null;
}

function isSystemAccount(account: AccountFacts): boolean {
  return Boolean(account.systemAccount && account.systemAccount.trim() !== '');
}

const STOCK_HINT = 'Choose an inventory or current asset account.';
const COST_HINT = 'Choose a cost of sales or expense account.';

/**
 * Why an account cannot serve as the given default, or null when it can. The kind checks come first (a
 * bank account as the stock account is wrong whatever its status), then the status. These are also the
 * rules that build each reference list, so a list only offers what saving accepts.
 */
export function findAccountProblem(kind: AccountKind, account: AccountFacts): string | null {
  const name = `"${account.name}"`;
  const isBank = account.type === 'BANK';
  const accountClass = getAccountClass(account);
  let problem: string | null = null;
  switch (kind) {
    case 'credit-card-account':
      if (!isBank) problem = `${name} is not a bank account. Choose a credit card account.`;
      else if (account.bankAccountType !== 'CREDITCARD')
        problem = `${name} is not a credit card account. Choose a credit card account.`;
      break;
    case 'cash-account':
      if (!isBank) problem = `${name} is not a bank account. Choose a bank account such as Cash.`;
      else if (account.bankAccountType === 'CREDITCARD')
        problem = `${name} is a credit card account. Choose a bank account such as Cash.`;
      break;
    case 'sales-account':
      if (accountClass !== 'REVENUE') problem = `${name} is not a revenue account. Choose a sales account.`;
      break;
    case 'bill-account':
      if (!COST_TYPES.has(account.type))
        problem = `${name} is not a direct costs, expense or overheads account.`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that Xero does not accept on bills. Choose another direct costs account.`;
      break;
    case 'stock-account':
      if (isBank) problem = `a bank account cannot be used in a stock journal. ${STOCK_HINT}`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that cannot be used in a manual journal. ${STOCK_HINT}`;
      else if (accountClass !== 'ASSET') problem = `${name} is not an asset account. ${STOCK_HINT}`;
      break;
    case 'cost-account':
      if (isBank) problem = `a bank account cannot be used in a stock journal. ${COST_HINT}`;
      else if (isSystemAccount(account))
        problem = `${name} is a system account that cannot be used in a manual journal. ${COST_HINT}`;
      else if (!COST_TYPES.has(account.type))
        problem = `${name} is not a cost of sales or expense account. ${COST_HINT}`;
      break;
  }
  if (problem) return problem;
  if (account.status === 'ARCHIVED') return `${name} is archived in Xero. Choose an active account.`;
  if (account.status !== 'ACTIVE') return `${name} has been deleted in Xero. Choose an active account.`;
  return null;
}

type TaxRateFacts = Pick<TaxRateRow, 'name' | 'status' | 'canApplyToRevenue' | 'canApplyToExpenses'>;

/** Why a VAT rate cannot serve as the sales or bill VAT rate, or null when it can. */
export function findVatRateProblem(kind: VatRateKind, rate: TaxRateFacts): string | null {
  const name = `"${rate.name}"`;
  if (rate.status !== 'ACTIVE') return `${name} is not active in Xero. Choose an active VAT rate.`;
  if (kind === 'sales-vat-rate' && !rate.canApplyToRevenue)
    return `${name} cannot be used on sales. Choose a VAT rate for income.`;
  if (kind === 'bill-vat-rate' && !rate.canApplyToExpenses)
    return `${name} cannot be used on bills. Choose a VAT rate for expenses.`;
  return null;
}

function findContactProblem(contact: Pick<ContactRow, 'name' | 'status'>): string | null {
  if (contact.status === 'ACTIVE') return null;
  return contact.status === 'ARCHIVED'
    ? `"${contact.name}" is archived in Xero. Choose an active contact.`
    : `"${contact.name}" cannot be used in Xero (status ${contact.status}). Choose another contact.`;
}

const NOT_FOUND: Record<SettingReferenceKind, string> = {
  'credit-card-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'cash-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'sales-account': 'the account was not found in Xero. Refresh the settings and choose again.',
  'bill-account': 'the account was not found in Xero. Refresh the CIS settings and choose again.',
  'stock-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'cost-account': 'the account was not found in Xero. Refresh the accounts and choose again.',
  'sales-vat-rate': 'the VAT rate was not found in Xero. Refresh the settings and choose again.',
  'bill-vat-rate': 'the VAT rate was not found in Xero. Refresh the settings and choose again.',
  contact: 'the contact was not found in Xero. Search for it again.',
  'contact-group': 'the contact group was not found in Xero. Refresh the CIS settings and choose again.',
};

function refuse(field: DefaultIdField | 'defaultStockJournalCostAccountId', reason: string): never {
  throw new AppError('VALIDATION_ERROR', `${SETTING_FIELD_LABELS[field]}: ${reason}`);
}

function compareAccounts(a: AccountRow, b: AccountRow): number {
  // Xero lists accounts by code; bank accounts usually have none and come after, by name.
  const ac = a.code ?? '';
  const bc = b.code ?? '';
  if (ac && !bc) return -1;
  if (!ac && bc) return 1;
  if (ac !== bc) return ac.localeCompare(bc, 'en-GB', { numeric: true });
  return a.name.localeCompare(b.name, 'en-GB');
}

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

function syncContext(tenant: RequestContext) {
  return { organizationId: tenant.organizationId, tenantId: tenant.tenantId, userId: tenant.userId };
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

  async function loadAccounts(tenant: RequestContext, refresh: boolean) {
    await sync.syncAccounts(syncContext(tenant), { force: refresh });
    return repo.listAccounts(tenant.organizationId);
  }

  /**
   * Checks changed references against one cache: looks their ids up and, when some are missing, syncs that
   * cache once more (an item may be new in Xero) and looks again; then refuses the first field whose item
   * Xero does not have, or whose item has a problem.
   */
  async function checkFields<R>(
    fields: Array<[DefaultIdField, string]>,
    cache: {
      find: (ids: string[]) => Promise<R[]>;
      idOf: (row: R) => string;
      resync: () => Promise<unknown>;
    },
    problemOf: (field: DefaultIdField, row: R) => string | null,
  ) {
    const ids = fields.map(([, id]) => id);
    let rows = await cache.find(ids);
    if (ids.some((id) => !rows.some((r) => cache.idOf(r) === id))) {
      await cache.resync();
      rows = await cache.find(ids);
    }
    const found = new Map(rows.map((r) => [cache.idOf(r), r]));
    for (const [field, id] of fields) {
      const row = found.get(id);
      if (!row) refuse(field, NOT_FOUND[SETTING_REFERENCE_KINDS[field]]);
      const problem = problemOf(field, row);
      if (problem) refuse(field, problem);
    }
  }

  async function checkReferences(tenant: RequestContext, changed: Partial<Record<DefaultIdField, string>>) {
    const ctx = syncContext(tenant);
    const orgId = tenant.organizationId;
    const byKind = (kinds: SettingReferenceKind[]) =>
      (Object.entries(changed) as Array<[DefaultIdField, string]>).filter(([field]) =>
        kinds.includes(SETTING_REFERENCE_KINDS[field]),
      );

    const accountFields = byKind([
      'credit-card-account',
      'cash-account',
      'sales-account',
      'bill-account',
      'stock-account',
      'cost-account',
    ]);
    if (accountFields.length > 0) {
      await sync.syncAccounts(ctx);
      const accounts = {
        find: (ids: string[]) => repo.findAccounts(orgId, ids),
        idOf: (r: AccountRow) => r.accountId,
        resync: () => sync.syncAccounts(ctx, { force: true }),
      };
      await checkFields(accountFields, accounts, (field, account) =>
        findAccountProblem(SETTING_REFERENCE_KINDS[field] as AccountKind, account),
      );
    }

    const vatFields = byKind(['sales-vat-rate', 'bill-vat-rate']);
    if (vatFields.length > 0) {
      await sync.syncTaxRates(ctx);
      const rates = {
        find: (ids: string[]) => repo.findTaxRates(orgId, ids),
        idOf: (r: TaxRateRow) => r.taxType,
        resync: () => sync.syncTaxRates(ctx, { force: true }),
      };
      await checkFields(vatFields, rates, (field, rate) =>
        findVatRateProblem(SETTING_REFERENCE_KINDS[field] as VatRateKind, rate),
      );
    }

    const contactFields = byKind(['contact']);
    const groupFields = byKind(['contact-group']);
    if (contactFields.length > 0 || groupFields.length > 0) await sync.syncContacts(ctx);
    const resyncContacts = () => sync.syncContacts(ctx, { force: true });
    if (contactFields.length > 0) {
      const contacts = {
        find: (ids: string[]) => repo.findContacts(orgId, ids),
        idOf: (r: ContactRow) => r.contactId,
        resync: resyncContacts,
      };
      await checkFields(contactFields, contacts, (_, contact) => findContactProblem(contact));
    }
    if (groupFields.length > 0) {
      const groups = {
        find: (ids: string[]) => repo.findContactGroups(orgId, ids),
        idOf: (r: ContactGroupRow) => r.groupId,
        resync: resyncContacts,
      };
      await checkFields(groupFields, groups, (_, group) =>
        group.status === 'ACTIVE' ? null : NOT_FOUND['contact-group'],
      );
    }
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
