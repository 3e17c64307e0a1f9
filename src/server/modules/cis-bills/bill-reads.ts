import { splitCisTotal } from '../../../shared/cis';
import {
  deriveHasValidUtr,
  isCisCheckCurrent,
  type CisContact,
  type DraftBill,
} from '../../../shared/cis-bills';
import { fromPence } from '../../../shared/money';
import type { Account } from '../../../shared/settings';
import type { CachedLine } from '../../xero/sync/mappers';
import { CIS_SYSTEM_ACCOUNTS, type CachedBill, type CachedContact } from './cis-bills.repository';
import type { CisBillsContext, CisBillsCore, CisBillsDeps } from './context';

/**
 * The draft bill DTO of docs/product/features.md §3, with the 20 % deduction and 80 % amount due of
 * docs/product/features.md §9 on the bill total.
 */
export function toDraftBill(row: CachedBill): DraftBill {
  const split = splitCisTotal(Math.max(0, row.totalPence));
  const lines = (row.lines as CachedLine[]) ?? [];
  return {
    invoiceID: row.invoiceId,
    contactID: row.contactId ?? '',
    contact: { name: row.contactName ?? '' },
    date: row.date ?? '',
    // The supplier's invoice number exactly as Xero holds it: the write's mark is in the bill's Url (decision 028).
    reference: row.invoiceNumber ?? '',
    status: row.status,
    total: fromPence(split.totalPence),
    amountDue: fromPence(split.amountDuePence),
    cisDeduction: fromPence(split.cisDeductionPence),
    lineItems: lines.map((l) => ({ accountCode: l.accountCode ?? null })),
  };
}

/** The lists CIS Bills shows: subcontractors with their CIS state, direct-costs accounts and draft bills. */
export function createBillReads(deps: CisBillsDeps, core: CisBillsCore) {
  const { repo, sync } = deps;
  const { checkUnchecked } = core;

  /**
   * The CIS contact DTO: hasValidUTR from the kept settings; while they are not current, hasValidUTR null and
   * `cisChecked` false (issue 33 item 12).
   */
  function toCisContact(ctx: CisBillsContext, r: CachedContact): CisContact {
    const inGroup = Boolean(ctx.organization.defaultCisSubcontractorsGroupId);
    const checked = isCisCheckCurrent(r);
    return {
      id: r.contactId,
      name: r.name,
      isContractor: inGroup || (checked && r.cisEnabled === true),
      isSupplier: r.isSupplier,
      // Not known until the settings are read: null, never a false the screen would show as "(No UTR)".
      hasValidUTR: checked ? deriveHasValidUtr({ cisEnabled: r.cisEnabled, rate: r.cisRate }) : null,
      cisChecked: checked,
    };
  }

  async function findSubcontractorIds(ctx: CisBillsContext): Promise<string[]> {
    const rows = await repo.findSubcontractors(
      ctx.organizationId,
      ctx.organization.defaultCisSubcontractorsGroupId,
    );
    return rows.map((r) => r.contactId);
  }

  return {
    /**
     * Subcontractors (docs/architecture.md §4): supplier contacts, or the CIS group's members when one is
     * set, answered from the contacts alone (issue 19: 300 subcontractors no longer cost 300 calls). Each
     * carries its kept CIS state while the contact's UpdatedDateUTC has not moved, else `cisChecked: false`;
     * the screen checks the ones it shows (`checkCisContacts`). `refresh` syncs what changed in the contacts;
     * a contact Xero changed is unchecked again and read when next shown.
     */
    async listCisContacts(ctx: CisBillsContext, options: { refresh: boolean }): Promise<CisContact[]> {
      await sync.syncContacts(ctx, { force: options.refresh });
      const rows = await repo.findSubcontractors(
        ctx.organizationId,
        ctx.organization.defaultCisSubcontractorsGroupId,
      );
      return rows.map((r) => toCisContact(ctx, r));
    },

    /**
     * POST cis-contacts/check (beyond the spec; issue 19): reads the CIS settings of the given contacts that
     * are not current (one call each, single-flight per contact), keeps them and answers every given contact
     * the cache knows. Ids the cache does not know are left out and cost nothing.
     */
    async checkCisContacts(ctx: CisBillsContext, contactIds: readonly string[]): Promise<CisContact[]> {
      const ids = [...new Set(contactIds)];
      const rows = await repo.findContacts(ctx.organizationId, ids);
      await checkUnchecked(ctx, rows);
      const fresh = new Map(
        (await repo.findContacts(ctx.organizationId, ids)).map((r) => [r.contactId, r] as const),
      );
      return ids.flatMap((id) => {
        const row = fresh.get(id);
        return row ? [toCisContact(ctx, row)] : [];
      });
    },

    /**
     * Which of these contacts' CIS settings Ledgerlink does not hold current, from the cache alone (the Today
     * page, issue 47: it answers without Xero and leaves these to a background read through `checkCisContacts`).
     */
    async findUncheckedCisContacts(ctx: CisBillsContext, contactIds: readonly string[]): Promise<string[]> {
      const rows = await repo.findContacts(ctx.organizationId, [...new Set(contactIds)]);
      return rows.filter((r) => !isCisCheckCurrent(r)).map((r) => r.contactId);
    },

    /**
     * Active direct-costs accounts (docs/architecture.md §4: bills go on the chosen direct-costs account),
     * CIS system accounts left out.
     */
    async listDirectCostsAccounts(ctx: CisBillsContext, options: { refresh: boolean }): Promise<Account[]> {
      await sync.syncAccounts(ctx, { force: options.refresh });
      const rows = await repo.findDirectCostsAccounts(ctx.organizationId);
      return rows
        .filter((a) => !(a.systemAccount && CIS_SYSTEM_ACCOUNTS.includes(a.systemAccount)))
        .map((a) => ({ id: a.accountId, code: a.code ?? '', name: a.name }));
    },

    /** Draft bills (ACCPAY, DRAFT) from the cache; `refresh` asks Xero what changed first; `cisOnly` keeps subcontractors' bills. */
    async listDraftBills(
      ctx: CisBillsContext,
      options: { refresh: boolean; cisOnly: boolean },
    ): Promise<DraftBill[]> {
      if (options.refresh) await sync.syncInvoices(ctx, { key: 'bills-draft' });
      else await sync.ensureInvoices(ctx, { key: 'bills-draft' });
      let contactIds: string[] | null = null;
      if (options.cisOnly) {
        await sync.syncContacts(ctx);
        contactIds = await findSubcontractorIds(ctx);
      }
      const rows = await repo.findDraftBills(ctx.organizationId, contactIds);
      return rows.filter((r) => r.contactId).map(toDraftBill);
    },
  };
}
