/**
 * The two CIS messages (issue 43): the monthly return (IR-CIS-CIS300MR, namespace CISreturn) and the subcontractor
 * verification request (IR-CIS-VERIFY, namespace CISrequest), with the rules of HMRC's schemas checked before
 * anything is sent, and the verification answer (CISresponse) read back.
 *
 * The rules are HMRC's: CISreturn-v1-2.xsd, CISverification-v1-2.xsd and core-v2-0.xsd (published with HMRC's CIS
 * technical pack, and kept in hmrc/construction-industry-scheme's conf/xsds): element order, UTRtype (10 digits),
 * AOrefType (13 characters, [0-9]{3}P[A-Za-z][A-Za-z0-9]{8}), the verification number
 * (V[0-9]{10}[A-HJ-NP-Z]{0,2}), NINOtype, CRNtype, names (Fore/Sur letters, TradingName at most 56 characters of
 * HMRC's PAYE character set), payments and materials in whole pounds (IRnonNegativeWholeUnitsMonetaryType) up to
 * 99,999,999.00 and deductions in pence up to 99,999,999.99, at least one subcontractor on a return that is not
 * nil, at most 100 subcontractors on one verification request, and the declarations "yes".
 */
import type { Element } from '@xmldom/xmldom';
import { child, childElements, descendants, el, textOf, type XmlElement } from './xml';

export const CISRETURN_NAMESPACE = 'http://www.govtalk.gov.uk/taxation/CISreturn';
export const CISREQUEST_NAMESPACE = 'http://www.govtalk.gov.uk/taxation/CISrequest';
/** The schema version HMRC's CIS service names in the IRheader's manifest for both messages. */
export const CIS_SCHEMA_VERSION = '2005-v1.1';

const UTR_RE = /^[0-9]{10}$/;
const AOREF_RE = /^[0-9]{3}P[A-Za-z][A-Za-z0-9]{8}$/;
const VERIFICATION_RE = /^V[0-9]{10}[A-HJ-NP-Z]{0,2}$/;
const NINO_RE = /^[ABCEGHJKLMNOPRSTWXYZ][ABCEGHJKLMNPRSTWXYZ][0-9]{6}[A-D ]$/;
const CRN_RE = /^(?:[A-Za-z]{2}[0-9]{1,6}|[0-9]{1,8})$/;
const FORE_RE = /^[A-Za-z][A-Za-z'-]*$/;
const SUR_RE = /^[A-Za-z0-9 ,.()/&'-]+$/;
/** PAYEstringType: HMRC's character set for names and references on CIS messages. */
const PAYE_STRING_RE = /^[A-Za-z0-9 ~!"@#$%&'()*+,\-./:;<=>?[\\\]^_{}£€]*$/;
const TAX_OFFICE_NUMBER_RE = /^[0-9]{3}$/;
const TAX_OFFICE_REFERENCE_RE = /^[A-Za-z0-9][A-Za-z0-9 ~!"@#$%&'()*+,\-./:;<=>?[\\\]^_{}£€]{0,9}$/;
const MAX_WHOLE_POUNDS_PENCE = 9_999_999_900;
const MAX_DEDUCTION_PENCE = 9_999_999_999;

/** One thing a message breaks, named the way the screen says it. */
export interface MessageProblem {
  field: string;
  message: string;
}

export class MessageRulesError extends Error {
  constructor(readonly problems: MessageProblem[]) {
    super(problems.map((p) => p.message).join(' '));
    this.name = 'MessageRulesError';
  }
}

/**
 * A name in HMRC's character set: accents dropped (é → e), typographic quotes and dashes made plain, spaces
 * squeezed. What still falls outside the set is left for the rules to refuse.
 */
export function toHmrcText(value: string): string {
  return value
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/** "123/AB45678" → the GovTalk keys: tax office number and tax office reference. */
export function splitEmployerReference(
  reference: string,
): { taxOfficeNumber: string; taxOfficeReference: string } | null {
  const [number, ...rest] = reference.replace(/\s+/g, '').split('/');
  const ref = rest.join('/');
  if (!number || !TAX_OFFICE_NUMBER_RE.test(number) || !TAX_OFFICE_REFERENCE_RE.test(ref)) return null;
  return { taxOfficeNumber: number, taxOfficeReference: ref.toUpperCase() };
}

/** Pence as HMRC's decimal (two places, no thousands separator). */
export function formatAmount(pence: number): string {
  const sign = pence < 0 ? '-' : '';
  const abs = Math.abs(pence);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Whole pounds for the return's payments and materials: HMRC's schema takes whole units only
 * (IRnonNegativeWholeUnitsMonetaryType) and its form asks for pounds with the pence left off, so pence are
 * dropped, never rounded up (CISR61220, CIS300 notes "Total payments made").
 */
export function toWholePoundsPence(pence: number): number {
  return Math.floor(Math.max(0, pence) / 100) * 100;
}

export interface ContractorRefs {
  utr: string;
  accountsOfficeReference: string;
  employerReference: string;
}

export type SubcontractorName = { tradingName: string } | { fore: string; sur: string };

function nameElements(name: SubcontractorName, field: string, problems: MessageProblem[]): XmlElement {
  if ('tradingName' in name) {
    const text = toHmrcText(name.tradingName);
    if (!text) problems.push({ field, message: 'A subcontractor has no name.' });
    else if (text.length > 56)
      problems.push({
        field,
        message: `"${text}" is longer than the 56 characters HMRC accepts for a trading name.`,
      });
    else if (!PAYE_STRING_RE.test(text))
      problems.push({ field, message: `"${text}" has characters HMRC does not accept in a name.` });
    return el('TradingName', text);
  }
  const fore = toHmrcText(name.fore);
  const sur = toHmrcText(name.sur);
  if (!FORE_RE.test(fore) || fore.length > 35)
    problems.push({ field, message: `First name "${fore}" must be letters (with ' or -), up to 35.` });
  if (!SUR_RE.test(sur) || sur.length > 35)
    problems.push({
      field,
      message: `Surname "${sur}" has characters HMRC does not accept, or more than 35.`,
    });
  return el('Name', el('Fore', fore), el('Sur', sur));
}

function contractorElement(contractor: ContractorRefs, problems: MessageProblem[]) {
  const utr = contractor.utr.replace(/\s+/g, '');
  const aoRef = contractor.accountsOfficeReference.replace(/\s+/g, '').toUpperCase();
  if (!UTR_RE.test(utr))
    problems.push({ field: 'contractor.utr', message: "The contractor's UTR must be 10 digits." });
  if (!AOREF_RE.test(aoRef))
    problems.push({
      field: 'contractor.accountsOfficeReference',
      message: 'The accounts office reference must be 13 characters like 123PA00012345.',
    });
  return el('Contractor', el('UTR', utr), el('AOref', aoRef));
}

function irHeader(options: {
  keys: { taxOfficeNumber: string; taxOfficeReference: string };
  periodEnd: string;
  namespace: string;
  topElement: string;
}): XmlElement {
  return el(
    'IRheader',
    el(
      'Keys',
      el('Key', { Type: 'TaxOfficeNumber' }, options.keys.taxOfficeNumber),
      el('Key', { Type: 'TaxOfficeReference' }, options.keys.taxOfficeReference),
    ),
    el('PeriodEnd', options.periodEnd),
    el('DefaultCurrency', 'GBP'),
    el(
      'Manifest',
      el(
        'Contains',
        el(
          'Reference',
          el('Namespace', options.namespace),
          el('SchemaVersion', CIS_SCHEMA_VERSION),
          el('TopElementName', options.topElement),
        ),
      ),
    ),
    // Filled in once the whole message is written (irmark.ts withIrMark).
    el('IRmark', { Type: 'generic' }),
    el('Sender', 'Company'),
  );
}

function schemeKeys(contractor: ContractorRefs, problems: MessageProblem[]) {
  const keys = splitEmployerReference(contractor.employerReference);
  if (!keys)
    problems.push({
      field: 'contractor.employerReference',
      message:
        "The employer reference must be the tax office's 3 digits, a slash and the reference (like 123/AB45678).",
    });
  return keys ?? { taxOfficeNumber: '000', taxOfficeReference: 'X' };
}

// ---- The monthly return (IR-CIS-CIS300MR) ------------------------------------------------------------------

export interface ReturnSubcontractor {
  name: SubcontractorName;
  utr: string | null;
  verificationNumber: string | null;
  /** Paid at the higher rate because HMRC could not match them (30 %): UnmatchedRate "yes". */
  unmatched: boolean;
  grossPence: number;
  materialsPence: number;
  deductionPence: number;
}

export interface MonthlyReturnInput {
  contractor: ContractorRefs;
  /** The tax month's last day (the 5th). */
  periodEnd: string;
  subcontractors: ReturnSubcontractor[];
  /** "Scheme inactive": no payments expected in the next six months (Declarations/Inactivity). */
  inactive: boolean;
  declarations: { employmentStatus: boolean; verification: boolean; informationCorrect: boolean };
}

/** The IRenvelope of a monthly return, or the rules it breaks (MessageRulesError). */
export function buildMonthlyReturn(input: MonthlyReturnInput): {
  envelope: XmlElement;
  keys: { taxOfficeNumber: string; taxOfficeReference: string };
} {
  const problems: MessageProblem[] = [];
  const keys = schemeKeys(input.contractor, problems);
  const contractor = contractorElement(input.contractor, problems);
  if (!/^\d{4}-\d{2}-05$/.test(input.periodEnd))
    problems.push({ field: 'periodEnd', message: 'A tax month ends on the 5th.' });
  const nil = input.subcontractors.length === 0;
  if (!input.declarations.informationCorrect)
    problems.push({
      field: 'declarations.informationCorrect',
      message: 'Confirm that the information is correct.',
    });
  if (!nil && !input.declarations.employmentStatus)
    problems.push({
      field: 'declarations.employmentStatus',
      message: 'Confirm that you considered the employment status of each subcontractor.',
    });
  if (!nil && !input.declarations.verification)
    problems.push({
      field: 'declarations.verification',
      message: 'Confirm that every subcontractor was verified with HMRC where the rules require it.',
    });
  const subcontractors = input.subcontractors.map((s, i) => {
    const field = `subcontractors.${i}`;
    const nameEl = nameElements(s.name, `${field}.name`, problems);
    const label = 'tradingName' in s.name ? toHmrcText(s.name.tradingName) : `${s.name.fore} ${s.name.sur}`;
    const utr = s.utr?.replace(/\s+/g, '') ?? null;
    const verification = s.verificationNumber?.replace(/\s+/g, '').toUpperCase() ?? null;
    if (utr !== null && !UTR_RE.test(utr))
      problems.push({ field: `${field}.utr`, message: `${label}: the UTR must be 10 digits.` });
    if (!s.unmatched && utr === null)
      problems.push({ field: `${field}.utr`, message: `${label} has no UTR.` });
    if (verification !== null && !VERIFICATION_RE.test(verification))
      problems.push({
        field: `${field}.verificationNumber`,
        message: `${label}: the verification number must be V, 10 digits and up to two letters.`,
      });
    if (s.unmatched && verification === null)
      problems.push({
        field: `${field}.verificationNumber`,
        message: `${label} was paid at the higher rate (30 %): HMRC needs the verification number it gave.`,
      });
    const payments = toWholePoundsPence(s.grossPence);
    const materials = toWholePoundsPence(s.materialsPence);
    for (const [what, pence, max] of [
      ['payments', payments, MAX_WHOLE_POUNDS_PENCE],
      ['materials', materials, MAX_WHOLE_POUNDS_PENCE],
      ['deduction', s.deductionPence, MAX_DEDUCTION_PENCE],
    ] as const)
      if (!Number.isInteger(pence) || pence < 0 || pence > max)
        problems.push({
          field: `${field}.${what}`,
          message: `${label}: the ${what} must be between £0 and £${formatAmount(max)}.`,
        });
    return el(
      'Subcontractor',
      nameEl,
      s.unmatched ? el('UnmatchedRate', 'yes') : null,
      utr ? el('UTR', utr) : null,
      verification ? el('VerificationNumber', verification) : null,
      el('TotalPayments', formatAmount(payments)),
      el('CostOfMaterials', formatAmount(materials)),
      el('TotalDeducted', formatAmount(s.deductionPence)),
    );
  });
  if (problems.length > 0) throw new MessageRulesError(problems);
  const cisReturn = el(
    'CISreturn',
    contractor,
    nil ? el('NilReturn', 'yes') : null,
    ...subcontractors,
    el(
      'Declarations',
      nil ? null : el('EmploymentStatus', 'yes'),
      nil ? null : el('Verification', 'yes'),
      el('InformationCorrect', 'yes'),
      input.inactive ? el('Inactivity', 'yes') : null,
    ),
  );
  return {
    keys,
    envelope: el(
      'IRenvelope',
      { xmlns: CISRETURN_NAMESPACE },
      irHeader({ keys, periodEnd: input.periodEnd, namespace: CISRETURN_NAMESPACE, topElement: 'CISreturn' }),
      cisReturn,
    ),
  };
}

// ---- Verification (IR-CIS-VERIFY) ---------------------------------------------------------------------------

export const SUBCONTRACTOR_TYPES = ['soletrader', 'company', 'partnership', 'trust'] as const;
export type SubcontractorType = (typeof SUBCONTRACTOR_TYPES)[number];

export interface VerifySubcontractor {
  type: SubcontractorType;
  name: SubcontractorName;
  /** The subcontractor's UTR (for a partnership, the nominated partner's). */
  utr: string;
  nino?: string | null | undefined;
  crn?: string | null | undefined;
  /** A partnership's own trading name and UTR. */
  partnership?: { name: string; utr: string } | null | undefined;
}

/** The IRenvelope of a verification request for up to 100 subcontractors, or the rules it breaks. */
export function buildVerificationRequest(input: {
  contractor: ContractorRefs;
  periodEnd: string;
  subcontractors: VerifySubcontractor[];
}): { envelope: XmlElement; keys: { taxOfficeNumber: string; taxOfficeReference: string } } {
  const problems: MessageProblem[] = [];
  const keys = schemeKeys(input.contractor, problems);
  const contractor = contractorElement(input.contractor, problems);
  if (input.subcontractors.length < 1 || input.subcontractors.length > 100)
    problems.push({
      field: 'subcontractors',
      message: 'A verification request holds 1 to 100 subcontractors.',
    });
  const subs = input.subcontractors.map((s, i) => {
    const field = `subcontractors.${i}`;
    const utr = s.utr.replace(/\s+/g, '');
    const nino = s.nino ? s.nino.replace(/\s+/g, '').toUpperCase() : null;
    const crn = s.crn ? s.crn.replace(/\s+/g, '').toUpperCase() : null;
    if (!UTR_RE.test(utr)) problems.push({ field: `${field}.utr`, message: 'The UTR must be 10 digits.' });
    if (nino !== null && !NINO_RE.test(nino))
      problems.push({
        field: `${field}.nino`,
        message:
          'The National Insurance number must be 2 letters, 6 digits and A–D (temporary numbers cannot be verified).',
      });
    if (crn !== null && !CRN_RE.test(crn))
      problems.push({
        field: `${field}.crn`,
        message: 'The company registration number must be 8 digits, or 2 letters and up to 6 digits.',
      });
    const partnership = s.type === 'partnership' ? (s.partnership ?? null) : null;
    if (s.type === 'partnership' && (!partnership || !UTR_RE.test(partnership.utr.replace(/\s+/g, ''))))
      problems.push({
        field: `${field}.partnership`,
        message: "HMRC needs the partnership's trading name and its own UTR.",
      });
    return el(
      'Subcontractor',
      el('Action', 'verify'),
      el('Type', s.type),
      nameElements(s.name, `${field}.name`, problems),
      el('UTR', utr),
      crn && (s.type === 'company' || s.type === 'partnership') ? el('CRN', crn) : null,
      nino && (s.type === 'soletrader' || s.type === 'partnership') ? el('NINO', nino) : null,
      partnership
        ? el(
            'Partnership',
            el('Name', toHmrcText(partnership.name)),
            el('UTR', partnership.utr.replace(/\s+/g, '')),
          )
        : null,
    );
  });
  if (problems.length > 0) throw new MessageRulesError(problems);
  return {
    keys,
    envelope: el(
      'IRenvelope',
      { xmlns: CISREQUEST_NAMESPACE },
      irHeader({
        keys,
        periodEnd: input.periodEnd,
        namespace: CISREQUEST_NAMESPACE,
        topElement: 'CISrequest',
      }),
      el('CISrequest', contractor, ...subs, el('Declaration', 'yes')),
    ),
  };
}

/** HMRC's answer for one subcontractor (CISresponse/Subcontractor). */
export interface VerificationResult {
  utr: string | null;
  name: string;
  /** HMRC matched the subcontractor to its register. */
  matched: boolean;
  /** gross, net or unmatched, as HMRC says it. */
  taxTreatment: string;
  /** The deduction rate the tax treatment means: 0 (gross), 20 (net), 30 (unmatched). */
  rate: 0 | 20 | 30;
  verificationNumber: string | null;
}

/**
 * The tax treatment as a rate (CISR51050, CIS340 §3): gross payment status 0 %, registered (net) 20 %, not matched
 * 30 %. An answer that is not matched is 30 % whatever else it says.
 */
export function rateOfTreatment(treatment: string, matched: boolean): 0 | 20 | 30 {
  const t = treatment.trim().toLowerCase();
  if (!matched || t === 'unmatched' || t === 'higher') return 30;
  if (t === 'gross' || t === '0') return 0;
  return 20;
}

function isMatched(value: string): boolean {
  return ['y', 'yes', 'matched', 'true'].includes(value.trim().toLowerCase());
}

export function readVerificationResults(body: Element | null): VerificationResult[] {
  const response = descendants(body, 'CISresponse')[0];
  return childElements(response, 'Subcontractor').map((s) => {
    const name = child(s, 'Name');
    const fore = childElements(name, 'Fore').map((f) => textOf(f));
    const display =
      textOf(child(s, 'TradingName')) || [...fore, textOf(child(name, 'Sur'))].filter(Boolean).join(' ');
    const matched = isMatched(textOf(child(s, 'Matched')));
    const treatment = textOf(child(s, 'TaxTreatment'));
    return {
      utr: textOf(child(s, 'UTR')) || textOf(child(s, 'Partnership', 'UTR')) || null,
      name: display,
      matched,
      taxTreatment: treatment || (matched ? 'net' : 'unmatched'),
      rate: rateOfTreatment(treatment, matched),
      verificationNumber: textOf(child(s, 'VerificationNumber')) || null,
    };
  });
}
