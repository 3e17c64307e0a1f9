/**
 * Invoices (ACCREC sales, ACCPAY bills): list with filters/paging/If-Modified-Since/order, get one,
 * create (PUT/POST) and update (POST) with Xero's status rules and per-line totals. docs/xero-api.md §4.1.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { amountDue, applyTotals, priceLine } from '../invoice-math';
import {
  hasMoreDecimals,
  lineAmountPence,
  penceFrom,
  toScaled,
  formatPounds,
  type LineAmountTypes,
} from '../money';
import { nextUpdated, type Runtime } from '../runtime';
import type { ContactRec, InvoiceRec, InvoiceStatus, InvoiceType, LineRec, OrgRec } from '../state';
import { addDays, dayToMs, isoDay, msDateTime, parseModifiedSince, parseRequestDay } from '../xero-dates';
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
import { compileOrder, compileWhere, listParam, paginate, readPaging, type FieldMap } from './query';
import { indexOrg, invoiceJson, type Json } from './serialize';

const TYPES = [
  'ACCPAY',
  'ACCPAYCREDIT',
  'APOVERPAYMENT',
  'APPREPAYMENT',
  'ACCREC',
  'ACCRECCREDIT',
  'AROVERPAYMENT',
  'ARPREPAYMENT',
];
const STATUSES: InvoiceStatus[] = ['DRAFT', 'SUBMITTED', 'DELETED', 'AUTHORISED', 'PAID', 'VOIDED'];
const LINE_AMOUNT_TYPES: LineAmountTypes[] = ['Exclusive', 'Inclusive', 'NoTax'];
/**
 * Xero UK's CIS system accounts (developer.xero.com Types › SystemAccounts: CISASSETS, CISLABOUREXPENSE,
 * CISLABOURINCOME, CISLIABILITY, CISMATERIALS; CISLABOUR and CISASSET as some organisations spell them). Xero's
 * API refuses every one of them on a line item of a CIS-enabled organisation (docs/xero-api.md §4.8).
 */
const CIS_SYSTEM_ACCOUNTS = [
  'CISLABOUREXPENSE',
  'CISMATERIALS',
  'CISLABOURINCOME',
  'CISLABOUR',
  'CISLIABILITY',
  'CISASSETS',
  'CISASSET',
];

/**
 * Xero's answer to a CIS system account on a line item sent through the API, word for word as a developer
 * reported it (community.xero.com/developer/discussion/94347466; help.xero.com/uk/CIS-AddEditBill: "You can't
 * create or edit a CIS bill on the Xero Mobile app or API").
 */
export function cisAccountRefusal(code: string): string {
  return `This organisation has Construction Industry Scheme enabled. The account code ${code} cannot be used in line items via the API`;
}

const ALLOWED: Record<InvoiceStatus, InvoiceStatus[]> = {
  DRAFT: ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'DELETED'],
  SUBMITTED: ['SUBMITTED', 'AUTHORISED', 'DRAFT', 'DELETED'],
  AUTHORISED: ['AUTHORISED', 'VOIDED'],
  PAID: ['PAID'],
  VOIDED: ['VOIDED'],
  DELETED: ['DELETED'],
};

const ms = (v: number): { kind: 'date'; ms: number } => ({ kind: 'date', ms: v });

export function invoiceFields(org: OrgRec): FieldMap<InvoiceRec> {
  let cached: ReturnType<typeof indexOrg> | null = null;
  const index = (): ReturnType<typeof indexOrg> => (cached ??= indexOrg(org));
  const contactName = (id: string): string => index().contacts.get(id)?.Name ?? '';
  return {
    type: (i) => i.Type,
    status: (i) => i.Status,
    invoiceid: (i) => i.InvoiceID,
    invoicenumber: (i) => i.InvoiceNumber,
    reference: (i) => i.Reference,
    date: (i) => ms(dayToMs(i.Date)),
    duedate: (i) => (i.DueDate ? ms(dayToMs(i.DueDate)) : null),
    fullypaidondate: (i) => (i.fullyPaidOnDate ? ms(dayToMs(i.fullyPaidOnDate)) : null),
    updateddateutc: (i) => ms(i.updatedMs),
    amountdue: (i) => amountDue(i) / 100,
    amountpaid: (i) => i.amountPaid / 100,
    amountcredited: (i) => (i.amountCredited ?? 0) / 100,
    total: (i) => i.total / 100,
    subtotal: (i) => i.subTotal / 100,
    totaltax: (i) => i.totalTax / 100,
    currencycode: () => 'GBP',
    lineamounttypes: (i) => i.LineAmountTypes,
    senttocontact: (i) => i.sentToContact,
    hasattachments: (i) => index().attachmentInvoices.has(i.InvoiceID),
    'contact.contactid': (i) => i.ContactID,
    'contact.name': (i) => contactName(i.ContactID),
    contactid: (i) => i.ContactID,
  };
}

function validateEnums(el: Record<string, unknown>): void {
  if (el.Type !== undefined && !TYPES.includes(String(el.Type)))
    throw XeroError.postDataInvalid(`Invalid value '${String(el.Type)}' for Type`);
  if (el.Status !== undefined && !STATUSES.includes(el.Status as InvoiceStatus))
    throw XeroError.postDataInvalid(`Invalid value '${String(el.Status)}' for Status`);
  if (
    el.LineAmountTypes !== undefined &&
    !LINE_AMOUNT_TYPES.includes(el.LineAmountTypes as LineAmountTypes)
  ) {
    throw XeroError.postDataInvalid(
      `Invalid value '${String(el.LineAmountTypes)}' for LineAmountTypes. Use Exclusive, Inclusive or NoTax`,
    );
  }
  if (el.LineItems !== undefined && !Array.isArray(el.LineItems))
    throw XeroError.postDataInvalid('LineItems must be an array');
}

/**
 * Invoice.Url, "URL link to a source document – shown as 'Go to [appName]' in the Xero app"
 * (xero_accounting.yaml): a link Xero renders, so an absolute http(s) address. Neither the OpenAPI file nor
 * docs/xero-api.md gives a length, so the sandbox sets none. An empty Url is no Url.
 */
function readUrl(value: unknown, errors: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    errors.push('Url must be a string');
    return undefined;
  }
  const text = value.trim();
  if (text === '') return undefined;
  let parsed: URL | null = null;
  try {
    parsed = new URL(text);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    errors.push(`The Url '${text.slice(0, 100)}' is not a valid absolute http or https address`);
  else return text;
  return undefined;
}

function findInvoice(org: OrgRec, idOrNumber: string): InvoiceRec | undefined {
  if (UUID_RE.test(idOrNumber)) return org.invoices.find((i) => i.InvoiceID === idOrNumber.toLowerCase());
  return (
    org.invoices.find((i) => i.InvoiceNumber === idOrNumber && i.Type === 'ACCREC') ??
    org.invoices.find((i) => i.InvoiceNumber === idOrNumber)
  );
}

function resolveContact(
  org: OrgRec,
  raw: unknown,
  errors: string[],
  created: ContactRec[],
  now: number,
): ContactRec | undefined {
  if (!isPlainObject(raw)) {
    errors.push('A Contact must be specified for this type of transaction');
    return undefined;
  }
  const id = typeof raw.ContactID === 'string' ? raw.ContactID.toLowerCase() : undefined;
  if (id) {
    const found = org.contacts.find((c) => c.ContactID === id);
    if (!found) errors.push(`The contact with ID '${id}' could not be found`);
    else if (found.ContactStatus === 'ARCHIVED')
      errors.push(`The contact '${found.Name}' is archived and cannot be used`);
    return found;
  }
  const name = typeof raw.Name === 'string' ? raw.Name.trim() : '';
  if (name) {
    const found = org.contacts.find((c) => c.Name.toLowerCase() === name.toLowerCase());
    if (found) return found;
    const contact: ContactRec = {
      ContactID: randomUUID(),
      Name: name,
      ContactStatus: 'ACTIVE',
      IsSupplier: false,
      IsCustomer: false,
      cis: null,
      updatedMs: now,
    };
    created.push(contact);
    return contact;
  }
  errors.push('A Contact must be specified for this type of transaction');
  return undefined;
}

interface LineContext {
  org: OrgRec;
  type: InvoiceType;
  mode: LineAmountTypes;
  unitdp4: boolean;
  existing: LineRec[];
}

function parseLine(raw: unknown, index: number, lc: LineContext, errors: string[]): LineRec | null {
  const n = index + 1;
  if (!isPlainObject(raw)) {
    errors.push(`Line item ${n} is not valid`);
    return null;
  }
  const lineId = typeof raw.LineItemID === 'string' ? raw.LineItemID.toLowerCase() : undefined;
  const previous = lineId ? lc.existing.find((l) => l.LineItemID === lineId) : undefined;
  if (lineId && !previous) errors.push(`LineItemID '${lineId}' is not a line of this invoice`);
  const description = raw.Description !== undefined ? String(raw.Description) : (previous?.Description ?? '');
  if (!description.trim()) errors.push('Description cannot be empty');

  const quantityE4 = raw.Quantity !== undefined ? toScaled(raw.Quantity, 4) : (previous?.quantityE4 ?? null);
  let unitE4 = raw.UnitAmount !== undefined ? toScaled(raw.UnitAmount, lc.unitdp4 ? 4 : 2) : null;
  if (unitE4 !== null && !lc.unitdp4) unitE4 *= 100;
  if (raw.UnitAmount === undefined && previous && raw.LineAmount === undefined) unitE4 = previous.unitE4;
  const givenLine = raw.LineAmount !== undefined ? penceFrom(raw.LineAmount) : null;
  if (raw.Quantity !== undefined && quantityE4 === null) errors.push(`Line ${n}: Quantity must be a number`);
  if (raw.UnitAmount !== undefined && unitE4 === null) errors.push(`Line ${n}: UnitAmount must be a number`);
  if (raw.LineAmount !== undefined && givenLine === null)
    errors.push(`Line ${n}: LineAmount must be a number`);
  if (raw.LineAmount !== undefined && hasMoreDecimals(raw.LineAmount, 2))
    errors.push(`Line ${n}: LineAmount can have at most 2 decimal places`);
  let discountE2 = previous?.discountE2 ?? 0;
  if (raw.DiscountRate !== undefined) {
    const d = toScaled(raw.DiscountRate, 2);
    if (d === null || d < 0 || d > 10000) errors.push(`Line ${n}: DiscountRate must be between 0 and 100`);
    else if (lc.type === 'ACCPAY' && d > 0) errors.push('Discounts can only be applied to sales invoices');
    else discountE2 = d;
  }
  let q = quantityE4 ?? 10000;
  let unit = unitE4;
  let lineAmount: number | undefined;
  if (givenLine !== null) {
    if (unit !== null) {
      const expected = lineAmountPence({ quantityE4: q, unitE4: unit, discountE2 });
      if (Math.abs(expected - givenLine) > 1)
        errors.push(
          `Line ${n}: the LineAmount ${formatPounds(givenLine)} does not match Quantity × UnitAmount (${formatPounds(expected)})`,
        );
    } else {
      if (q === 0) q = 10000;
      unit = Math.round((givenLine * 100 * 10000) / q);
      if (discountE2 > 0) unit = Math.round((unit * 10000) / (10000 - discountE2));
    }
    lineAmount = givenLine;
  }
  if (unit === null) unit = 0;

  // Account
  let account = undefined as OrgRec['accounts'][number] | undefined;
  const code = typeof raw.AccountCode === 'string' ? raw.AccountCode : undefined;
  const accountId = typeof raw.AccountID === 'string' ? raw.AccountID.toLowerCase() : undefined;
  if (code !== undefined || accountId !== undefined) {
    account = lc.org.accounts.find((a) => (code !== undefined ? a.Code === code : a.AccountID === accountId));
    const shown = code ?? accountId ?? '';
    if (!account || account.Status !== 'ACTIVE' || account.Type === 'BANK') {
      errors.push(`Account code '${shown}' is not a valid code for this document.`);
      account = undefined;
    } else if (
      (lc.org.cis.contractor || lc.org.cis.subContractor) &&
      account.SystemAccount &&
      CIS_SYSTEM_ACCOUNTS.includes(account.SystemAccount)
    ) {
      errors.push(cisAccountRefusal(account.Code ?? shown));
    } else if (
      account.SystemAccount === 'DEBTORS' ||
      account.SystemAccount === 'CREDITORS' ||
      account.SystemAccount === 'GST'
    ) {
      errors.push(`Account code '${shown}' is a system account and cannot be used on this document.`);
    }
  } else if (previous) {
    account = lc.org.accounts.find((a) => a.AccountID === previous.AccountID);
  }

  // Tax
  let taxType: string;
  if (lc.mode === 'NoTax') taxType = 'NONE';
  else if (typeof raw.TaxType === 'string') taxType = raw.TaxType;
  else taxType = previous?.TaxType ?? account?.TaxType ?? 'NONE';
  if (lc.mode !== 'NoTax') {
    const rate = lc.org.taxRates.find((t) => t.TaxType === taxType);
    const usable = rate && rate.Status === 'ACTIVE' && (lc.type === 'ACCREC' ? rate.revenue : rate.expenses);
    if (!usable)
      errors.push(
        `The TaxType code '${taxType}' does not exist or cannot be used for this type of transaction.`,
      );
  }
  return priceLine(
    {
      LineItemID: previous?.LineItemID ?? randomUUID(),
      Description: description,
      quantityE4: q,
      unitE4: unit,
      discountE2,
      ...(account?.Code ? { AccountCode: account.Code } : {}),
      ...(account ? { AccountID: account.AccountID } : {}),
      TaxType: taxType,
      ...(lineAmount !== undefined ? { lineAmount } : {}),
    },
    lc.mode,
    lc.org.taxRates,
  );
}

function checkApprovable(inv: InvoiceRec, errors: string[]): void {
  if (inv.lines.length === 0) errors.push('At least one line item is required to approve this document');
  if (inv.lines.some((l) => !l.AccountID))
    errors.push('Account code must be specified for every line item on an approved document');
  if (!inv.DueDate) errors.push('Due Date is required for an approved document');
}

function writeKind(inv: InvoiceRec): 'invoice' | 'bill' {
  return inv.Type === 'ACCPAY' ? 'bill' : 'invoice';
}

function nextNumber(org: OrgRec): string {
  for (;;) {
    const candidate = `INV-${String(org.nextInvoiceNumber).padStart(4, '0')}`;
    org.nextInvoiceNumber++;
    if (!org.invoices.some((i) => i.Type === 'ACCREC' && i.InvoiceNumber === candidate)) return candidate;
  }
}

function applyInvoiceElement(
  ctx: ApiContext,
  el: Record<string, unknown>,
  pathId: string | undefined,
): ElementOutcome {
  const { rt, org } = ctx;
  validateEnums(el);
  const errors: string[] = [];
  const now = rt.now();
  const unitdp4 = ctx.q.unitdp === '4';
  const idText = pathId ?? (typeof el.InvoiceID === 'string' ? el.InvoiceID : undefined);
  const existing = idText ? findInvoice(org, idText) : undefined;
  if (idText && !existing) {
    if (pathId) throw XeroError.notFound();
    throw new ElementErrors([`Invoice with ID '${idText}' could not be found`]);
  }
  const createdContacts: ContactRec[] = [];
  const echo = (inv?: InvoiceRec): Json => ({ ...el, ...(inv ? { InvoiceID: inv.InvoiceID } : {}) });

  if (!existing) {
    const type = el.Type as InvoiceType | undefined;
    if (!type) throw new ElementErrors(['Invoice Type must be specified']);
    if (type !== 'ACCREC' && type !== 'ACCPAY')
      throw new ElementErrors([`Invoices of type ${type} are not supported by the sandbox`]);
    const contact = resolveContact(org, el.Contact, errors, createdContacts, now);
    const date = el.Date === undefined ? isoDay(now) : parseRequestDay(el.Date);
    if (date === null) errors.push('Date is not a valid date');
    const due = el.DueDate === undefined ? null : parseRequestDay(el.DueDate);
    if (el.DueDate !== undefined && due === null) errors.push('DueDate is not a valid date');
    const status = (el.Status as InvoiceStatus | undefined) ?? 'DRAFT';
    if (!['DRAFT', 'SUBMITTED', 'AUTHORISED'].includes(status))
      errors.push(`A new document cannot be created with status ${status}`);
    const mode = (el.LineAmountTypes as LineAmountTypes | undefined) ?? 'Exclusive';
    const lc: LineContext = { org, type, mode, unitdp4, existing: [] };
    const lines = ((el.LineItems as unknown[] | undefined) ?? [])
      .map((l, i) => parseLine(l, i, lc, errors))
      .filter((l): l is LineRec => l !== null);
    let number = typeof el.InvoiceNumber === 'string' ? el.InvoiceNumber.trim() : '';
    if (
      type === 'ACCREC' &&
      number &&
      org.invoices.some((i) => i.Type === 'ACCREC' && i.InvoiceNumber === number && i.Status !== 'DELETED')
    ) {
      errors.push('Invoice # must be unique.');
    }
    if (number.length > 255) errors.push('InvoiceNumber must be 255 characters or fewer');
    const url = readUrl(el.Url, errors);
    const effectiveDate = date ?? isoDay(now);
    if (org.periodLockDate && effectiveDate <= org.periodLockDate)
      errors.push('The document date cannot be on or before the period lock date');
    const inv: InvoiceRec = {
      InvoiceID: randomUUID(),
      Type: type,
      InvoiceNumber: number,
      Reference: typeof el.Reference === 'string' ? el.Reference : '',
      ...(url ? { Url: url } : {}),
      ContactID: contact?.ContactID ?? '',
      Date: effectiveDate,
      DueDate: due ?? addDays(effectiveDate, type === 'ACCREC' ? org.salesTermsDays : org.billTermsDays),
      LineAmountTypes: mode,
      Status: status,
      lines,
      subTotal: 0,
      totalTax: 0,
      total: 0,
      amountPaid: 0,
      fullyPaidOnDate: null,
      sentToContact: false,
      createdByClientId: ctx.clientId,
      createdMs: now,
      updatedMs: now,
    };
    applyTotals(inv);
    if (status !== 'DRAFT') checkApprovable(inv, errors);
    if (inv.total < 0) errors.push('The document total cannot be negative');
    if (errors.length > 0) return { ok: false, echo: echo(), errors };
    if (type === 'ACCREC' && !number) number = nextNumber(org);
    inv.InvoiceNumber = number;
    org.contacts.push(...createdContacts);
    org.invoices.push(inv);
    const flagContact =
      contact && !contact.IsCustomer && type === 'ACCREC'
        ? 'IsCustomer'
        : contact && !contact.IsSupplier && type === 'ACCPAY'
          ? 'IsSupplier'
          : null;
    // Xero sets IsCustomer/IsSupplier without moving the contact's UpdatedDateUTC (docs/xero-api.md §3).
    if (contact && flagContact) contact[flagContact] = true;
    return {
      ok: true,
      json: invoiceJson(org, inv, { lineItems: true, payments: true, unitdp4 }),
      undo: () => {
        org.invoices = org.invoices.filter((i) => i !== inv);
        org.contacts = org.contacts.filter((c) => !createdContacts.includes(c));
        if (contact && flagContact) contact[flagContact] = false;
      },
      commit: () => {
        rt.ledger.recordWrite({
          tenantId: org.OrganisationID,
          tenantName: org.Name,
          kind: writeKind(inv),
          action: 'create',
          id: inv.InvoiceID,
          summary: {
            invoiceNumber: inv.InvoiceNumber,
            status: inv.Status,
            total: inv.total / 100,
            contactId: inv.ContactID,
            ...(inv.Url ? { url: inv.Url } : {}),
          },
        });
        rt.markDirty();
        for (const c of createdContacts)
          rt.webhooks?.notify(org.OrganisationID, 'CONTACT', c.ContactID, 'CREATE');
        rt.webhooks?.notify(org.OrganisationID, 'INVOICE', inv.InvoiceID, 'CREATE', inv.updatedMs);
      },
    };
  }

  // Update
  const inv = existing;
  const before = structuredClone(inv);
  const target = (el.Status as InvoiceStatus | undefined) ?? inv.Status;
  if (el.Type !== undefined && el.Type !== inv.Type)
    errors.push('The Type of an existing document cannot be changed');
  if (['PAID', 'VOIDED', 'DELETED'].includes(inv.Status)) {
    const onlyStatus =
      Object.keys(el).every((k) => ['InvoiceID', 'Status', 'InvoiceNumber'].includes(k)) &&
      target === inv.Status;
    if (!onlyStatus) throw new ElementErrors([`This document cannot be edited as it is ${inv.Status}.`]);
  }
  if (!ALLOWED[inv.Status].includes(target)) {
    errors.push(`Invoice status cannot be changed from ${inv.Status} to ${target}`);
  }
  if (target === 'VOIDED' && inv.amountPaid > 0)
    errors.push('This document cannot be voided as it has a payment or credit note allocated to it.');
  const editsContent = ['Contact', 'Date', 'LineItems', 'LineAmountTypes'].some((k) => el[k] !== undefined);
  if (inv.amountPaid > 0 && editsContent)
    errors.push('This document cannot be edited as it has a payment or credit note allocated to it.');
  if (errors.length > 0) return { ok: false, echo: echo(inv), errors };

  if (el.Contact !== undefined) {
    const contact = resolveContact(org, el.Contact, errors, createdContacts, now);
    if (contact) inv.ContactID = contact.ContactID;
  }
  if (el.Date !== undefined) {
    const d = parseRequestDay(el.Date);
    if (d) inv.Date = d;
    else errors.push('Date is not a valid date');
  }
  if (el.DueDate !== undefined) {
    const d = parseRequestDay(el.DueDate);
    if (d) inv.DueDate = d;
    else errors.push('DueDate is not a valid date');
  }
  if (el.Reference !== undefined) inv.Reference = String(el.Reference);
  if (el.Url !== undefined) {
    const url = readUrl(el.Url, errors);
    if (url) inv.Url = url;
    else delete inv.Url;
  }
  if (typeof el.InvoiceNumber === 'string' && el.InvoiceNumber !== inv.InvoiceNumber) {
    const number = el.InvoiceNumber.trim();
    if (
      inv.Type === 'ACCREC' &&
      org.invoices.some(
        (i) => i !== inv && i.Type === 'ACCREC' && i.InvoiceNumber === number && i.Status !== 'DELETED',
      )
    ) {
      errors.push('Invoice # must be unique.');
    }
    inv.InvoiceNumber = number;
  }
  const mode = (el.LineAmountTypes as LineAmountTypes | undefined) ?? inv.LineAmountTypes;
  if (el.LineItems !== undefined || mode !== inv.LineAmountTypes) {
    const lc: LineContext = { org, type: inv.Type, mode, unitdp4, existing: before.lines };
    const source: unknown[] =
      el.LineItems !== undefined
        ? (el.LineItems as unknown[])
        : before.lines.map((l) => ({ LineItemID: l.LineItemID }));
    inv.LineAmountTypes = mode;
    inv.lines = source.map((l, i) => parseLine(l, i, lc, errors)).filter((l): l is LineRec => l !== null);
    applyTotals(inv);
  }
  if (org.periodLockDate && (inv.Date <= org.periodLockDate || before.Date <= org.periodLockDate))
    errors.push('The document date cannot be on or before the period lock date');
  inv.Status = target;
  if (target === 'AUTHORISED' || target === 'SUBMITTED') checkApprovable(inv, errors);
  if (inv.total < 0) errors.push('The document total cannot be negative');
  if (errors.length > 0) {
    Object.assign(inv, before);
    return { ok: false, echo: echo(inv), errors };
  }
  org.contacts.push(...createdContacts);
  const changed = JSON.stringify(before) !== JSON.stringify(inv);
  if (changed) inv.updatedMs = nextUpdated(rt, before.updatedMs);
  const action =
    target !== before.Status
      ? target === 'AUTHORISED'
        ? 'approve'
        : target === 'VOIDED'
          ? 'void'
          : target === 'DELETED'
            ? 'delete'
            : 'update'
      : 'update';
  return {
    ok: true,
    json: invoiceJson(org, inv, { lineItems: true, payments: true, unitdp4 }),
    undo: () => {
      Object.assign(inv, before);
      org.contacts = org.contacts.filter((c) => !createdContacts.includes(c));
    },
    commit: () => {
      if (!changed) return;
      rt.ledger.recordWrite({
        tenantId: org.OrganisationID,
        tenantName: org.Name,
        kind: writeKind(inv),
        action,
        id: inv.InvoiceID,
        summary: {
          invoiceNumber: inv.InvoiceNumber,
          status: inv.Status,
          previousStatus: before.Status,
          total: inv.total / 100,
        },
      });
      rt.markDirty();
      for (const c of createdContacts)
        rt.webhooks?.notify(org.OrganisationID, 'CONTACT', c.ContactID, 'CREATE');
      rt.webhooks?.notify(org.OrganisationID, 'INVOICE', inv.InvoiceID, 'UPDATE', inv.updatedMs);
    },
  };
}

export function registerInvoiceRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'invoices' };
  const write: ApiRouteConfig = { scope: 'invoices', write: true };

  app.get('/Invoices', apiRoute(read), async (request, reply) => {
    const ctx = ctxOf(request);
    const { org, q } = ctx;
    const fields = invoiceFields(org);
    let items = org.invoices;
    const ids = listParam(q.ids).map((s) => s.toLowerCase());
    if (ids.length) items = items.filter((i) => ids.includes(i.InvoiceID));
    const numbers = listParam(q.invoicenumbers);
    if (numbers.length) items = items.filter((i) => numbers.includes(i.InvoiceNumber));
    const contactIds = listParam(q.contactids).map((s) => s.toLowerCase());
    if (contactIds.length) items = items.filter((i) => contactIds.includes(i.ContactID));
    const statuses = listParam(q.statuses).map((s) => s.toUpperCase());
    if (statuses.some((s) => !STATUSES.includes(s as InvoiceStatus)))
      throw XeroError.queryParse(`Invalid status in Statuses: ${q.statuses ?? ''}`);
    if (statuses.length) items = items.filter((i) => statuses.includes(i.Status));
    if (q.createdbymyapp?.toLowerCase() === 'true')
      items = items.filter((i) => i.createdByClientId === ctx.clientId);
    if (q.searchterm) {
      const term = q.searchterm.toLowerCase();
      items = items.filter(
        (i) => i.InvoiceNumber.toLowerCase().includes(term) || i.Reference.toLowerCase().includes(term),
      );
    }
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((i) => i.updatedMs > since);
    const where = compileWhere(q.where, fields, 'Invoice');
    if (where) items = items.filter(where);
    const order =
      compileOrder(q.order, fields, 'Invoice') ??
      ((a: InvoiceRec, b: InvoiceRec) => a.updatedMs - b.updatedMs || (a.InvoiceID < b.InvoiceID ? -1 : 1));
    items = [...items].sort(order);
    const paging = readPaging(q);
    const summaryOnly = q.summaryonly?.toLowerCase() === 'true';
    const page = paginate(items, paging);
    const unitdp4 = q.unitdp === '4';
    const idx = indexOrg(org);
    const json = page.items.map((i) =>
      invoiceJson(org, i, {
        lineItems: Boolean(paging) && !summaryOnly,
        payments: !summaryOnly,
        unitdp4,
        idx,
      }),
    );
    return reply.send(envelope(rt, 'Invoices', json, page.pagination ? { pagination: page.pagination } : {}));
  });

  app.get<{ Params: { InvoiceID: string } }>(
    '/Invoices/:InvoiceID',
    apiRoute(read),
    async (request, reply) => {
      const ctx = ctxOf(request);
      const inv = findInvoice(ctx.org, request.params.InvoiceID);
      if (!inv) throw XeroError.notFound();
      return reply.send(
        envelope(rt, 'Invoices', [
          invoiceJson(ctx.org, inv, {
            lineItems: true,
            payments: true,
            unitdp4: ctx.q.unitdp === '4',
            single: true,
          }),
        ]),
      );
    },
  );

  // An invoice's history and notes (developer.xero.com/documentation/api/accounting/historyandnotes): when it
  // was created, and when it was last changed, as Xero's "Created" and "Edited" records.
  app.get<{ Params: { InvoiceID: string } }>(
    '/Invoices/:InvoiceID/History',
    apiRoute(read),
    async (request, reply) => {
      const ctx = ctxOf(request);
      const inv = findInvoice(ctx.org, request.params.InvoiceID);
      if (!inv) throw XeroError.notFound();
      const record = (changes: string, ms: number, details: string) => ({
        Changes: changes,
        DateUTCString: new Date(ms).toISOString().slice(0, 19),
        DateUTC: msDateTime(ms),
        User: 'System Generated',
        Details: details,
      });
      const records = [record('Created', inv.createdMs, `${inv.InvoiceNumber || inv.Type} created.`)];
      if (inv.updatedMs > inv.createdMs)
        records.unshift(record('Edited', inv.updatedMs, `${inv.InvoiceNumber || inv.Type} changed.`));
      return reply.send(envelope(rt, 'HistoryRecords', records));
    },
  );

  const createOrUpdate =
    (allowUpdate: boolean) =>
    async (
      request: import('fastify').FastifyRequest<{ Params: { InvoiceID?: string } }>,
      reply: import('fastify').FastifyReply,
    ) => {
      const ctx = ctxOf(request);
      const elements = elementsOf(request.body, 'Invoices');
      const pathId = request.params.InvoiceID;
      if (pathId && elements.length !== 1)
        throw XeroError.postDataInvalid('Only one invoice can be updated at this address');
      const results = runBatch(elements, summarizeFlag(ctx.q), 'HasErrors', (el) => {
        if (!allowUpdate && el.InvoiceID !== undefined)
          throw new ElementErrors(['PUT creates new invoices only: use POST to update an existing invoice']);
        return applyInvoiceElement(ctx, el, pathId);
      });
      return reply.status(200).send(envelope(rt, 'Invoices', results));
    };
  app.put('/Invoices', apiRoute(write), createOrUpdate(false));
  app.post('/Invoices', apiRoute(write), createOrUpdate(true));
  app.post('/Invoices/:InvoiceID', apiRoute(write), createOrUpdate(true));
}
