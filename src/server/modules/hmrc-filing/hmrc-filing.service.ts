/**
 * Filing with HMRC (issue 43, decision 043): the contractor's Government Gateway credentials, subcontractor
 * verification, the monthly return sent to HMRC's Transaction Engine and its receipt, statements emailed to
 * subcontractors, deadlines and the reminder. The figures filed are the CIS month-end's (cis-returns), reached
 * through the narrow `CisReturnsPort` the wiring hands in; the exchange with HMRC is submission-driver.ts.
 */
import {
  CIS_HIGHER_RATE,
  getFilingRefusal,
  getPeriodOf,
  getTaxMonth,
  hasPeriodEnded,
  shiftPeriod,
  type CisReturn,
  type CisReturnLine,
  type CisSettings,
} from '../../../shared/cis-returns';
import { getDaysBetween, getUkToday } from '../../../shared/dates';
import {
  CORRECTION_ROUTE,
  getReminderDate,
  isVerificationNeeded,
  verificationReason,
  type CisDeadline,
  type HmrcSetup,
  type StatementEmail,
  type SubcontractorStatus,
  type Submission,
  type Verification,
  type verificationRequestSchema,
} from '../../../shared/hmrc-filing';
import { fromPence, toPence } from '../../../shared/money';
import type { z } from 'zod';
import {
  buildMonthlyReturn,
  buildVerificationRequest,
  MessageRulesError,
  readVerificationResults,
  splitEmployerReference,
  toWholePoundsPence,
  type SubcontractorType,
} from '../../hmrc/cis-messages';
import type { GovTalkSender } from '../../hmrc/govtalk';
import {
  createTransactionEngine,
  prepareSubmission,
  type TransactionEngine,
} from '../../hmrc/transaction-engine';
import { AppError } from '../../lib/app-error';
import type { SecretBox } from '../../lib/crypto';
import type { Mailer } from '../../mail/mailer';
import type { AuditLog } from '../audit/audit';
import type { RequestContext } from '../organizations/tenancy';
import type { HmrcFilingRepository, SubmissionRow, VerificationRow } from './hmrc-filing.repository';
import { createSubmissionDriver } from './submission-driver';
import { createVerifiedRates } from './ports';

/** What filing reads of a request: who, which organisation (and its Settings), from where. */
export type HmrcContext = Pick<
  RequestContext,
  'organizationId' | 'tenantId' | 'userId' | 'username' | 'isAdmin' | 'ip' | 'organization'
>;

/** One statement of the CIS month-end, as its PDF needs it (cis-returns.service CisStatement). */
export type StatementData = { line: { contactId: string; name: string; rate: number | null } } & Record<
  string,
  unknown
>;

/**
 * What filing needs of the CIS month-end (src/server/modules/cis-returns): the month's return and the contractor's
 * references, the statements and their PDF, marking a month filed with HMRC's receipt, and keeping a UTR typed when
 * verifying. The wiring adapts cis-returns' service to it; nothing else of that module is used.
 */
export interface CisReturnsPort {
  getReturn(ctx: HmrcContext, period: string, refresh: boolean): Promise<CisReturn>;
  getSettings(ctx: HmrcContext): Promise<CisSettings>;
  getStatements(ctx: HmrcContext, period: string, contactId: string | null): Promise<StatementData[]>;
  renderStatementsPdf(statements: StatementData[]): Promise<Uint8Array>;
  statementFileName(period: string, name: string | null): string;
  /**
   * Marks the month filed through the CIS month-end's one filing path, as HMRC accepted it: the lines and totals
   * sent (the checks were passed before sending), with HMRC's receipt.
   */
  markFiled(
    ctx: HmrcContext,
    period: string,
    filedOn: string,
    receipt: { irmark: string; timestamp: string; correlationId: string | null },
    asSent: { lines: ReadonlyArray<Omit<CisReturnLine, 'flags'>>; totals: CisReturn['totals'] },
  ): Promise<unknown>;
  updateRefs(
    ctx: HmrcContext,
    contactId: string,
    refs: { utr: string | null; verificationNumber: string | null },
  ): Promise<unknown>;
}

/** Where submissions go (config HMRC_ENDPOINT, or demo mode's sandbox). */
export interface HmrcEndpointConfig {
  submissionUrl: string | null;
  kind: 'sandbox' | 'test' | 'live' | 'custom' | null;
  vendorId: string;
  gatewayTest: boolean;
  product: string;
  version: string;
}

const NOT_SET_UP =
  'Filing with HMRC is not set up on this server: an administrator sets HMRC_ENDPOINT and HMRC_VENDOR_ID (docs/hmrc.md).';
const NO_CREDENTIALS =
  "Add the contractor's Government Gateway user ID and password in Settings → HMRC filing first.";

function hint(userId: string): string {
  return userId.length <= 4 ? '••••' : `••••${userId.slice(-4)}`;
}

function guessType(name: string): SubcontractorType {
  return /\b(ltd|limited|plc|llp|l\.t\.d)\b\.?/i.test(name) ? 'company' : 'soletrader';
}

export function createHmrcFilingService(deps: {
  repo: HmrcFilingRepository;
  box: SecretBox;
  audit: AuditLog;
  endpoints: HmrcEndpointConfig;
  cisReturns: CisReturnsPort;
  /** Reads the contacts (`fresh`: asks Xero what changed since the last look, an email address added meanwhile). */
  syncContacts: (ctx: HmrcContext, fresh: boolean) => Promise<unknown>;
  /** CIS Bills' read of contacts' CIS settings in Xero (one call per contact not yet read): Xero's rate. */
  checkCisContacts: (ctx: HmrcContext, contactIds: readonly string[]) => Promise<unknown>;
  mailer: Mailer;
  instanceId: string;
  log?: { warn: (o: object, m: string) => void; info?: (o: object, m: string) => void };
  today?: () => string;
  /** How long a request waits for HMRC's answer before answering "sending" (tests shorten it). */
  waitMs?: { verify?: number; submit?: number };
}) {
  const { repo, box, audit, endpoints, cisReturns } = deps;
  const today = deps.today ?? (() => getUkToday());
  const engine: TransactionEngine | null = endpoints.submissionUrl
    ? createTransactionEngine({ submissionUrl: endpoints.submissionUrl })
    : null;
  const waitVerify = deps.waitMs?.verify ?? 25_000;
  const waitSubmit = deps.waitMs?.submit ?? 25_000;

  async function readCredentials(
    organizationId: number,
  ): Promise<{ userId: string; password: string } | null> {
    const row = await repo.findCredentials(organizationId);
    if (!row?.senderIdEnc || !row.passwordEnc) return null;
    return { userId: box.decrypt(row.senderIdEnc), password: box.decrypt(row.passwordEnc) };
  }

  async function senderFor(organizationId: number) {
    const credentials = await readCredentials(organizationId);
    const org = await repo.findOrganization(organizationId);
    if (!credentials || !org) return null;
    const settings = await cisReturns.getSettings(contextFor(org, null));
    const keys = settings.employerReference ? splitEmployerReference(settings.employerReference) : null;
    if (!keys) return null;
    const sender: GovTalkSender = {
      senderId: credentials.userId,
      password: credentials.password,
      vendorId: endpoints.vendorId,
      product: endpoints.product,
      version: endpoints.version,
      gatewayTest: endpoints.gatewayTest,
    };
    return { sender, keys };
  }

  type OrgRow = NonNullable<Awaited<ReturnType<typeof repo.findOrganization>>>;
  function contextFor(
    org: OrgRow,
    row: Pick<SubmissionRow, 'createdByUserId' | 'createdByName'> | null,
  ): HmrcContext {
    return {
      organizationId: org.id,
      tenantId: org.tenantId,
      userId: row?.createdByUserId ?? 0,
      username: row?.createdByName ?? 'HMRC filing',
      isAdmin: false,
      ip: '',
      organization: org as unknown as HmrcContext['organization'],
    };
  }

  const actorOf = (row: SubmissionRow) => ({
    userId: row.createdByUserId ?? 0,
    username: row.createdByName,
    organizationId: row.organizationId,
  });

  /** What follows HMRC's answer, whoever received it (the request, a retry, the background job). */
  async function onSettled(row: SubmissionRow): Promise<void> {
    if (row.kind === 'cis300') {
      const period = row.period ?? '';
      if (row.state === 'accepted') {
        const receipt = row.receipt as { irmark: string; timestamp: string };
        const request = row.request as {
          lines?: Array<Omit<CisReturnLine, 'flags'>>;
          returnLines?: Array<Omit<CisReturnLine, 'flags'>>;
          totals?: CisReturn['totals'];
        };
        // A test submission to HMRC's own service is validated and never filed: the month stays to be filed.
        const filed = !row.gatewayTest || endpoints.kind === 'sandbox' || endpoints.kind === 'custom';
        if (filed) {
          const org = await repo.findOrganization(row.organizationId);
          if (org) {
            try {
              await cisReturns.markFiled(
                contextFor(org, row),
                period,
                today(),
                { irmark: receipt.irmark, timestamp: receipt.timestamp, correlationId: row.correlationId },
                {
                  // The return's own figures (pence) as read when sent; HMRC took payments in whole pounds.
                  lines: request.returnLines ?? request.lines ?? [],
                  totals: request.totals ?? { grossAmount: 0, materialsAmount: 0, deductionAmount: 0 },
                },
              );
            } catch (error) {
              // Already marked filed by hand: HMRC's receipt is kept here all the same.
              deps.log?.warn({ err: error, period }, 'marking an accepted return as filed failed');
            }
          }
        }
        await audit.recordFor(actorOf(row), {
          action: 'hmrc.return-accepted',
          target: period,
          result: 'success',
          detail: {
            period,
            correlationId: row.correlationId,
            receipt: row.receipt,
            gatewayTest: row.gatewayTest,
            markedFiled: filed,
          },
        });
      } else {
        await audit.recordFor(actorOf(row), {
          action: 'hmrc.return-rejected',
          target: period,
          result: 'failure',
          detail: {
            period,
            correlationId: row.correlationId,
            reasons: row.reasons,
            retryable: row.retryable,
          },
        });
      }
      return;
    }
    const contactId = row.contactId ?? '';
    const request = row.request as { utr: string; name: string };
    const results =
      (row.result as { results?: ReturnType<typeof readVerificationResults> } | null)?.results ?? [];
    const result = results.find((r) => r.utr === request.utr) ?? results[0];
    if (row.state === 'accepted' && result) {
      await repo.saveVerification({
        organizationId: row.organizationId,
        contactId,
        submissionId: row.id,
        matched: result.matched,
        taxTreatment: result.taxTreatment,
        rate: result.rate,
        verificationNumber: result.verificationNumber,
        utr: request.utr,
        nameSent: request.name,
        verifiedAt: row.answeredAt ?? new Date(),
        verifiedByUserId: row.createdByUserId,
        verifiedByName: row.createdByName,
      });
      await audit.recordFor(actorOf(row), {
        action: 'hmrc.subcontractor-verified',
        target: contactId,
        result: 'success',
        detail: {
          name: request.name,
          utr: request.utr,
          matched: result.matched,
          rate: result.rate,
          taxTreatment: result.taxTreatment,
          verificationNumber: result.verificationNumber,
        },
      });
    } else {
      await audit.recordFor(actorOf(row), {
        action: 'hmrc.subcontractor-verified',
        target: contactId,
        result: 'failure',
        detail: {
          name: request.name,
          utr: request.utr,
          reasons: row.reasons ?? [{ message: 'HMRC answered without a result for this subcontractor' }],
        },
      });
    }
  }

  const driver = createSubmissionDriver({
    repo,
    engine: () => engine,
    senderFor,
    onSettled,
    instanceId: deps.instanceId,
    ...(deps.log ? { log: deps.log } : {}),
    readResult: (row, answer) =>
      row.kind === 'verify' ? { results: readVerificationResults(answer.body) } : undefined,
  });

  function toSubmission(row: SubmissionRow): Submission {
    const request = row.request as { nil?: boolean; inactive?: boolean; lines?: Submission['lines'] };
    const receipt = row.receipt as Submission['receipt'] | null;
    return {
      id: row.id,
      period: row.period ?? '',
      state: row.state,
      correlationId: row.correlationId,
      ...(receipt ? { receipt } : {}),
      ...(row.reasons ? { errors: row.reasons as unknown as NonNullable<Submission['errors']> } : {}),
      retryable: row.retryable,
      nil: Boolean(request.nil),
      inactive: Boolean(request.inactive),
      gatewayTest: row.gatewayTest,
      submittedBy: row.createdByName,
      submittedAt: row.createdAt.toISOString(),
      answeredAt: row.answeredAt?.toISOString() ?? null,
      lines: request.lines ?? [],
      correction: row.state === 'accepted' ? CORRECTION_ROUTE : null,
    };
  }

  function toVerification(
    row: VerificationRow,
    xero: { cisEnabled: boolean | null; cisRate: number | null } | undefined,
  ): Verification {
    const xeroRate = xero?.cisEnabled ? (xero.cisRate ?? null) : null;
    return {
      contactId: row.contactId,
      matched: row.matched,
      rate: row.rate,
      taxTreatment: row.taxTreatment,
      verificationNumber: row.verificationNumber,
      verifiedAt: row.verifiedAt.toISOString(),
      verifiedBy: row.verifiedByName,
      utr: row.utr,
      xeroRate,
      // Xero's contact says another rate, or that the contact is not a CIS subcontractor at all: the screens say so.
      disagreesWithXero: xero?.cisEnabled === false || (xeroRate !== null && xeroRate !== row.rate),
    };
  }

  function requireEngine(): TransactionEngine {
    if (!engine) throw new AppError('UNPROCESSABLE', NOT_SET_UP);
    return engine;
  }

  function rulesError(error: unknown): never {
    if (error instanceof MessageRulesError)
      throw new AppError(
        'UNPROCESSABLE',
        `HMRC would refuse this: ${error.problems.map((p) => p.message).join(' ')}`,
        undefined,
        {
          problems: error.problems,
        },
      );
    throw error;
  }

  async function contractorRefs(ctx: HmrcContext) {
    const settings = await cisReturns.getSettings(ctx);
    const missing = [
      settings.utr ? null : "the contractor's UTR",
      settings.employerReference ? null : 'the employer reference',
      settings.accountsOfficeReference ? null : 'the accounts office reference',
    ].filter((m): m is string => m !== null);
    if (missing.length > 0)
      throw new AppError(
        'UNPROCESSABLE',
        `Before sending to HMRC, add ${missing.join(', ')} in Settings → CIS.`,
      );
    return {
      utr: settings.utr ?? '',
      employerReference: settings.employerReference ?? '',
      accountsOfficeReference: settings.accountsOfficeReference ?? '',
    };
  }

  return {
    driver,

    // ---- Set-up ---------------------------------------------------------------------------------------------

    async getSetup(ctx: HmrcContext): Promise<HmrcSetup> {
      const row = await repo.findCredentials(ctx.organizationId);
      const userId = row?.senderIdEnc ? box.decrypt(row.senderIdEnc) : null;
      return {
        configured: Boolean(row?.senderIdEnc && row.passwordEnc),
        userIdHint: userId ? hint(userId) : null,
        updatedAt: row?.senderIdEnc ? row.updatedAt.toISOString() : null,
        updatedBy: row?.senderIdEnc ? (row.updatedByName ?? null) : null,
        endpoint: endpoints.kind,
        gatewayTest: endpoints.gatewayTest,
        mail: deps.mailer.mode,
        remindersEnabled: row?.remindersEnabled ?? false,
        reminderEmail: row?.reminderEmail ?? null,
      };
    },

    async saveCredentials(ctx: HmrcContext, input: { userId: string; password: string }): Promise<HmrcSetup> {
      if (!ctx.isAdmin)
        throw new AppError(
          'FORBIDDEN',
          "Only an administrator can change the organisation's HMRC credentials",
        );
      await repo.saveCredentials(ctx.organizationId, {
        senderIdEnc: box.encrypt(input.userId),
        passwordEnc: box.encrypt(input.password),
        updatedByUserId: ctx.userId,
        updatedByName: ctx.username,
      });
      // Never the credentials themselves: that they changed, and by whom.
      await audit.recordFor(ctx, {
        action: 'hmrc.credentials',
        target: String(ctx.organizationId),
        result: 'success',
        detail: { change: 'saved', userIdHint: hint(input.userId) },
      });
      return this.getSetup(ctx);
    },

    async deleteCredentials(ctx: HmrcContext): Promise<HmrcSetup> {
      if (!ctx.isAdmin)
        throw new AppError(
          'FORBIDDEN',
          "Only an administrator can change the organisation's HMRC credentials",
        );
      await repo.saveCredentials(ctx.organizationId, {
        senderIdEnc: null,
        passwordEnc: null,
        updatedByUserId: ctx.userId,
        updatedByName: ctx.username,
      });
      await audit.recordFor(ctx, {
        action: 'hmrc.credentials',
        target: String(ctx.organizationId),
        result: 'success',
        detail: { change: 'removed' },
      });
      return this.getSetup(ctx);
    },

    async saveReminders(
      ctx: HmrcContext,
      input: { enabled: boolean; email?: string | null | undefined },
    ): Promise<HmrcSetup> {
      const email = input.email ? input.email.trim() : null;
      if (input.enabled && !email)
        throw new AppError('VALIDATION_ERROR', 'Enter the email address the reminder goes to');
      await repo.saveCredentials(ctx.organizationId, {
        remindersEnabled: input.enabled,
        reminderEmail: email,
      });
      await audit.recordFor(ctx, {
        action: 'hmrc.reminders',
        target: String(ctx.organizationId),
        result: 'success',
        detail: { enabled: input.enabled, email },
      });
      return this.getSetup(ctx);
    },

    // ---- Verification ---------------------------------------------------------------------------------------

    /**
     * The subcontractors of the organisation with what HMRC's rule asks and their latest verification. HMRC's rule
     * (CISR51050): verify a subcontractor before paying them unless they were paid in this tax year or the two before
     * it. Without `period` it is asked as of today, before the next payment (CIS Bills); with one, as it stood for
     * that tax month's payments (CIS Returns: "verified where the rules require it", the return's declaration):
     * payments before the month, and verifications made by its end.
     */
    async listSubcontractors(ctx: HmrcContext, period: string | null = null): Promise<SubcontractorStatus[]> {
      const group = ctx.organization.defaultCisSubcontractorsGroupId;
      // CIS Bills' subcontractors: the CIS group's members when one is chosen, else the suppliers; and any contact
      // Xero has CIS on for (docs/architecture.md §4, CIS Bills).
      const contacts = (await repo.findContacts(ctx.organizationId)).filter(
        (c) =>
          c.status !== 'ARCHIVED' &&
          (c.cisEnabled === true || (group ? c.groupIds.includes(group) : c.isSupplier)),
      );
      const ids = contacts.map((c) => c.contactId);
      const month = period ? getTaxMonth(period) : null;
      const [lastPaid, utrs, verifications, open] = await Promise.all([
        repo.findLastPaid(ctx.organizationId, month?.start ?? null),
        repo.findUtrs(ctx.organizationId, ids),
        repo.findVerifications(ctx.organizationId, ids),
        repo.findOpenVerifications(ctx.organizationId),
      ]);
      // As of a month: its first day (a tax year starts on 6 April, the first day of a tax month).
      const asOf = month?.start ?? today();
      const utrOf = new Map(utrs.map((u) => [u.contactId, u.utr]));
      const verificationOf = new Map(verifications.map((v) => [v.contactId, v]));
      const sending = new Set(open.map((o) => o.contactId));
      return contacts
        .map((c) => {
          const paid = lastPaid.get(c.contactId.toLowerCase()) ?? null;
          const v = verificationOf.get(c.contactId);
          const verifiedOn = v ? v.verifiedAt.toISOString().slice(0, 10) : null;
          // A verification counts as a first contact with HMRC: the rule is then about payments since. For a month,
          // only one made by its end counts.
          const counts = verifiedOn !== null && (!month || verifiedOn <= month.end);
          const since = counts ? ([paid, verifiedOn].filter(Boolean).sort().at(-1) ?? null) : paid;
          return {
            contactId: c.contactId,
            name: c.name,
            utr: utrOf.get(c.contactId) ?? null,
            email: c.email,
            lastPaidOn: paid,
            needsVerification: isVerificationNeeded(since, asOf),
            reason: verificationReason(since, asOf, month ? 'month' : 'today'),
            verification: v ? toVerification(v, c) : null,
            sending: sending.has(c.contactId),
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name, 'en-GB'));
    },

    /** The verified rates of these contacts (the same reader the wiring hands CIS Bills and CIS Returns). */
    findVerifiedRates: createVerifiedRates(repo),

    async getVerification(
      ctx: HmrcContext,
      contactId: string,
    ): Promise<Verification | { state: 'sending'; message: string }> {
      const id = contactId.toLowerCase();
      const open = await repo.findOpenVerification(ctx.organizationId, id);
      if (open) {
        const row = await driver.drive(open.id, 0);
        if (row.state === 'sending') return { state: 'sending', message: 'HMRC has not answered yet.' };
      }
      const [row] = await repo.findVerifications(ctx.organizationId, [id]);
      if (!row)
        throw new AppError('NOT_FOUND', 'This subcontractor has not been verified with HMRC from Ledgerlink');
      const [contact] = await repo.findContacts(ctx.organizationId, [id]);
      return toVerification(row, contact);
    },

    async verify(
      ctx: HmrcContext,
      contactId: string,
      input: z.output<typeof verificationRequestSchema>,
      key: string | null,
    ): Promise<Verification | { state: 'sending'; message: string }> {
      requireEngine();
      const id = contactId.toLowerCase();
      const answer = async (row: SubmissionRow) => {
        const done = await driver.drive(row.id, waitVerify);
        if (done.state === 'sending')
          return {
            state: 'sending' as const,
            message: 'HMRC has not answered yet: the answer will show here when it comes.',
          };
        if (done.state === 'rejected') {
          const reasons = (done.reasons ?? []) as Array<{ message: string }>;
          throw new AppError(
            'UNPROCESSABLE',
            `HMRC did not verify this subcontractor: ${reasons.map((r) => r.message).join(' ')}`,
            undefined,
            { errors: done.reasons },
          );
        }
        return this.getVerification(ctx, id);
      };
      if (key) {
        const same = await repo.findByKey(ctx.organizationId, 'verify', key);
        if (same) return answer(same);
      }
      const open = await repo.findOpenVerification(ctx.organizationId, id);
      if (open) return answer(open);

      const credentials = await readCredentials(ctx.organizationId);
      if (!credentials) throw new AppError('UNPROCESSABLE', NO_CREDENTIALS);
      await deps.syncContacts(ctx, false).catch(() => undefined);
      await deps.checkCisContacts(ctx, [id]).catch(() => undefined);
      const [contact] = await repo.findContacts(ctx.organizationId, [id]);
      if (!contact) throw new AppError('NOT_FOUND', 'Contact not found in Xero');
      const [kept] = await repo.findUtrs(ctx.organizationId, [id]);
      const utr = (input.utr ?? kept?.utr ?? '').replace(/\s+/g, '');
      if (!utr)
        throw new AppError(
          'UNPROCESSABLE',
          `Add ${contact.name}'s UTR first: HMRC verifies a subcontractor by it.`,
        );
      const contractor = await contractorRefs(ctx);
      const type = input.type ?? guessType(input.tradingName ?? contact.name);
      const name =
        input.firstName && input.surname
          ? { fore: input.firstName, sur: input.surname }
          : { tradingName: input.tradingName ?? contact.name };
      const nameSent = 'tradingName' in name ? name.tradingName : `${name.fore} ${name.sur}`;
      let built;
      try {
        built = buildVerificationRequest({
          contractor,
          periodEnd: getTaxMonth(getPeriodOf(today())).end,
          subcontractors: [
            {
              type,
              name,
              utr,
              nino: input.nino,
              crn: input.crn,
              partnership: input.partnershipUtr
                ? { name: input.partnershipName ?? String(nameSent), utr: input.partnershipUtr }
                : null,
            },
          ],
        });
      } catch (error) {
        rulesError(error);
      }
      // A UTR typed here is kept as the subcontractor's, as if typed on CIS Returns.
      if (input.utr && input.utr.replace(/\s+/g, '') !== kept?.utr)
        await cisReturns.updateRefs(ctx, id, { utr, verificationNumber: kept?.verificationNumber ?? null });
      const transactionId = driver.newTransactionId();
      const who = await senderFor(ctx.organizationId);
      if (!who) throw new AppError('UNPROCESSABLE', NO_CREDENTIALS);
      const prepared = prepareSubmission({
        messageClass: 'IR-CIS-VERIFY',
        transactionId,
        sender: who.sender,
        keys: built.keys,
        envelope: built.envelope,
        timestamp: new Date().toISOString().slice(0, 19),
      });
      const row = await repo.insertSubmission({
        organizationId: ctx.organizationId,
        kind: 'verify',
        contactId: id,
        state: 'sending',
        phase: 'recorded',
        idempotencyKey: key,
        transactionId,
        irmark: prepared.irmark.base64,
        irmarkBase32: prepared.irmark.base32,
        gatewayTest: endpoints.gatewayTest,
        requestXml: prepared.recorded,
        request: { utr, name: nameSent, type, contactName: contact.name },
        createdByUserId: ctx.userId,
        createdByName: ctx.username,
      });
      if (!row) {
        // Another verification of this subcontractor (or this key) got there first: its outcome is the answer.
        const first =
          (key ? await repo.findByKey(ctx.organizationId, 'verify', key) : null) ??
          (await repo.findOpenVerification(ctx.organizationId, id));
        if (first) return answer(first);
        return this.getVerification(ctx, id);
      }
      return answer(row);
    },

    // ---- The monthly return ---------------------------------------------------------------------------------

    async getSubmission(ctx: HmrcContext, period: string): Promise<Submission> {
      const row = await repo.findReturn(ctx.organizationId, period);
      if (!row) throw new AppError('NOT_FOUND', 'This return has not been sent to HMRC from Ledgerlink');
      const current = row.state === 'sending' ? await driver.drive(row.id, 0) : row;
      return toSubmission(current);
    },

    async submitReturn(
      ctx: HmrcContext,
      period: string,
      input: {
        declarations: { employmentStatus: boolean; verification: boolean; informationCorrect: boolean };
        inactive?: boolean | undefined;
      },
      key: string | null,
    ): Promise<Submission> {
      requireEngine();
      const answer = async (row: SubmissionRow) => toSubmission(await driver.drive(row.id, waitSubmit));
      if (key) {
        const same = await repo.findByKey(ctx.organizationId, 'cis300', key);
        if (same) return answer(same);
      }
      const existing = await repo.findReturn(ctx.organizationId, period);
      // Never filed twice: a month on its way or accepted answers with that submission, whoever sends again.
      if (existing && existing.state !== 'rejected') return answer(existing);

      const now = today();
      const month = getTaxMonth(period);
      if (!hasPeriodEnded(period, now))
        throw new AppError(
          'UNPROCESSABLE',
          `The return for the tax month ending ${month.end} can be sent once the month has ended`,
        );
      if (!(await readCredentials(ctx.organizationId))) throw new AppError('UNPROCESSABLE', NO_CREDENTIALS);
      const ret = await cisReturns.getReturn(ctx, period, true);
      if (ret.filing) {
        // Another administrator's submission may have reached HMRC since this request looked (two at once, under
        // load): the month is then filed by it, and this request answers with its outcome, not a refusal.
        const sent = await repo.findReturn(ctx.organizationId, period);
        if (sent && sent.state !== 'rejected') return answer(sent);
        throw new AppError(
          'CONFLICT',
          `This return is already marked as filed (on ${ret.filing.filedOn} by ${ret.filing.filedBy}): nothing was sent. If HMRC does not have it, an administrator can undo the mark and send it from here.`,
        );
      }
      // One rule decides what may be filed (getFilingRefusal): what a person marking the month filed would be
      // refused for, the submission is refused for, before anything is sent. The return's lines already carry the
      // verification number HMRC answered a verification from Ledgerlink with (issue 43).
      const refusal = getFilingRefusal(ret.checks, 'sent to HMRC');
      if (refusal)
        throw new AppError('UNPROCESSABLE', refusal.message, undefined, { missing: refusal.missing });
      const contractor = await contractorRefs(ctx);
      const returnLines = ret.lines.map(({ flags: _flags, ...line }) => line);
      const lines = ret.lines.map((l) => ({
        contactId: l.contactId,
        name: l.name,
        utr: l.utr,
        verificationNumber: l.rate === CIS_HIGHER_RATE ? l.verificationNumber : null,
        rate: l.rate,
        grossAmount: fromPence(toWholePoundsPence(toPence(l.grossAmount))),
        materialsAmount: fromPence(toWholePoundsPence(toPence(l.materialsAmount))),
        deductionAmount: l.deductionAmount,
      }));
      const nil = lines.length === 0;
      let built;
      try {
        built = buildMonthlyReturn({
          contractor,
          periodEnd: month.end,
          inactive: Boolean(input.inactive),
          declarations: input.declarations,
          subcontractors: lines.map((l) => ({
            name: { tradingName: l.name },
            utr: l.utr,
            verificationNumber: l.verificationNumber,
            unmatched: l.rate === CIS_HIGHER_RATE,
            grossPence: toPence(l.grossAmount),
            materialsPence: toPence(l.materialsAmount),
            deductionPence: toPence(l.deductionAmount),
          })),
        });
      } catch (error) {
        rulesError(error);
      }
      const who = await senderFor(ctx.organizationId);
      if (!who) throw new AppError('UNPROCESSABLE', NO_CREDENTIALS);
      const transactionId = driver.newTransactionId();
      const prepared = prepareSubmission({
        messageClass: 'IR-CIS-CIS300MR',
        transactionId,
        sender: who.sender,
        keys: built.keys,
        envelope: built.envelope,
        timestamp: new Date().toISOString().slice(0, 19),
      });
      const row = await repo.insertSubmission({
        organizationId: ctx.organizationId,
        kind: 'cis300',
        period,
        state: 'sending',
        phase: 'recorded',
        idempotencyKey: key,
        transactionId,
        irmark: prepared.irmark.base64,
        irmarkBase32: prepared.irmark.base32,
        gatewayTest: endpoints.gatewayTest,
        requestXml: prepared.recorded,
        request: { period, nil, inactive: Boolean(input.inactive), lines, returnLines, totals: ret.totals },
        declarations: input.declarations,
        createdByUserId: ctx.userId,
        createdByName: ctx.username,
      });
      if (!row) {
        // Two people at once: the one recorded first is the month's submission, and its outcome the answer.
        const first =
          (key ? await repo.findByKey(ctx.organizationId, 'cis300', key) : null) ??
          (await repo.findReturn(ctx.organizationId, period));
        if (first && first.state !== 'rejected') return answer(first);
        throw new AppError(
          'CONFLICT',
          'Another return for this month was being sent at the same moment: read it again.',
        );
      }
      await audit.recordFor(ctx, {
        action: 'hmrc.return-sending',
        target: period,
        result: 'success',
        detail: {
          period,
          nil,
          inactive: Boolean(input.inactive),
          subcontractors: lines.length,
          deductionAmount: ret.totals.deductionAmount,
          gatewayTest: endpoints.gatewayTest,
          transactionId,
        },
      });
      return answer(row);
    },

    // ---- Statements by email -------------------------------------------------------------------------------

    async emailStatement(ctx: HmrcContext, period: string, contactId: string): Promise<StatementEmail> {
      if (deps.mailer.mode === 'off')
        throw new AppError(
          'UNPROCESSABLE',
          'Email is not set up on this server: an administrator sets SMTP_URL (docs/hmrc.md).',
        );
      const statements = await cisReturns.getStatements(ctx, period, contactId);
      // The address Xero holds now: what changed in Xero since the last look is read first (one call).
      await deps.syncContacts(ctx, true).catch(() => undefined);
      const id = contactId.toLowerCase();
      const [contact] = await repo.findContacts(ctx.organizationId, [id]);
      const first = statements[0];
      const name = contact?.name ?? first?.line.name ?? 'the subcontractor';
      const to = contact?.email?.trim();
      if (!to)
        throw new AppError(
          'UNPROCESSABLE',
          `Xero holds no email address for ${name}: add one to the contact in Xero, then send again.`,
        );
      const month = getTaxMonth(period);
      const pdf = Buffer.from(await cisReturns.renderStatementsPdf(statements));
      const contractorName = String(
        (first as { contractorName?: string } | undefined)?.contractorName ??
          ctx.organization.tenantName ??
          'Your contractor',
      );
      const sent = await deps.mailer.send({
        organizationId: ctx.organizationId,
        to,
        subject: `CIS payment and deduction statement: tax month to ${month.end} from ${contractorName}`,
        text: [
          `Dear ${name},`,
          '',
          `Attached is your CIS payment and deduction statement from ${contractorName} for the tax month ${month.start} to ${month.end}.`,
          'Keep it: it shows the payments made to you and the tax deducted, which count towards your tax and National Insurance.',
          '',
          contractorName,
        ].join('\n'),
        attachments: [
          {
            filename: cisReturns.statementFileName(period, name),
            contentType: 'application/pdf',
            content: pdf,
          },
        ],
      });
      const row = await repo.insertStatementEmail({
        organizationId: ctx.organizationId,
        period,
        contactId: id,
        sentTo: to,
        messageId: sent.messageId,
        sentByUserId: ctx.userId,
        sentByName: ctx.username,
      });
      await audit.recordFor(ctx, {
        action: 'cis-returns.statement-emailed',
        target: id,
        result: 'success',
        detail: { period, name, to, via: sent.via, messageId: sent.messageId },
      });
      return {
        contactId: id,
        period,
        to,
        sentAt: (row?.sentAt ?? new Date()).toISOString(),
        sentBy: ctx.username,
        via: sent.via,
      };
    },

    async listStatementEmails(ctx: HmrcContext, period: string): Promise<StatementEmail[]> {
      const rows = await repo.findStatementEmails(ctx.organizationId, period);
      return rows.map((r) => ({
        contactId: r.contactId,
        period: r.period,
        to: r.sentTo,
        sentAt: r.sentAt.toISOString(),
        sentBy: r.sentByName,
      }));
    },

    // ---- Deadlines -----------------------------------------------------------------------------------------

    async getDeadline(ctx: HmrcContext): Promise<CisDeadline> {
      const now = today();
      // The month whose return is due next: the one that ended most recently (due on the 19th after it).
      const current = getPeriodOf(now);
      const period = shiftPeriod(current, 1);
      const month = getTaxMonth(period);
      const earlier = Array.from({ length: 12 }, (_, i) => shiftPeriod(period, i + 1));
      const [filedMarks, accepted, credentials] = await Promise.all([
        repo.findFiledPeriods(ctx.organizationId, [period, ...earlier]),
        repo.findAcceptedPeriods(ctx.organizationId, [period, ...earlier]),
        repo.findCredentials(ctx.organizationId),
      ]);
      const isFiled = (p: string) => filedMarks.has(p) || accepted.has(p);
      const filed = isFiled(period);
      return {
        today: now,
        period,
        end: month.end,
        returnDueDate: month.dueDate,
        statementsDueDate: month.statementDueDate,
        paymentDueDate: month.paymentDueDate,
        daysToDue: getDaysBetween(now, month.dueDate),
        state: filed ? 'filed' : now > month.dueDate ? 'overdue' : 'due',
        reminderDate: getReminderDate(period),
        remindersEnabled: credentials?.remindersEnabled ?? false,
        overdueEarlier: earlier.filter((p) => !isFiled(p)).length,
      };
    },

    /** The background job: 5 days before the 19th, one email per month not filed, to whoever asked for it. */
    async sendReminders(): Promise<void> {
      if (deps.mailer.mode === 'off') return;
      const now = today();
      const period = shiftPeriod(getPeriodOf(now), 1);
      const month = getTaxMonth(period);
      if (now < getReminderDate(period) || now > month.dueDate) return;
      for (const { organizationId, email } of await repo.findReminderOrganizations()) {
        if (!email) continue;
        const filed =
          (await repo.findFiledPeriods(organizationId, [period])).has(period) ||
          (await repo.findAcceptedPeriods(organizationId, [period])).has(period);
        if (filed) continue;
        if (!(await repo.claimReminder(organizationId, period, email))) continue;
        const org = await repo.findOrganization(organizationId);
        try {
          await deps.mailer.send({
            organizationId,
            to: email,
            subject: `CIS return due ${month.dueDate}: tax month to ${month.end}${org?.tenantName ? ` (${org.tenantName})` : ''}`,
            text: [
              `The CIS monthly return of ${org?.tenantName ?? 'your organisation'} for the tax month ${month.start} to ${month.end} is not filed yet.`,
              '',
              `It is due by ${month.dueDate}; subcontractors' statements by ${month.statementDueDate}; the deductions paid to HMRC by ${month.paymentDueDate}.`,
              "HMRC charges £100 as soon as a return is late. Send it from Ledgerlink's CIS Returns page.",
            ].join('\n'),
          });
          await audit.record({
            organizationId,
            action: 'hmrc.reminder',
            target: period,
            result: 'success',
            detail: { to: email, dueDate: month.dueDate },
          });
        } catch (error) {
          await repo.releaseReminder(organizationId, period);
          deps.log?.warn({ err: error, organizationId }, 'the CIS deadline reminder could not be sent');
        }
      }
    },

    // ---- Demo outbox ---------------------------------------------------------------------------------------

    findOutbox: (organizationIds: readonly number[]) => repo.findOutbox(organizationIds),
    findOutboxAttachment: (messageId: number, position: number) =>
      repo.findOutboxAttachment(messageId, position),
    findOutboxRaw: (messageId: number) => repo.findOutboxRaw(messageId),
  };
}
export type HmrcFilingService = ReturnType<typeof createHmrcFilingService>;
