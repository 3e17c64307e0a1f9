import { isCisCheckCurrent } from '../../../shared/cis-bills';
import type { FindVerifiedRates, VerifiedRate } from '../../../shared/hmrc-filing';
import { AppError } from '../../lib/app-error';
import type { Bill, BillAnswer, BillsPort, ContactsPort, NewBill } from '../../xero/xero-port';
import type { SyncContext, XeroSync } from '../../xero/sync/sync.service';
import type { WriteLedger } from '../../ledger/index';
import type { AuditLog, AuditAction } from '../audit/audit';
import type { OrganizationRow } from '../organizations/organizations.repository';
import { billLinkOf } from './bill-link';
import type { CachedBill, CachedContact, CisBillsRepository } from './cis-bills.repository';

/** Who acts, on which organisation, with its saved defaults. */
export interface CisBillsContext extends SyncContext {
  /** The acting user's name: every activity-log line names who acted. */
  username: string;
  isAdmin: boolean;
  ip: string | null;
  /** The organisation's defaults the bills use: the subcontractors' contact group and the bills' VAT rate. */
  organization: Pick<OrganizationRow, 'defaultCisSubcontractorsGroupId' | 'defaultBillVatRateId'>;
}

/** What the CIS Bills service is built from (wired once in src/server/wiring.ts). */
export interface CisBillsDeps {
  repo: CisBillsRepository;
  /** Xero's bills and contacts, in our vocabulary (src/server/xero/xero-port.ts). */
  bills: BillsPort;
  contacts: ContactsPort;
  sync: XeroSync;
  ledger: WriteLedger;
  audit: AuditLog;
  /**
   * The address people reach Ledgerlink on (APP_URL): a bill's Url in Xero, "Go to Ledgerlink", links back
   * to CIS Bills there and carries the write's mark (decision 028).
   */
  appUrl: string;
  /**
   * Issue 43: subcontractors' verifications with HMRC (hmrc-filing, through the wiring). HMRC's answer is the rate
   * a verified contact is given; without this port, Xero's CIS settings alone.
   */
  verifiedRates?: FindVerifiedRates;
  log?: { warn: (o: object, m: string) => void };
}

/**
 * Xero validation messages about CIS set-up: answered 422 (docs/product/features.md §7 "a 422 is a CIS
 * validation error").
 */
const CIS_MESSAGE_RE = /\bCIS\b|construction industry scheme|subcontractor|rate set/i;

/** The canonical create request kept in the write ledger: what was sent, and what finds it again. */
export interface CreateRecord {
  contactId: string;
  date: string;
  reference: string;
  status: 'DRAFT' | 'AUTHORISED';
  /** Xero's Total: labour + materials + VAT − the deduction line, what the subcontractor is paid. */
  totalPence: number;
  lineAmountTypes: 'Inclusive' | 'Exclusive' | 'NoTax';
  lines: {
    description: string;
    quantity: number;
    unitPence: number;
    accountCode: string;
    taxType: string | null;
  }[];
  /** Issue 42: the bill's CIS figures as sent (absent on writes recorded before). */
  cis?: {
    rate: 0 | 20 | 30 | null;
    labourPence: number;
    materialsPence: number;
    vatPence: number;
    deductionPence: number;
    vatTreatment: 'none' | 'standard' | 'reverse-charge';
  };
}

export interface PreparedBill {
  record: CreateRecord;
  element: NewBill;
}

export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

/**
 * What the parts of CIS Bills share: the CIS settings check (one call per contact, single-flight), accounts,
 * the bill cache, Xero's answer read, the activity-log line and the bill as sent with its write's mark.
 */
export function createCisBillsCore(deps: CisBillsDeps) {
  const { repo, contacts, sync } = deps;
  /** One CIS settings call per contact even when two requests ask at once. */
  const cisChecks = new Map<string, Promise<void>>();

  /**
   * Reads a contact's CIS settings from Xero (one call) unless the cache already holds them for the contact's
   * current UpdatedDateUTC, and keeps them with that UpdatedDateUTC (issue 19).
   */
  function checkCisSettings(ctx: CisBillsContext, contactId: string): Promise<void> {
    const key = `${ctx.organizationId}:${contactId}`;
    const running = cisChecks.get(key);
    if (running) return running;
    const promise = (async () => {
      // Read again inside the single flight: a check that finished a moment ago is not paid for twice.
      const row = await repo.findContact(ctx.organizationId, contactId);
      if (!row || isCisCheckCurrent(row)) return;
      const settings = await contacts.cisSettings(ctx, contactId);
      await repo.saveContactCisSettings(ctx.organizationId, contactId, settings, row.updatedUtc);
    })().finally(() => cisChecks.delete(key));
    cisChecks.set(key, promise);
    return promise;
  }

  /** Checks the contacts among `rows` whose CIS settings are not current; a partial failure is logged. */
  async function checkUnchecked(ctx: CisBillsContext, rows: readonly CachedContact[]): Promise<void> {
    const unchecked = rows.filter((r) => !isCisCheckCurrent(r));
    if (unchecked.length === 0) return;
    const results = await Promise.allSettled(unchecked.map((r) => checkCisSettings(ctx, r.contactId)));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    for (const failure of failures)
      deps.log?.warn({ err: failure.reason }, 'contact CIS settings could not be read');
    // A partial answer is still useful (the rest stay unchecked and are asked again); nothing at all is an
    // error.
    if (failures.length === results.length && failures[0]) throw failures[0].reason;
  }

  async function findAccount(
    ctx: CisBillsContext,
    find: () => ReturnType<CisBillsRepository['findAccountByCode']>,
  ) {
    const cached = await find();
    if (cached) return cached;
    // An account added in Xero since the last look: one incremental call brings it in.
    await sync.syncAccounts(ctx, { force: true });
    return find();
  }

  async function cacheBill(ctx: CisBillsContext, bill: Bill): Promise<CachedBill | null> {
    const { url: _url, ...row } = bill;
    await repo.upsertBill({ ...row, organizationId: ctx.organizationId });
    return repo.findBill(ctx.organizationId, bill.invoiceId);
  }

  /** One bill of a write answer: the bill, or the definite refusal Xero gave it (unknown when Xero did not say). */
  function readElement(answer: BillAnswer): Bill {
    if (answer.ok) return answer.bill;
    const message = answer.errors.join('; ');
    if (answer.unknown) throw new AppError('XERO_UNAVAILABLE', message);
    throw new AppError(CIS_MESSAGE_RE.test(message) ? 'UNPROCESSABLE' : 'XERO_REJECTED', message);
  }

  /** The bill as sent under `key`: its number as typed, its Url the link back that carries the write's mark. */
  const markedBill = (element: NewBill, key: string): NewBill => ({
    ...element,
    url: billLinkOf(deps.appUrl, key),
  });

  /**
   * The activity-log line of a bill write, handed to the ledger: it writes it once, when Xero's outcome is
   * settled (answered, or found by look-up), so the log holds one line per write Xero applied or refused.
   */
  function auditOf(
    ctx: CisBillsContext,
    action: AuditAction,
    target: string | null,
    detail: Record<string, unknown>,
  ) {
    return { action, target, username: ctx.username, ip: ctx.ip, detail };
  }

  /** HMRC's answer to each contact's latest verification from Ledgerlink (lower-case ids), for `readContactCis`. */
  async function verifiedRatesOf(
    ctx: Pick<CisBillsContext, 'organizationId'>,
    contactIds: readonly string[],
  ): Promise<ReadonlyMap<string, VerifiedRate>> {
    if (!deps.verifiedRates || contactIds.length === 0) return new Map();
    return deps.verifiedRates(ctx.organizationId, contactIds);
  }
  async function verifiedRateOf(
    ctx: Pick<CisBillsContext, 'organizationId'>,
    contactId: string | null | undefined,
  ): Promise<VerifiedRate | undefined> {
    if (!contactId) return undefined;
    return (await verifiedRatesOf(ctx, [contactId])).get(contactId.toLowerCase());
  }

  return {
    checkCisSettings,
    checkUnchecked,
    findAccount,
    cacheBill,
    readElement,
    markedBill,
    auditOf,
    verifiedRatesOf,
    verifiedRateOf,
  };
}
export type CisBillsCore = ReturnType<typeof createCisBillsCore>;
