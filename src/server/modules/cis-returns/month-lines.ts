import { getExpectedDeductionPence } from '../../../shared/cis-figures';
import { getPeriodOf, type CisLineFlag } from '../../../shared/cis-returns';
import { formatDateMedium } from '../../../shared/dates';
import type { VerifiedRate } from '../../../shared/hmrc-filing';
import { formatMoney } from '../../../shared/money';
import type { CachedContact, CountedPaymentState } from './cis-returns.repository';

/** A subcontractor's line of a month before it becomes pounds. */
export interface MonthLine {
  contactId: string;
  name: string;
  rate: number | null;
  grossPence: number;
  materialsPence: number;
  deductionPence: number;
  flags: CisLineFlag[];
}

export interface MonthFigures {
  lines: MonthLine[];
  totals: { grossPence: number; materialsPence: number; deductionPence: number };
}

const EMPTY: MonthFigures = { lines: [], totals: { grossPence: 0, materialsPence: 0, deductionPence: 0 } };

export function emptyMonth(): MonthFigures {
  return { lines: [], totals: { ...EMPTY.totals } };
}

/**
 * The months' lines from the payments counted (issue 42): per tax month (by payment date) and subcontractor, the
 * figures each payment carried when it was first counted, added up; a credit note's refund takes its share off.
 * The rate is the one the bills say they were deducted at, else the rate the contact was given when counted. The
 * flags tell the contractor what to look at before filing; a rate that differs is measured against the rate the
 * contact is given now: HMRC's answer to a verification from Ledgerlink (issue 43), else Xero's CIS settings.
 */
export function buildMonthLines(
  counted: readonly CountedPaymentState[],
  contacts: ReadonlyMap<string, CachedContact>,
  verified: ReadonlyMap<string, VerifiedRate> = new Map(),
): Map<string, MonthFigures> {
  const byMonth = new Map<string, Map<string, CountedPaymentState[]>>();
  for (const row of counted) {
    if (!row.counts) continue;
    const period = getPeriodOf(row.date);
    const month = byMonth.get(period) ?? new Map<string, CountedPaymentState[]>();
    month.set(row.contactId, [...(month.get(row.contactId) ?? []), row]);
    byMonth.set(period, month);
  }
  const out = new Map<string, MonthFigures>();
  for (const [period, byContact] of byMonth) {
    const lines: MonthLine[] = [];
    for (const [contactId, rows] of byContact) {
      const contact = contacts.get(contactId);
      const name = contact?.name ?? rows[rows.length - 1]?.contactName ?? '';
      lines.push(buildLine(contactId, name, rows, contact, verified.get(contactId.toLowerCase())));
    }
    lines.sort((a, b) => a.name.localeCompare(b.name, 'en-GB') || a.contactId.localeCompare(b.contactId));
    out.set(period, {
      lines,
      totals: {
        grossPence: lines.reduce((s, l) => s + l.grossPence, 0),
        materialsPence: lines.reduce((s, l) => s + l.materialsPence, 0),
        deductionPence: lines.reduce((s, l) => s + l.deductionPence, 0),
      },
    });
  }
  return out;
}

function buildLine(
  contactId: string,
  name: string,
  rows: readonly CountedPaymentState[],
  contact: CachedContact | undefined,
  verified: VerifiedRate | undefined,
): MonthLine {
  const flags: CisLineFlag[] = [];
  let gross = 0;
  let materials = 0;
  let deduction = 0;
  /** Labour paid with nothing deducted, by the rate that asked a deduction. */
  const undeducted = new Map<number, number>();
  const rates = new Set<number>();
  let lastRate: number | null = null;
  for (const row of rows) {
    gross += row.grossPence;
    materials += row.materialsPence;
    deduction += row.deductionPence;
    const rate = row.rateUsed ?? row.contactRate;
    if (rate !== null) {
      rates.add(rate);
      lastRate = rate;
    }
    // Paid with nothing deducted where the rate asks a deduction: the contractor owes it (SI 2005/2045 reg 9).
    if (row.documentType === 'ACCPAY' && row.deductionPence === 0 && rate !== null && rate > 0)
      undeducted.set(rate, (undeducted.get(rate) ?? 0) + row.grossPence - row.materialsPence);
  }
  const owed = [...undeducted].reduce(
    (sum, [rate, labour]) =>
      sum + getExpectedDeductionPence({ grossPence: labour, materialsPence: 0, deductionPence: 0 }, rate),
    0,
  );
  const xeroRate = contact?.cisEnabled === true ? contact.cisRate : null;
  const currentRate = verified?.rate ?? xeroRate;
  const rate = rates.size === 1 ? lastRate : rates.size === 0 ? currentRate : lastRate;
  if (rows.some((r) => !r.contactCis) && contact?.cisEnabled !== true)
    flags.push({
      code: 'not-cis',
      message: `Xero does not mark ${name} as a CIS subcontractor, yet these payments were made as CIS payments. Check the contact's CIS settings in Xero.`,
    });
  if (owed > 0)
    flags.push({
      code: 'nothing-deducted',
      message: `Paid in full with nothing deducted: at ${[...undeducted.keys()].map((r) => `${r} %`).join(' and ')} ${formatMoney(owed)} should have been deducted, and HMRC can ask the contractor for it.`,
    });
  if (rate === null)
    flags.push({
      code: 'rate-unknown',
      message: `Xero holds no CIS rate for ${name}, and the bills do not say one: check the contact's CIS settings in Xero.`,
    });
  if (rates.size > 1)
    flags.push({
      code: 'mixed-rates',
      message: `Paid at more than one rate this month (${[...rates]
        .sort((a, b) => a - b)
        .map((r) => `${r} %`)
        .join(', ')}): the return shows the latest.`,
    });
  else if (rate !== null && currentRate !== null && currentRate !== undefined && rate !== currentRate)
    flags.push({
      code: 'rate-differs',
      message: verified
        ? `Deducted at ${rate} %, while HMRC verified ${name} at ${verified.rate} % on ${formatDateMedium(verified.verifiedAt.slice(0, 10))}.`
        : `Deducted at ${rate} %, while Xero's CIS settings for ${name} now say ${currentRate} %.`,
    });
  if (gross < 0 || deduction < 0 || materials < 0)
    flags.push({
      code: 'negative',
      message:
        'Refunds this month exceed the payments: HMRC’s return takes no negative figures. Correct the month the payment was reported in instead (CISR72030).',
    });
  return {
    contactId,
    name,
    rate,
    grossPence: gross,
    materialsPence: materials,
    deductionPence: deduction,
    flags,
  };
}
