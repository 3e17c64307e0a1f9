/**
 * The check of a saved organisation default against Xero's data (Settings): each changed reference is looked up
 * in Ledgerlink's copy of the organisation's Xero data, synced first when it never was and once more when a
 * chosen item is missing (it may be new in Xero), and refused when Xero does not have it or it cannot serve
 * (reference-rules.ts).
 */
import {
  SETTING_REFERENCE_KINDS,
  type DefaultIdField,
  type SettingReferenceKind,
} from '../../../shared/settings';
import type { XeroSync } from '../../xero/sync/sync.service';
import type { RequestContext } from '../organizations/tenancy';
import {
  findAccountProblem,
  findContactProblem,
  findVatRateProblem,
  NOT_FOUND,
  refuse,
  type AccountKind,
  type VatRateKind,
} from './reference-rules';
import type {
  AccountRow,
  ContactGroupRow,
  ContactRow,
  SettingsRepository,
  TaxRateRow,
} from './settings.repository';

/** Who asks Xero and for which organisation, as the sync takes it. */
export function syncContext(tenant: RequestContext) {
  return { organizationId: tenant.organizationId, tenantId: tenant.tenantId, userId: tenant.userId };
}

export function createReferenceChecks(deps: { repo: SettingsRepository; sync: XeroSync }) {
  const { repo, sync } = deps;

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

  return { checkReferences };
}
