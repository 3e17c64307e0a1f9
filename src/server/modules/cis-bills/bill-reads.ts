import { isCisDeductionLine, type CisRate } from '../../../shared/cis';
import type { VerifiedRate } from '../../../shared/hmrc-filing';
import {
  deriveHasValidUtr,
  isCisCheckCurrent,
  type CisBillSetup,
  type CisContact,
  type DraftBill,
} from '../../../shared/cis-bills';
import { fromPence } from '../../../shared/money';
import type { Account } from '../../../shared/settings';
import type { CachedLine } from '../../xero/sync/mappers';
import {
  createBillContext,
  isCisSystemAccount,
  readBillVatTreatment,
  readCachedBill,
  readContactCis,
  readXeroContactCis,
  resolveBillVat,
} from './bill-booking';
import type {
  CachedAccount,
  CachedBill,
  CachedContact,
  CisBillSettings,
  CisBillsRepository,
} from './cis-bills.repository';
import type { CisBillsContext, CisBillsCore, CisBillsDeps } from './context';

/**
 * The draft bill DTO of docs/product/features.md §3 with issue 42's figures: the gross total (labour +
 * materials + VAT), the VAT, the materials, the subcontractor's rate and the deduction on the labour alone
 * (src/shared/cis.ts `readCisBill`): the deduction line's on a bill Ledgerlink raised, Xero's on a bill entered
 * with Xero's own CIS, else what it should be at the contact's rate.
 */
export function toDraftBill(
  row: CachedBill,
  cis: { settings: CisBillSettings; accounts: readonly CachedAccount[]; contactRate: CisRate | null },
): DraftBill {
  const reading = readCachedBill(row, createBillContext(cis.settings, cis.accounts, cis.contactRate));
  const lines = (row.lines as CachedLine[]) ?? [];
  return {
    invoiceID: row.invoiceId,
    contactID: row.contactId ?? '',
    contact: { name: row.contactName ?? '' },
    date: row.date ?? '',
    // The supplier's invoice number exactly as Xero holds it: the write's mark is in the bill's Url (decision 028).
    reference: row.invoiceNumber ?? '',
    status: row.status,
    total: fromPence(Math.max(0, reading.totalPence)),
    amountDue: fromPence(Math.max(0, reading.amountDuePence)),
    cisDeduction: fromPence(Math.max(0, reading.cisDeductionPence)),
    cisRate: reading.rate,
    vatAmount: fromPence(Math.max(0, reading.vatPence)),
    materialsAmount: fromPence(Math.max(0, reading.materialsPence)),
    cisSource: reading.source,
    vatTreatment: readBillVatTreatment(row),
    // The deduction line is Ledgerlink's own: the spec's lineItems[0].accountCode is the labour's account.
    lineItems: lines
      .filter((l) => !isCisDeductionLine(l, cis.settings.deductionAccountCode))
      .map((l) => ({ accountCode: l.accountCode ?? null })),
  };
}

/** The lists CIS Bills shows: subcontractors with their CIS state, direct-costs accounts and draft bills. */
export function createBillReads(deps: CisBillsDeps, core: CisBillsCore) {
  const { repo, sync } = deps;
  const { checkUnchecked, verifiedRatesOf } = core;

  /** What a contact DTO needs of the organisation: its CIS settings and bill tax rates, read once a request. */
  async function readContactSetup(ctx: CisBillsContext) {
    await sync.syncTaxRates(ctx);
    const [settings, rates] = await Promise.all([
      repo.findCisSettings(ctx.organizationId),
      repo.findBillTaxRates(ctx.organizationId),
    ]);
    return { settings, rates };
  }

  /**
   * The CIS contact DTO: hasValidUTR and the rate from the kept settings; while they are not current,
   * hasValidUTR and cisRate null and `cisChecked` false (issue 33 item 12). VAT from the contact and the
   * organisation's reverse-charge setting (issue 42). A contact verified with HMRC from Ledgerlink is given HMRC's
   * rate, with Xero's beside it (issue 43); HMRC matched it, so its UTR is valid, or did not (30 %).
   */
  function toCisContact(
    ctx: CisBillsContext,
    r: CachedContact,
    setup: Awaited<ReturnType<typeof readContactSetup>>,
    verified: VerifiedRate | undefined,
  ): CisContact {
    const inGroup = Boolean(ctx.organization.defaultCisSubcontractorsGroupId);
    const checked = isCisCheckCurrent(r);
    const vat = resolveBillVat(r, setup.settings, setup.rates, ctx.organization.defaultBillVatRateId);
    return {
      id: r.contactId,
      name: r.name,
      isContractor: inGroup || (checked && r.cisEnabled === true) || verified !== undefined,
      isSupplier: r.isSupplier,
      // Not known until the settings are read: null, never a false the screen would show as "(No UTR)".
      hasValidUTR: checked
        ? verified
          ? verified.rate !== 30
          : deriveHasValidUtr({ cisEnabled: r.cisEnabled, rate: r.cisRate })
        : null,
      cisChecked: checked,
      cisRate: readContactCis(r, verified).rate,
      ...(verified
        ? {
            verified: {
              rate: verified.rate,
              matched: verified.matched,
              verificationNumber: verified.verificationNumber,
              verifiedAt: verified.verifiedAt,
            },
            xeroCisRate: readXeroContactCis(r).rate,
          }
        : {}),
      vatTreatment: vat.treatment,
      vatPercent: vat.displayPercent,
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
      const setup = await readContactSetup(ctx);
      const rows = await repo.findSubcontractors(
        ctx.organizationId,
        ctx.organization.defaultCisSubcontractorsGroupId,
      );
      const verified = await verifiedRatesOf(
        ctx,
        rows.map((r) => r.contactId),
      );
      return rows.map((r) => toCisContact(ctx, r, setup, verified.get(r.contactId.toLowerCase())));
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
      const setup = await readContactSetup(ctx);
      const fresh = new Map(
        (await repo.findContacts(ctx.organizationId, ids)).map((r) => [r.contactId, r] as const),
      );
      const verified = await verifiedRatesOf(ctx, ids);
      return ids.flatMap((id) => {
        const row = fresh.get(id);
        return row ? [toCisContact(ctx, row, setup, verified.get(row.contactId.toLowerCase()))] : [];
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
        .filter((a) => !isCisSystemAccount(a))
        .map((a) => ({ id: a.accountId, code: a.code ?? '', name: a.name }));
    },

    /**
     * Beyond the spec (issue 42): the accounts that can hold CIS deductions — active, coded, of the liability
     * class and not system accounts (Xero's API refuses its CIS Liability account on a line item).
     */
    async listDeductionAccounts(ctx: CisBillsContext, options: { refresh: boolean }): Promise<Account[]> {
      await sync.syncAccounts(ctx, { force: options.refresh });
      const rows = await repo.findCodedAccounts(ctx.organizationId);
      return rows
        .filter((a) => a.status === 'ACTIVE' && a.class === 'LIABILITY' && !a.systemAccount)
        .map((a) => ({ id: a.accountId, code: a.code ?? '', name: a.name }));
    },

    /**
     * Beyond the spec (issue 42): what the CIS Bills screen needs of the CIS settings — the deductions account
     * (null while none is chosen, or the one chosen is no longer usable), the materials accounts and the
     * reverse-charge switch.
     */
    async getBillSetup(ctx: CisBillsContext): Promise<CisBillSetup> {
      await sync.syncAccounts(ctx);
      const [settings, accounts] = await Promise.all([
        repo.findCisSettings(ctx.organizationId),
        repo.findCodedAccounts(ctx.organizationId),
      ]);
      const byCode = new Map(accounts.map((a) => [a.code ?? '', a] as const));
      const deduction = settings.deductionAccountCode ? byCode.get(settings.deductionAccountCode) : undefined;
      const usable =
        deduction &&
        deduction.status === 'ACTIVE' &&
        deduction.class === 'LIABILITY' &&
        !deduction.systemAccount;
      return {
        deductionAccount: usable ? { code: deduction.code ?? '', name: deduction.name } : null,
        materialsAccounts: settings.materialsAccountCodes.flatMap((code) => {
          const account = byCode.get(code);
          return account && account.status === 'ACTIVE' && !isCisSystemAccount(account)
            ? [{ code, name: account.name }]
            : [];
        }),
        reverseCharge: settings.reverseCharge,
      };
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
      const rows = (await repo.findDraftBills(ctx.organizationId, contactIds)).filter((r) => r.contactId);
      return toDraftBills(repo, ctx, rows, verifiedRatesOf);
    },
  };
}

/**
 * Draft DTOs of cached bills, with the organisation's CIS settings, accounts and the rate each contact is given
 * (HMRC's verified rate, else Xero's: issue 43).
 */
export async function toDraftBills(
  repo: CisBillsRepository,
  ctx: Pick<CisBillsContext, 'organizationId'>,
  rows: readonly CachedBill[],
  verifiedRatesOf?: CisBillsCore['verifiedRatesOf'],
): Promise<DraftBill[]> {
  const ids = [...new Set(rows.map((r) => r.contactId ?? ''))].filter((id) => id !== '');
  const [settings, accounts, contacts, verified] = await Promise.all([
    repo.findCisSettings(ctx.organizationId),
    repo.findCodedAccounts(ctx.organizationId),
    repo.findContacts(ctx.organizationId, ids),
    verifiedRatesOf ? verifiedRatesOf(ctx, ids) : Promise.resolve(new Map<string, VerifiedRate>()),
  ]);
  const rates = new Map(
    contacts.map(
      (c) => [c.contactId, readContactCis(c, verified.get(c.contactId.toLowerCase())).rate] as const,
    ),
  );
  return rows.map((r) =>
    toDraftBill(r, { settings, accounts, contactRate: rates.get(r.contactId ?? '') ?? null }),
  );
}
