/**
 * HMRC's checks of a CIS message's Body, as the sandbox makes them: the IRheader keys against the GovTalk keys
 * (5005), the scheme's own UTR and accounts office reference (5012, "Invalid Contractor UTR or AO Reference"), and
 * the data rules of CISreturn-v1-2.xsd / CISverification-v1-2.xsd (5012, "The data used is not within the set
 * standards of the schema", HMRC's CIS online error messages). Each breach is one error with its location.
 */
import type { Element } from '@xmldom/xmldom';
import type { AnswerError } from './answers';
import type { SchemeRecord } from './register';
import { at, kids, text } from './xml';

const err = (number: string, textValue: string, location: string): AnswerError => ({
  raisedBy: 'ChRIS',
  number,
  type: 'business',
  text: textValue,
  location,
});

const UTR = /^[0-9]{10}$/;
const VERIFICATION = /^V[0-9]{10}[A-HJ-NP-Z]{0,2}$/;
const WHOLE = /^(0|[1-9][0-9]{0,7})\.00$/;
const PENCE = /^(0|[1-9][0-9]{0,7})\.[0-9]{2}$/;
const NAME_SET = /^[A-Za-z0-9 ~!"@#$%&'()*+,\-./:;<=>?[\\\]^_{}£€]*$/;

export interface CheckedReturn {
  periodEnd: string;
  nil: boolean;
  inactive: boolean;
  subcontractors: Array<{
    name: string;
    utr: string;
    verificationNumber: string;
    payments: string;
    materials: string;
    deducted: string;
  }>;
}

/** The keys and scheme checks both messages share; answers the IRenvelope's header keys. */
export function checkHeader(
  govTalkKeys: Map<string, string>,
  envelope: Element,
  scheme: SchemeRecord,
  contractor: Element | null,
): AnswerError[] {
  const errors: AnswerError[] = [];
  const header = at(envelope, 'IRheader');
  const keys = new Map(kids(at(header, 'Keys'), 'Key').map((k) => [k.getAttribute('Type') ?? '', text(k)]));
  for (const type of ['TaxOfficeNumber', 'TaxOfficeReference'])
    if ((keys.get(type) ?? '').toUpperCase() !== (govTalkKeys.get(type) ?? '').toUpperCase())
      errors.push(
        err(
          '5005',
          'Keys in the GovTalkDetails do not match those in the IRheader.',
          `IRheader/Keys/Key[@Type='${type}']`,
        ),
      );
  if (text(at(header, 'Sender')) === '')
    errors.push(err('5012', "Missing element 'Sender'.", 'IRheader/Sender'));
  if (
    text(at(contractor, 'UTR')) !== scheme.utr ||
    text(at(contractor, 'AOref')).toUpperCase() !== scheme.accountsOfficeReference
  )
    errors.push(err('5012', 'Invalid Contractor UTR or AO Reference.', 'Contractor'));
  return errors;
}

/** The rules of a monthly return's body (CISreturn). */
export function checkReturn(envelope: Element): { errors: AnswerError[]; checked: CheckedReturn } {
  const errors: AnswerError[] = [];
  const periodEnd = text(at(envelope, 'IRheader', 'PeriodEnd'));
  if (!/^\d{4}-\d{2}-05$/.test(periodEnd))
    errors.push(
      err(
        '5012',
        `Datatype error: PeriodEnd '${periodEnd}' is not the 5th of a month.`,
        'IRheader/PeriodEnd',
      ),
    );
  const body = at(envelope, 'CISreturn');
  const nil = text(at(body, 'NilReturn')) === 'yes';
  const subs = kids(body, 'Subcontractor');
  const declarations = at(body, 'Declarations');
  const yes = (name: string) => text(at(declarations, name)) === 'yes';
  if (!yes('InformationCorrect'))
    errors.push(
      err('5012', "Declarations/InformationCorrect must be 'yes'.", 'Declarations/InformationCorrect'),
    );
  if (nil && subs.length > 0) errors.push(err('5012', 'A nil return lists no subcontractors.', 'NilReturn'));
  if (!nil && subs.length === 0)
    errors.push(err('5012', 'A return that is not nil lists at least one subcontractor.', 'CISreturn'));
  if (!nil && (!yes('EmploymentStatus') || !yes('Verification')))
    errors.push(
      err('5012', 'The employment status and verification declarations must be made.', 'Declarations'),
    );
  const checked = subs.map((s, i) => {
    const where = `Subcontractor[${i + 1}]`;
    const name =
      text(at(s, 'TradingName')) ||
      [text(at(s, 'Name', 'Fore')), text(at(s, 'Name', 'Sur'))].join(' ').trim();
    const utr = text(at(s, 'UTR'));
    const verification = text(at(s, 'VerificationNumber'));
    const unmatched = text(at(s, 'UnmatchedRate')) === 'yes';
    const [payments, materials, deducted] = ['TotalPayments', 'CostOfMaterials', 'TotalDeducted'].map((n) =>
      text(at(s, n)),
    );
    if (!name || name.length > 56 || !NAME_SET.test(name))
      errors.push(
        err(
          '5012',
          `Datatype error: the subcontractor's name '${name}' is not valid.`,
          `${where}/TradingName`,
        ),
      );
    if (utr && !UTR.test(utr))
      errors.push(
        err(
          '5012',
          `Datatype error: In element 'UTR': Value '${utr}' is not facet-valid with respect to pattern '[0-9]{10}'.`,
          `${where}/UTR`,
        ),
      );
    if (!utr && !unmatched)
      errors.push(
        err('5012', 'A subcontractor paid at the standard or gross rate needs a UTR.', `${where}/UTR`),
      );
    if (verification && !VERIFICATION.test(verification))
      errors.push(
        err(
          '5012',
          `Datatype error: In element 'VerificationNumber': Value '${verification}' is not valid.`,
          `${where}/VerificationNumber`,
        ),
      );
    if (unmatched && !verification)
      errors.push(
        err(
          '5012',
          'A subcontractor paid at the higher rate needs the verification number HMRC gave.',
          `${where}/VerificationNumber`,
        ),
      );
    if (!WHOLE.test(payments ?? ''))
      errors.push(
        err(
          '5012',
          `Datatype error: TotalPayments '${payments}' must be whole pounds.`,
          `${where}/TotalPayments`,
        ),
      );
    if (!WHOLE.test(materials ?? ''))
      errors.push(
        err(
          '5012',
          `Datatype error: CostOfMaterials '${materials}' must be whole pounds.`,
          `${where}/CostOfMaterials`,
        ),
      );
    if (!PENCE.test(deducted ?? ''))
      errors.push(
        err(
          '5012',
          `Datatype error: TotalDeducted '${deducted}' is not an amount.`,
          `${where}/TotalDeducted`,
        ),
      );
    return {
      name,
      utr,
      verificationNumber: verification,
      payments: payments ?? '',
      materials: materials ?? '',
      deducted: deducted ?? '',
    };
  });
  return { errors, checked: { periodEnd, nil, inactive: yes('Inactivity'), subcontractors: checked } };
}

export interface RequestedSubcontractor {
  type: string;
  name: string;
  utr: string;
  nino: string;
  crn: string;
}

/** The rules of a verification request (CISrequest). */
export function checkVerification(envelope: Element): {
  errors: AnswerError[];
  subcontractors: RequestedSubcontractor[];
} {
  const errors: AnswerError[] = [];
  const body = at(envelope, 'CISrequest');
  const subs = kids(body, 'Subcontractor');
  if (subs.length < 1 || subs.length > 100)
    errors.push(err('5012', 'A verification request holds 1 to 100 subcontractors.', 'CISrequest'));
  if (text(at(body, 'Declaration')) !== 'yes')
    errors.push(err('5012', "Declaration must be 'yes'.", 'Declaration'));
  const requested = subs.map((s, i) => {
    const where = `Subcontractor[${i + 1}]`;
    const type = text(at(s, 'Type'));
    const utr = text(at(s, 'UTR'));
    if (!['match', 'verify'].includes(text(at(s, 'Action'))))
      errors.push(err('5012', "Action must be 'match' or 'verify'.", `${where}/Action`));
    if (!['soletrader', 'company', 'partnership', 'trust'].includes(type))
      errors.push(err('5012', `Type '${type}' is not valid.`, `${where}/Type`));
    if (!UTR.test(utr))
      errors.push(
        err(
          '5012',
          `Datatype error: In element 'UTR': Value '${utr}' is not facet-valid with respect to pattern '[0-9]{10}'.`,
          `${where}/UTR`,
        ),
      );
    const name =
      text(at(s, 'TradingName')) ||
      [text(at(s, 'Name', 'Fore')), text(at(s, 'Name', 'Sur'))].join(' ').trim();
    if (!name) errors.push(err('5012', 'A subcontractor needs a name or a trading name.', `${where}/Name`));
    return { type, name, utr, nino: text(at(s, 'NINO')), crn: text(at(s, 'CRN')) };
  });
  return { errors, subcontractors: requested };
}
