import { splitCisTotal } from '../../../shared/cis';
import {
  deriveHasValidUtr,
  isCisCheckCurrent,
  type BillActionResponse,
  type CisContact,
  type CreateBillRequest,
  type CreateBillResult,
  type DraftBill,
} from '../../../shared/cis-bills';
import { fromPence, roundHalfUp, toPence } from '../../../shared/money';
import type { Account } from '../../../shared/settings';
import { AppError } from '../../lib/app-error';
import { explainUnconfirmed } from '../../xero/write-failure';
import type {
  Bill,
  BillAnswer,
  BillChange,
  BillLineInput,
  BillsPort,
  ContactsPort,
  NewBill,
  XeroContext,
} from '../../xero/xero-port';
import type { CachedLine } from '../../xero/sync/mappers';
import type { SyncContext, XeroSync } from '../../xero/sync/sync.service';
import {
  HELD_USER_GONE,
  RETRY_REFUSED_KIND,
  type RetryActor,
  type WriteKind,
  type WriteLedger,
  type WriteOutcome,
  type WriteRow,
} from '../../xero/write-ledger';
import { createBatcher } from '../../xero/batcher';
import type { AuditLog } from '../audit/audit';
import type { OrganizationRow } from '../organizations/organizations.repository';
import { billLinkOf, hasAnyBillMark, isBillOfWrite } from './bill-link';
import {
  CIS_SYSTEM_ACCOUNTS,
  type CachedBill,
  type CachedContact,
  type CisBillsRepository,
} from './cis-bills.repository';

/** Who acts, on which organisation, with its saved defaults. */
export interface CisBillsContext extends SyncContext {
  /** The acting user's name: every activity-log line names who acted. */
  username: string;
  isAdmin: boolean;
  ip: string | null;
  /** The organisation's defaults the bills use: the subcontractors' contact group and the bills' VAT rate. */
  organization: Pick<OrganizationRow, 'defaultCisSubcontractorsGroupId' | 'defaultBillVatRateId'>;
}

/**
 * Xero validation messages about CIS set-up: answered 422 (docs/product/features.md §7 "a 422 is a CIS
 * validation error").
 */
const CIS_MESSAGE_RE = /\bCIS\b|construction industry scheme|subcontractor|rate set/i;

/** The canonical create request kept in the write ledger: what was sent, and what finds it again. */
interface CreateRecord {
  contactId: string;
  date: string;
  reference: string;
  status: 'DRAFT' | 'AUTHORISED';
  totalPence: number;
  lineAmountTypes: 'Inclusive' | 'NoTax';
  lines: {
    description: string;
    quantity: number;
    unitPence: number;
    accountCode: string;
    taxType: string | null;
  }[];
}

interface PreparedBill {
  record: CreateRecord;
  element: NewBill;
}

/**
 * How far before a write's row was recorded its bill is looked for (decision 028): Xero's clock and ours may
 * differ a little, and the If-Modified-Since Xero compares is to the second.
 */
const CLOCK_MARGIN_MS = 10 * 60_000;

function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}

/** Line amount in pence: quantity (up to 4 decimals) × unit price, rounded half up as Xero rounds a line. */
function getLinePence(quantity: number, unitPence: number): number {
  const quantityE4 = BigInt(Math.round(quantity * 10_000));
  return Number(roundHalfUp(quantityE4 * BigInt(unitPence), 10_000n));
}

/** A cached line's unit amount (pounds, up to 4 decimals) in pence, keeping the fractions of a penny. */
function getUnitPence(unitAmount: number | null | undefined): number {
  return Math.round((unitAmount ?? 0) * 1_000_000) / 10_000;
}

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

/** What happened to a bill, in words, from the status Xero gives it now. */
function describeStatus(status: string): string {
  const words: Record<string, string> = {
    DRAFT: 'put back to draft',
    SUBMITTED: 'submitted for approval',
    AUTHORISED: 'approved',
    PAID: 'paid',
    VOIDED: 'voided',
    DELETED: 'deleted',
  };
  return words[status] ?? `changed to ${status.toLowerCase()}`;
}

function describeFailure(error: unknown): { statusCode: number; message: string } {
  if (error instanceof AppError) return { statusCode: error.statusCode, message: error.message };
  return { statusCode: 500, message: 'Failed to create bill' };
}

/**
 * CIS Bills (001 CIS Bills; docs/architecture.md §4 CIS Bills). Reads come from the caches kept by the sync
 * service; every write goes through the write ledger with an idempotency key and is audited.
 */
export function createCisBillsService(deps: {
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
  log?: { warn: (o: object, m: string) => void };
}) {
  const { repo, bills: xeroBills, contacts, sync, ledger, audit } = deps;
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

  async function prepareBill(ctx: CisBillsContext, request: CreateBillRequest): Promise<PreparedBill> {
    const contact = await repo.findContact(ctx.organizationId, request.contactId);
    if (contact?.status === 'ARCHIVED')
      throw new AppError('VALIDATION_ERROR', `${contact.name} is archived in Xero and cannot be billed`);
    // A bill never goes out on a subcontractor's unknown CIS state: an unchecked contact is checked first
    // (no call when its kept settings are current; one for several bills of the same contact).
    if (contact && !isCisCheckCurrent(contact)) await checkCisSettings(ctx, contact.contactId);
    let taxType: string | null = null;
    if (ctx.organization.defaultBillVatRateId) {
      await sync.syncTaxRates(ctx);
      taxType =
        (await repo.findBillTaxRate(ctx.organizationId, ctx.organization.defaultBillVatRateId))?.taxType ??
        null;
    }
    const lines: CreateRecord['lines'] = [];
    for (const line of request.lineItems) {
      const account = await findAccount(ctx, () =>
        repo.findAccountByCode(ctx.organizationId, line.accountCode),
      );
      if (!account || account.status !== 'ACTIVE') {
        throw new AppError(
          'VALIDATION_ERROR',
          `Account code '${line.accountCode}' is not an active account in Xero. Refresh the accounts and choose another.`,
        );
      }
      if (account.systemAccount && CIS_SYSTEM_ACCOUNTS.includes(account.systemAccount)) {
        // Xero does not accept CIS bills through the API (docs/xero-api.md §4.8): say so before spending a
        // call.
        throw new AppError(
          'UNPROCESSABLE',
          `${account.name} (${line.accountCode}) is a Construction Industry Scheme (CIS) system account, which Xero does not accept on bills created through the API. Choose an ordinary direct costs account.`,
        );
      }
      if (account.type === 'BANK' || ['DEBTORS', 'CREDITORS', 'GST'].includes(account.systemAccount ?? '')) {
        throw new AppError(
          'VALIDATION_ERROR',
          `Account code '${line.accountCode}' cannot be used on a bill.`,
        );
      }
      lines.push({
        description: line.description,
        quantity: line.quantity,
        unitPence: toPence(line.unitAmount),
        accountCode: line.accountCode,
        taxType,
      });
    }
    const totalPence = lines.reduce((sum, l) => sum + getLinePence(l.quantity, l.unitPence), 0);
    // The amount entered is the gross the subcontractor is owed: with a bill VAT rate it includes the VAT,
    // without one there is none, so Xero's total is always the figure the 20 % / 80 % split was shown on.
    const lineAmountTypes = taxType ? 'Inclusive' : 'NoTax';
    const record: CreateRecord = {
      contactId: request.contactId,
      date: request.date,
      reference: request.reference,
      status: request.status,
      totalPence,
      lineAmountTypes,
      lines,
    };
    const element: NewBill = {
      contactId: request.contactId,
      date: request.date,
      // A tax-week bill is due for that week; an explicit due date also keeps it approvable in any
      // organisation, whatever its default bill terms.
      dueDate: request.date,
      reference: request.reference,
      lineAmountTypes,
      status: request.status,
      lines,
    };
    return { record, element };
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

  async function getBill(ctx: CisBillsContext, invoiceId: string): Promise<CachedBill> {
    if (!isUuid(invoiceId)) throw new AppError('NOT_FOUND', 'Bill not found');
    const cached = await repo.findBill(ctx.organizationId, invoiceId);
    if (cached) return cached;
    try {
      const row = await sync.refreshInvoice(ctx, invoiceId);
      if (row && row.type === 'ACCPAY') {
        const found = await repo.findBill(ctx.organizationId, invoiceId);
        if (found) return found;
      }
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
    }
    throw new AppError('NOT_FOUND', 'Bill not found');
  }

  /** A bill created by this write: the answer its finders give. */
  const createdBillOutcome = (bill: Bill, record: CreateRecord): WriteOutcome<BillActionResponse> => ({
    xeroId: bill.invoiceId,
    response: { invoiceID: bill.invoiceId, status: bill.status || record.status },
  });

  /**
   * Finder for 'bill.create' (docs/architecture.md §5: settle a lost answer by looking, never by resending):
   * among the contact's bills changed since shortly before the write (one read, decision 028), the one
   * carrying the write's mark in its Url (or, written before decision 028, in its number), deleted or voided
   * since included; else (a bill sent before bills were marked) one of the request's date, reference and
   * total that carries no write's mark, is neither deleted nor voided and is not already claimed by another
   * create.
   */
  async function findCreatedBill(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<BillActionResponse> | null> {
    const record = row.request as CreateRecord;
    const since = new Date(row.createdAt.getTime() - CLOCK_MARGIN_MS);
    const bills = await xeroBills.listChangedForContact(ctx, record.contactId, since);
    const marked = bills.find((b) => isBillOfWrite(b, row.idempotencyKey));
    if (marked) return createdBillOutcome(marked, record);
    const candidates = bills.filter(
      (b) =>
        !hasAnyBillMark(b) &&
        b.status !== 'DELETED' &&
        b.status !== 'VOIDED' &&
        b.date === record.date &&
        b.invoiceNumber === record.reference &&
        b.totalPence === record.totalPence,
    );
    // A bill another create already accounts for is not this one's.
    const claimed = await ledger.claimedXeroIds(row.organizationId, 'bill.create', row.id);
    const found = candidates.find((b) => !claimed.has(b.invoiceId.toLowerCase()));
    return found ? createdBillOutcome(found, record) : null;
  }

  /**
   * After a restore (issue 28): the bill carrying this write's mark in its Url (or, written before decision
   * 028, in its number), deleted or voided since included: exact, so a new bill like an earlier one is never
   * taken for it. When the forgotten write was made is not known (after the backup, before the restore), so
   * the contact's most recently changed bills are read (one read, decision 028).
   */
  async function findMarkedBill(
    ctx: XeroContext & { organizationId: number },
    row: WriteRow,
  ): Promise<WriteOutcome<BillActionResponse> | null> {
    const record = row.request as CreateRecord;
    const bills = await xeroBills.listChangedForContact(ctx, record.contactId, null);
    const marked = bills.find((b) => isBillOfWrite(b, row.idempotencyKey));
    return marked ? createdBillOutcome(marked, record) : null;
  }

  /** The bill as sent under `key`: its number as typed, its Url the link back that carries the write's mark. */
  const markedBill = (element: NewBill, key: string): NewBill => ({
    ...element,
    url: billLinkOf(deps.appUrl, key),
  });

  /** Finders for update/approve/delete: the bill is read back and the change is there or it is not. */
  function statusFinder(applied: (bill: Bill, request: Record<string, unknown>) => boolean) {
    return async (ctx: XeroContext, row: WriteRow): Promise<WriteOutcome<BillActionResponse> | null> => {
      const request = row.request as Record<string, unknown>;
      const invoiceId = String(request.invoiceId ?? row.targetId ?? '');
      const bill = isUuid(invoiceId) ? await xeroBills.get(ctx, invoiceId) : null;
      if (!bill || !applied(bill, request)) return null;
      return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
    };
  }

  /**
   * The activity-log line of a bill write, handed to the ledger: it writes it once, when Xero's outcome is
   * settled (answered, or found by look-up), so the log holds one line per write Xero applied or refused.
   */
  function auditOf(
    ctx: CisBillsContext,
    action: string,
    target: string | null,
    detail: Record<string, unknown>,
  ) {
    return { action, target, username: ctx.username, ip: ctx.ip, detail };
  }

  /** Sends one status/line change of an existing bill through the ledger and caches Xero's answer. */
  async function writeBill(
    ctx: CisBillsContext,
    spec: {
      kind: Extract<WriteKind, `bill.${string}`>;
      invoiceId: string;
      amountPence: number | null;
      idempotencyKey: string | undefined;
      request: Record<string, unknown>;
      change: BillChange;
      detail: Record<string, unknown>;
    },
  ) {
    let cached: CachedBill | null = null;
    // One writer per bill (issue 28): a second change while this one is open is refused, naming who.
    const known = await repo.findBill(ctx.organizationId, spec.invoiceId);
    const execute = ledger.execute<BillActionResponse>({
      audit: auditOf(ctx, spec.kind, spec.invoiceId, spec.detail),
      document: {
        key: `bill:${spec.invoiceId.toLowerCase()}`,
        label: known?.invoiceNumber ? `Bill ${known.invoiceNumber}` : 'This bill',
      },
      organizationId: ctx.organizationId,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      kind: spec.kind,
      targetId: spec.invoiceId,
      amountPence: spec.amountPence,
      idempotencyKey: spec.idempotencyKey,
      request: spec.request,
      send: async (key) => {
        const bill = readElement(await xeroBills.update(ctx, spec.invoiceId, spec.change, key));
        cached = await cacheBill(ctx, bill);
        return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
      },
    });
    // Say whether Xero answered with an error or not at all (issue 17 item 3).
    const outcome = await execute.catch((error: unknown) => {
      throw explainUnconfirmed(error);
    });
    return { outcome, cached: cached as CachedBill | null };
  }

  /**
   * An administrator sends a held bill write again (Admin → Needs review, issue 28): the ledger has asked Xero
   * first and Xero does not have it. Approvals and deletions go through their own path (today's checks: a bill
   * approved or deleted meanwhile is answered as it is, not changed again); a creation resends the bill that
   * was recorded. Under `idempotencyKey`, so a second click replays this one write.
   */
  async function retryHeldWrite(
    row: WriteRow,
    by: RetryActor,
    idempotencyKey: string,
  ): Promise<{ writeId: number; xeroId: string | null }> {
    if (row.userId === null) throw new AppError('CONFLICT', HELD_USER_GONE);
    const ctx: CisBillsContext = {
      organizationId: row.organizationId,
      tenantId: by.tenantId,
      // Xero is asked as the user who made the change (their connection), the log names the administrator.
      userId: row.userId,
      username: by.username,
      isAdmin: true,
      ip: by.ip ?? null,
      organization: { defaultCisSubcontractorsGroupId: null, defaultBillVatRateId: null },
    };
    const held = row.request as { invoiceId?: string; defaultAccountId?: string | null };
    let answer: BillActionResponse;
    if (row.kind === 'bill.approve' && held.invoiceId) {
      answer = await service.approveBill(ctx, held.invoiceId, held.defaultAccountId ?? null, idempotencyKey);
    } else if (row.kind === 'bill.delete' && held.invoiceId) {
      answer = await service.deleteBill(ctx, held.invoiceId, idempotencyKey);
    } else if (row.kind === 'bill.create') {
      const record = row.request as CreateRecord;
      const element: NewBill = {
        contactId: record.contactId,
        date: record.date,
        dueDate: record.date,
        reference: record.reference,
        lineAmountTypes: record.lineAmountTypes,
        status: record.status,
        lines: record.lines,
      };
      const outcome = await ledger
        .execute<BillActionResponse>({
          organizationId: ctx.organizationId,
          tenantId: ctx.tenantId,
          userId: ctx.userId,
          kind: 'bill.create',
          targetId: record.contactId,
          amountPence: record.totalPence,
          idempotencyKey,
          request: record,
          audit: auditOf(ctx, 'bill.create', record.reference, {
            contactId: record.contactId,
            reference: record.reference,
            date: record.date,
            status: record.status,
            amountPence: record.totalPence,
          }),
          send: async (key) => {
            const [first] = await xeroBills.createMany(ctx, [markedBill(element, key)], key);
            if (!first) throw new AppError('XERO_UNAVAILABLE', 'Xero answered no bill');
            const bill = readElement(first);
            await cacheBill(ctx, bill);
            return { xeroId: bill.invoiceId, response: { invoiceID: bill.invoiceId, status: bill.status } };
          },
        })
        .catch((error: unknown) => {
          throw explainUnconfirmed(error);
        });
      answer = outcome.response;
    } else {
      throw new AppError('CONFLICT', RETRY_REFUSED_KIND);
    }
    const written = await ledger.findByKey(row.organizationId, idempotencyKey);
    return { writeId: written?.id ?? 0, xeroId: written?.xeroId ?? answer.invoiceID ?? null };
  }

  const service = {
    registerFinders() {
      // After a restore, a create under a key the database forgot is looked up by its mark; a change to a
      // bill is idempotent by state, so its own finder tells whether Xero has it.
      ledger.registerFinder('bill.create', findCreatedBill, findMarkedBill);
      ledger.registerFinder(
        'bill.update',
        statusFinder((bill, request) => bill.totalPence === Number(request.amountPence)),
        'find',
      );
      ledger.registerFinder(
        'bill.approve',
        statusFinder((bill) => bill.status === 'AUTHORISED' || bill.status === 'PAID'),
        'find',
      );
      ledger.registerFinder(
        'bill.delete',
        statusFinder((bill) => bill.status === 'DELETED'),
        'find',
      );
      // A held bill write Xero does not have can be sent again by an administrator (Needs review).
      for (const kind of ['bill.create', 'bill.approve', 'bill.delete'] as const)
        ledger.registerRetrier(kind, retryHeldWrite);
    },

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

    /**
     * Creates bills (docs/product/features.md §7 create-bill, one or a batch). Each bill is its own ledger
     * write with its own key (`keys[i]`); the ones that need sending go to Xero together in one call. A bill
     * that fails does not stop the others; each result says what happened.
     */
    async createBills(
      ctx: CisBillsContext,
      bills: { id: string; key: string | undefined; request: CreateBillRequest }[],
    ): Promise<CreateBillResult[]> {
      return (await createMany(ctx, bills)).map((o) => o.result);
    },

    /**
     * POST create-bill (docs/product/features.md §7): one bill; a refusal is thrown with its own status (422
     * for CIS problems).
     */
    async createBill(
      ctx: CisBillsContext,
      key: string | undefined,
      request: CreateBillRequest,
    ): Promise<BillActionResponse> {
      const [outcome] = await createMany(ctx, [{ id: 'bill', key, request }]);
      if (outcome?.result.ok && outcome.result.invoiceID)
        return {
          invoiceID: outcome.result.invoiceID,
          status: outcome.result.status ?? request.status,
          ...(outcome.result.message ? { message: outcome.result.message } : {}),
        };
      if (outcome?.error instanceof AppError) throw outcome.error;
      throw new AppError('XERO_UNAVAILABLE', outcome?.result.message ?? 'Failed to create bill');
    },

    /**
     * PATCH update-bill (docs/product/features.md §7 `{amount}`): the draft's one line gets the new gross
     * amount.
     */
    async updateBill(
      ctx: CisBillsContext,
      invoiceId: string,
      amount: number,
      idempotencyKey: string | undefined,
    ): Promise<DraftBill> {
      const bill = await getBill(ctx, invoiceId);
      if (bill.status !== 'DRAFT')
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero: only draft bills can be edited here`,
        );
      const lines = (bill.lines as CachedLine[]) ?? [];
      const line = lines[0];
      if (lines.length !== 1 || !line?.lineItemId)
        throw new AppError('CONFLICT', 'This bill has more than one line: change its amount in Xero');
      const amountPence = toPence(amount);
      // The amount is the gross the split is shown on, so it must be the bill total: a VAT-exclusive bill
      // becomes VAT-inclusive rather than have VAT added on top of the figure typed.
      const lineAmountTypes = bill.lineAmountTypes === 'NoTax' ? 'NoTax' : 'Inclusive';
      const newLine: BillLineInput = {
        lineItemId: line.lineItemId,
        description: line.description ?? 'Subcontractor services',
        quantity: 1,
        unitPence: amountPence,
        accountCode: line.accountCode,
        taxType: line.taxType && lineAmountTypes !== 'NoTax' ? line.taxType : null,
      };
      const { cached } = await writeBill(ctx, {
        kind: 'bill.update',
        invoiceId,
        amountPence,
        idempotencyKey,
        request: { invoiceId, amountPence, lineItemId: line.lineItemId },
        // Status DRAFT guards the write: Xero refuses it if the bill was approved meanwhile.
        change: { status: 'DRAFT', lineAmountTypes, lines: [newLine] },
        detail: { before: bill.totalPence, after: amountPence },
      });
      const current = cached ?? (await repo.findBill(ctx.organizationId, invoiceId)) ?? bill;
      return toDraftBill(current);
    },

    /**
     * POST approve-bill (docs/product/features.md §7, header carrying the saved default bill account): lines
     * without an account are coded to that account, then the bill is authorised.
     */
    async approveBill(
      ctx: CisBillsContext,
      invoiceId: string,
      defaultAccountId: string | null,
      idempotencyKey: string | undefined,
    ): Promise<BillActionResponse> {
      if (!defaultAccountId)
        throw new AppError(
          'VALIDATION_ERROR',
          'Please set a default bill account in the settings page before approving bills.',
        );
      const account = await findAccount(ctx, () =>
        repo.findAccountById(ctx.organizationId, defaultAccountId),
      );
      if (!account || account.status !== 'ACTIVE' || !account.code) {
        throw new AppError(
          'VALIDATION_ERROR',
          'The default bill account is not an active account in Xero. Choose another in Settings.',
        );
      }
      const bill = await getBill(ctx, invoiceId);
      if (bill.status === 'AUTHORISED' || bill.status === 'PAID')
        return { invoiceID: invoiceId, status: bill.status, message: 'This bill is already approved' };
      if (bill.status !== 'DRAFT' && bill.status !== 'SUBMITTED')
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero and cannot be approved`,
        );
      const lines = (bill.lines as CachedLine[]) ?? [];
      const needsAccount = lines.some((l) => !l.accountCode);
      const change: BillChange = { status: 'AUTHORISED' };
      if (!bill.dueDate && bill.date) change.dueDate = bill.date;
      if (needsAccount) {
        // Lines left out of an update are deleted by Xero, so every line is sent back with its id.
        change.lines = lines.map((l) => ({
          lineItemId: l.lineItemId,
          description: l.description ?? 'Subcontractor services',
          quantity: l.quantity ?? 1,
          unitPence: getUnitPence(l.unitAmount),
          accountCode: l.accountCode ?? account.code,
          taxType: l.taxType,
        }));
      }
      const { outcome } = await writeBill(ctx, {
        kind: 'bill.approve',
        invoiceId,
        amountPence: bill.totalPence,
        idempotencyKey,
        request: { invoiceId, defaultAccountId, codedLines: needsAccount },
        change,
        detail: { amountPence: bill.totalPence, defaultAccountId, codedLines: needsAccount },
      });
      return outcome.response;
    },

    /**
     * POST delete-bill (docs/product/features.md §7; docs/architecture.md §4 "Delete sets status DELETED").
     * Only drafts can be deleted. An administrator may delete any draft bill; other users only bills created
     * through Ledgerlink, so a bill the accountant entered in Xero is not removed by someone else by mistake
     * (docs/product/features.md §6: 403).
     */
    async deleteBill(
      ctx: CisBillsContext,
      invoiceId: string,
      idempotencyKey: string | undefined,
    ): Promise<BillActionResponse> {
      const bill = await getBill(ctx, invoiceId);
      if (
        !ctx.isAdmin &&
        !(await ledger.findConfirmedByXeroId(ctx.organizationId, 'bill.create', invoiceId))
      ) {
        await audit.recordFor(ctx, {
          action: 'bill.delete',
          target: invoiceId,
          result: 'failure',
          detail: { error: 'not permitted' },
        });
        throw new AppError('FORBIDDEN', "You don't have permission to delete this bill");
      }
      if (bill.status === 'DELETED')
        return { invoiceID: invoiceId, status: 'DELETED', message: 'This bill was already deleted' };
      if (bill.status !== 'DRAFT' && bill.status !== 'SUBMITTED') {
        throw new AppError(
          'CONFLICT',
          `This bill is ${bill.status.toLowerCase()} in Xero: only draft bills can be deleted (approved bills are voided in Xero)`,
        );
      }
      const { outcome } = await writeBill(ctx, {
        kind: 'bill.delete',
        invoiceId,
        amountPence: bill.totalPence,
        idempotencyKey,
        request: { invoiceId },
        change: { status: 'DELETED' },
        detail: {
          amountPence: bill.totalPence,
          contactId: bill.contactId,
          reference: bill.invoiceNumber ?? '',
        },
      });
      return outcome.response;
    },
  };
  return service;

  /**
   * Each bill is its own ledger write with its own key; the ones that need sending go to Xero together in
   * one call. A bill that fails does not stop the others.
   */
  async function createMany(
    ctx: CisBillsContext,
    bills: { id: string; key: string | undefined; request: CreateBillRequest }[],
  ): Promise<{ result: CreateBillResult; error: unknown }[]> {
    const prepared = await Promise.all(
      bills.map(async (bill) => {
        try {
          return { bill, prepared: await prepareBill(ctx, bill.request), error: null };
        } catch (error) {
          return { bill, prepared: null, error };
        }
      }),
    );
    const sendable = prepared.filter((p) => p.prepared !== null);
    // One Xero call for the bills that need sending, under the one batcher's rule: the bills sorted by their
    // keys and a key made from them, so a retry of the same bills sends the same body under the same key.
    const batch = createBatcher<NewBill, BillAnswer>(sendable.length, (elements, batchKey) =>
      xeroBills.createMany(ctx, elements, batchKey),
    );
    const results = await Promise.all(
      prepared.map(
        async ({
          bill,
          prepared: ready,
          error,
        }): Promise<{ result: CreateBillResult; error: unknown; replayed?: boolean }> => {
          if (!ready) {
            // Refused before anything was recorded or sent: not a write, so no activity-log line.
            const failure = describeFailure(error);
            return { result: { id: bill.id, ok: false, ...failure }, error };
          }
          let queued = false;
          try {
            const outcome = await ledger.execute<BillActionResponse>({
              organizationId: ctx.organizationId,
              tenantId: ctx.tenantId,
              userId: ctx.userId,
              kind: 'bill.create',
              targetId: bill.request.contactId,
              amountPence: ready.record.totalPence,
              idempotencyKey: bill.key,
              request: ready.record,
              audit: auditOf(ctx, 'bill.create', bill.request.reference, {
                contactId: bill.request.contactId,
                reference: bill.request.reference,
                date: bill.request.date,
                status: bill.request.status,
                amountPence: ready.record.totalPence,
              }),
              send: async (key) => {
                queued = true;
                const answer = readElement(await batch.join(key, markedBill(ready.element, key)));
                await cacheBill(ctx, answer);
                return {
                  xeroId: answer.invoiceId,
                  response: { invoiceID: answer.invoiceId, status: answer.status || ready.record.status },
                };
              },
            });
            return {
              result: {
                id: bill.id,
                ok: true,
                invoiceID: outcome.response.invoiceID,
                status: outcome.response.status,
              },
              error: null,
              replayed: outcome.replayed,
            };
          } catch (error) {
            const settled = await settleUnknownCreate(ctx, error);
            if (settled) {
              return {
                result: { id: bill.id, ok: true, invoiceID: settled.invoiceID, status: settled.status },
                error: null,
              };
            }
            const explained = explainUnconfirmed(error);
            const failure = describeFailure(explained);
            return { result: { id: bill.id, ok: false, ...failure }, error: explained };
          } finally {
            if (!queued) batch.leave();
          }
        },
      ),
    );
    // Replayed answers are of the moment they were first given: say what is true now (issue 28).
    const replayed = results.filter((r) => r.replayed).map((r) => r.result);
    if (replayed.length === 0) return results;
    const now = await describeReplayedBills(ctx, replayed);
    return results.map((r) => {
      const changed = r.replayed && r.result.invoiceID ? now.get(r.result.invoiceID) : undefined;
      return changed ? { ...r, result: { ...r.result, ...changed } } : r;
    });
  }

  /**
   * Replayed creates answer each bill as it is now, not as it was when first created (issue 28: a bill deleted
   * since was replayed as DRAFT). A replay is a retry, rare, so the bills are read again from Xero in one call
   * (the cache takes what it says); if Xero cannot be asked, the cache answers. Answers the bills that changed,
   * with their status now and a message saying so.
   */
  async function describeReplayedBills(
    ctx: CisBillsContext,
    replayed: readonly CreateBillResult[],
  ): Promise<Map<string, { status: string; message: string }>> {
    const ids = replayed.flatMap((r) => (r.invoiceID ? [r.invoiceID] : []));
    const current = new Map<string, string | null>();
    try {
      const { rows } = await sync.refreshInvoicesByIds(ctx, ids);
      for (const id of ids) current.set(id.toLowerCase(), null);
      for (const row of rows) current.set(row.invoiceId.toLowerCase(), row.status);
    } catch (error) {
      deps.log?.warn({ err: error }, 'replayed bills could not be read again from Xero; the cache answers');
      for (const id of ids)
        current.set(id.toLowerCase(), (await repo.findBill(ctx.organizationId, id))?.status ?? '');
    }
    const changed = new Map<string, { status: string; message: string }>();
    for (const result of replayed) {
      if (!result.invoiceID) continue;
      const status = current.get(result.invoiceID.toLowerCase());
      if (status === null)
        changed.set(result.invoiceID, {
          status: result.status ?? '',
          message: 'This bill was created, but Xero no longer has it',
        });
      else if (status && status !== result.status)
        changed.set(result.invoiceID, {
          status,
          message: `This bill was created and has since been ${describeStatus(status)}`,
        });
    }
    return changed;
  }

  /**
   * A retried create whose first answer was lost (ledger state unknown): look the bill up in Xero now, so
   * the user gets the bill that exists instead of "still processing", and nothing is sent twice.
   */
  async function settleUnknownCreate(
    ctx: CisBillsContext,
    error: unknown,
  ): Promise<BillActionResponse | null> {
    if (!(error instanceof AppError) || error.code !== 'CONFLICT' || error.extra?.writeState !== 'unknown')
      return null;
    const writeId = Number(error.extra.writeId);
    const row = Number.isInteger(writeId) ? await ledger.findById(writeId) : null;
    if (!row || row.organizationId !== ctx.organizationId || row.kind !== 'bill.create') return null;
    try {
      // The ledger settles the write with what it finds (and writes its activity-log line then, once).
      const settled = await ledger.lookUp(row, ctx.tenantId);
      if (settled.state !== 'confirmed' || !settled.xeroId) return null;
      const response = settled.response as BillActionResponse | null;
      return { invoiceID: settled.xeroId, status: response?.status ?? (row.request as CreateRecord).status };
    } catch (lookupError) {
      deps.log?.warn({ err: lookupError, writeId }, 'look-up of a bill create failed; it stays unknown');
      return null;
    }
  }
}
export type CisBillsService = ReturnType<typeof createCisBillsService>;
