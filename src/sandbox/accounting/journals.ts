/**
 * Manual journals: create (PUT/POST), update (POST), list and get. Lines: debit positive, credit
 * negative, at least two, debits = credits, no bank or AR/AP system accounts. DRAFT → POSTED/DELETED,
 * POSTED → VOIDED; lines editable only while DRAFT. docs/xero-api.md §4.7.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rateOf } from '../invoice-math';
import { formatPounds, hasMoreDecimals, lineTaxPence, penceFrom, type LineAmountTypes } from '../money';
import { nextUpdated, type Runtime } from '../runtime';
import type { JournalLineRec, JournalRec, JournalStatus, OrgRec } from '../state';
import { dayToMs, isoDay, parseModifiedSince, parseRequestDay } from '../xero-dates';
import {
  ElementErrors,
  elementsOf,
  isPlainObject,
  runBatch,
  summarizeFlag,
  UUID_RE,
  type ElementOutcome,
} from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiContext, type ApiRouteConfig } from './pipeline';
import { compileOrder, compileWhere, paginate, readPaging, type FieldMap } from './query';
import { journalJson } from './serialize';

const STATUSES: JournalStatus[] = ['DRAFT', 'POSTED', 'DELETED', 'VOIDED', 'ARCHIVED'];
const ALLOWED: Record<JournalStatus, JournalStatus[]> = {
  DRAFT: ['DRAFT', 'POSTED', 'DELETED'],
  POSTED: ['POSTED', 'VOIDED'],
  DELETED: ['DELETED'],
  VOIDED: ['VOIDED'],
  ARCHIVED: ['ARCHIVED'],
};

const journalFields: FieldMap<JournalRec> = {
  manualjournalid: (j) => j.ManualJournalID,
  narration: (j) => j.Narration,
  status: (j) => j.Status,
  date: (j) => ({ kind: 'date', ms: dayToMs(j.Date) }),
  updateddateutc: (j) => ({ kind: 'date', ms: j.updatedMs }),
  lineamounttypes: (j) => j.LineAmountTypes,
};

function parseLines(org: OrgRec, raw: unknown, mode: LineAmountTypes, errors: string[]): JournalLineRec[] {
  if (!Array.isArray(raw)) {
    errors.push('JournalLines must be specified');
    return [];
  }
  const lines: JournalLineRec[] = [];
  raw.forEach((l, i) => {
    const n = i + 1;
    if (!isPlainObject(l)) {
      errors.push(`Journal line ${n} is not valid`);
      return;
    }
    const amount = penceFrom(l.LineAmount);
    if (amount === null) errors.push(`Journal line ${n}: LineAmount must be specified`);
    else if (hasMoreDecimals(l.LineAmount, 2))
      errors.push(`Journal line ${n}: LineAmount can have at most 2 decimal places`);
    const code = typeof l.AccountCode === 'string' ? l.AccountCode : undefined;
    const id = typeof l.AccountID === 'string' ? l.AccountID.toLowerCase() : undefined;
    const account =
      code !== undefined
        ? org.accounts.find((a) => a.Code === code)
        : id
          ? org.accounts.find((a) => a.AccountID === id)
          : undefined;
    const shown = code ?? id ?? '';
    if (!code && !id) errors.push(`Journal line ${n}: an AccountCode or AccountID must be specified`);
    else if (!account || account.Status !== 'ACTIVE')
      errors.push(`Account code '${shown}' is not a valid code for this document.`);
    else if (account.Type === 'BANK')
      errors.push(
        `Account '${account.Name}' is a bank account: bank accounts cannot be used in manual journals.`,
      );
    else if (account.SystemAccount === 'DEBTORS' || account.SystemAccount === 'CREDITORS')
      errors.push(`Account '${account.Name}' is a system account and cannot be used in manual journals.`);
    const taxType =
      mode === 'NoTax' ? 'NONE' : typeof l.TaxType === 'string' ? l.TaxType : (account?.TaxType ?? 'NONE');
    if (mode !== 'NoTax' && !org.taxRates.some((t) => t.TaxType === taxType && t.Status === 'ACTIVE')) {
      errors.push(
        `The TaxType code '${taxType}' does not exist or cannot be used for this type of transaction.`,
      );
    }
    const lineAmount = amount ?? 0;
    lines.push({
      lineAmount,
      taxAmount: lineTaxPence(lineAmount, rateOf(org.taxRates, taxType), mode),
      AccountID: account?.AccountID ?? '',
      ...(account?.Code ? { AccountCode: account.Code } : {}),
      Description: typeof l.Description === 'string' ? l.Description : '',
      TaxType: taxType,
    });
  });
  if (lines.length < 2) errors.push('A manual journal must have at least two journal lines');
  const total = (l: JournalLineRec): number =>
    mode === 'Exclusive' ? l.lineAmount + l.taxAmount : l.lineAmount;
  const debits = lines.filter((l) => total(l) > 0).reduce((s, l) => s + total(l), 0);
  const credits = -lines.filter((l) => total(l) < 0).reduce((s, l) => s + total(l), 0);
  if (lines.length >= 2 && debits !== credits)
    errors.push(
      `The total debits (${formatPounds(debits)}) must equal total credits (${formatPounds(credits)})`,
    );
  return lines;
}

function validateEnums(el: Record<string, unknown>): void {
  if (el.Status !== undefined && !STATUSES.includes(el.Status as JournalStatus))
    throw XeroError.postDataInvalid(`Invalid value '${String(el.Status)}' for Status`);
  if (
    el.LineAmountTypes !== undefined &&
    !['Exclusive', 'Inclusive', 'NoTax'].includes(String(el.LineAmountTypes))
  ) {
    throw XeroError.postDataInvalid(
      `Invalid value '${String(el.LineAmountTypes)}' for LineAmountTypes. Use Exclusive, Inclusive or NoTax`,
    );
  }
}

function applyJournal(
  ctx: ApiContext,
  el: Record<string, unknown>,
  pathId: string | undefined,
): ElementOutcome {
  const { rt, org } = ctx;
  validateEnums(el);
  const errors: string[] = [];
  const idText = pathId ?? (typeof el.ManualJournalID === 'string' ? el.ManualJournalID : undefined);
  const existing = idText ? org.journals.find((j) => j.ManualJournalID === idText.toLowerCase()) : undefined;
  if (idText && !existing) {
    if (pathId) throw XeroError.notFound();
    throw new ElementErrors([`Manual journal with ID '${idText}' could not be found`]);
  }
  const record = (
    j: JournalRec,
    action: 'create' | 'update' | 'post' | 'void' | 'delete',
    previousStatus?: string,
  ) => {
    const debit = j.lines.filter((l) => l.lineAmount > 0).reduce((s, l) => s + l.lineAmount, 0);
    rt.ledger.recordWrite({
      tenantId: org.OrganisationID,
      tenantName: org.Name,
      kind: 'journal',
      action,
      id: j.ManualJournalID,
      summary: {
        narration: j.Narration,
        date: j.Date,
        status: j.Status,
        previousStatus: previousStatus ?? null,
        amount: debit / 100,
      },
    });
    rt.markDirty();
  };
  if (!existing) {
    const narration = typeof el.Narration === 'string' ? el.Narration.trim() : '';
    if (!narration) errors.push('Narration cannot be empty');
    const status = (el.Status as JournalStatus | undefined) ?? 'DRAFT';
    if (status !== 'DRAFT' && status !== 'POSTED')
      errors.push(`A new manual journal cannot be created with status ${status}`);
    const date = el.Date === undefined ? isoDay(rt.now()) : parseRequestDay(el.Date);
    if (date === null) errors.push('Date is not a valid date');
    if (org.periodLockDate && date && date <= org.periodLockDate)
      errors.push('The journal date cannot be on or before the period lock date');
    const mode = (el.LineAmountTypes as LineAmountTypes | undefined) ?? 'NoTax';
    const lines = parseLines(org, el.JournalLines, mode, errors);
    if (errors.length > 0 || !date) return { ok: false, echo: el, errors };
    const journal: JournalRec = {
      ManualJournalID: randomUUID(),
      Narration: narration,
      Date: date,
      Status: status,
      LineAmountTypes: mode,
      ShowOnCashBasisReports: el.ShowOnCashBasisReports !== false,
      ...(typeof el.Url === 'string' ? { Url: el.Url } : {}),
      lines,
      updatedMs: rt.now(),
    };
    org.journals.push(journal);
    return {
      ok: true,
      json: journalJson(org, journal),
      undo: () => {
        org.journals = org.journals.filter((j) => j !== journal);
      },
      commit: () => record(journal, 'create'),
    };
  }
  const j = existing;
  const before = structuredClone(j);
  const target = (el.Status as JournalStatus | undefined) ?? j.Status;
  if (!ALLOWED[j.Status].includes(target))
    errors.push(`The status of a ${j.Status} manual journal cannot be changed to ${target}`);
  const editsLines = ['JournalLines', 'LineAmountTypes', 'Date', 'Narration'].some(
    (k) => el[k] !== undefined,
  );
  if (editsLines && j.Status !== 'DRAFT') errors.push(`A ${j.Status} manual journal cannot be edited`);
  if (errors.length > 0) return { ok: false, echo: { ...el, ManualJournalID: j.ManualJournalID }, errors };
  if (typeof el.Narration === 'string') {
    if (!el.Narration.trim()) errors.push('Narration cannot be empty');
    j.Narration = el.Narration.trim();
  }
  if (el.Date !== undefined) {
    const d = parseRequestDay(el.Date);
    if (d) j.Date = d;
    else errors.push('Date is not a valid date');
  }
  const mode = (el.LineAmountTypes as LineAmountTypes | undefined) ?? j.LineAmountTypes;
  if (el.JournalLines !== undefined) {
    j.lines = parseLines(org, el.JournalLines, mode, errors);
    j.LineAmountTypes = mode;
  }
  if (el.ShowOnCashBasisReports !== undefined) j.ShowOnCashBasisReports = el.ShowOnCashBasisReports === true;
  if (typeof el.Url === 'string') j.Url = el.Url;
  j.Status = target;
  if (errors.length > 0) {
    Object.assign(j, before);
    return { ok: false, echo: { ...el, ManualJournalID: j.ManualJournalID }, errors };
  }
  const changed = JSON.stringify(before) !== JSON.stringify(j);
  if (changed) j.updatedMs = nextUpdated(rt, before.updatedMs);
  const action =
    target === before.Status
      ? 'update'
      : target === 'POSTED'
        ? 'post'
        : target === 'VOIDED'
          ? 'void'
          : target === 'DELETED'
            ? 'delete'
            : 'update';
  return {
    ok: true,
    json: journalJson(org, j),
    undo: () => {
      Object.assign(j, before);
    },
    commit: () => {
      if (changed) record(j, action, before.Status);
    },
  };
}

export function registerJournalRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'journals' };
  const write: ApiRouteConfig = { scope: 'journals', write: true };

  app.get('/ManualJournals', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    let items = org.journals;
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((j) => j.updatedMs > since);
    const where = compileWhere(q.where, journalFields, 'ManualJournal');
    if (where) items = items.filter(where);
    const order =
      compileOrder(q.order, journalFields, 'ManualJournal') ??
      ((a: JournalRec, b: JournalRec) => a.updatedMs - b.updatedMs);
    items = [...items].sort(order);
    const page = paginate(items, readPaging(q));
    return reply.send(
      envelope(
        rt,
        'ManualJournals',
        page.items.map((j) => journalJson(org, j)),
        page.pagination ? { pagination: page.pagination } : {},
      ),
    );
  });

  app.get<{ Params: { ManualJournalID: string } }>(
    '/ManualJournals/:ManualJournalID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.ManualJournalID.toLowerCase();
      const journal = UUID_RE.test(id) ? org.journals.find((j) => j.ManualJournalID === id) : undefined;
      if (!journal) throw XeroError.notFound();
      return reply.send(envelope(rt, 'ManualJournals', [journalJson(org, journal)]));
    },
  );

  const handler =
    (allowUpdate: boolean) =>
    async (request: FastifyRequest<{ Params: { ManualJournalID?: string } }>, reply: FastifyReply) => {
      const ctx = ctxOf(request);
      const elements = elementsOf(request.body, 'ManualJournals');
      const pathId = request.params.ManualJournalID;
      if (pathId && elements.length !== 1)
        throw XeroError.postDataInvalid('Only one manual journal can be updated at this address');
      const results = runBatch(elements, summarizeFlag(ctx.q), 'HasErrors', (el) => {
        if (!allowUpdate && el.ManualJournalID !== undefined)
          throw new ElementErrors(['PUT creates new manual journals only: use POST to update']);
        return applyJournal(ctx, el, pathId);
      });
      return reply.send(envelope(rt, 'ManualJournals', results));
    };
  app.put('/ManualJournals', apiRoute(write), handler(false));
  app.post('/ManualJournals', apiRoute(write), handler(true));
  app.post('/ManualJournals/:ManualJournalID', apiRoute(write), handler(true));
}
