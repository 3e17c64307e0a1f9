/**
 * The subcontractor's payment and deduction statement as a PDF (issues 29, 42), made with pdf-lib: one A4 page per
 * statement carrying every field HMRC asks for (CISR12160): the contractor's name and employer's tax reference,
 * the tax month's end date, the subcontractor's name and UTR, the verification number where the 30 % rate applied,
 * the gross amount paid (excluding VAT), the cost of materials and the amount deducted. A statement for a month
 * that changed since it was filed is titled as corrected.
 */
import { PDFDocument, rgb, type PDFFont, type PDFPage, type StandardFonts } from 'pdf-lib';
import { getDateParts, MONTHS_LONG } from '../../../shared/dates';
import { formatMoney, toPence } from '../../../shared/money';
import type { CisStatement } from './cis-returns.service';

// pdf-lib's enum keys read like Xero's PascalCase fields to the boundary lint rule: the font names are what count.
const HELVETICA = 'Helvetica' as StandardFonts;
const HELVETICA_BOLD = 'Helvetica-Bold' as StandardFonts;
/** A4 in PostScript points. */
const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;

/** 5 December 2026: the way HMRC writes dates on its forms. */
export function formatStatementDate(isoDate: string): string {
  const { year, month, day } = getDateParts(isoDate);
  return `${day} ${MONTHS_LONG[month - 1]} ${year}`;
}

/**
 * The standard PDF fonts speak Windows-1252 only: a character they cannot draw is written without its accent
 * when it has one (Łukasz → Lukasz), else as "?", so a name never stops a statement.
 */
function drawable(font: PDFFont, text: string): string {
  let out = '';
  for (const ch of text) {
    try {
      font.encodeText(ch);
      out += ch;
    } catch {
      const plain = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      const fallback = { Ł: 'L', ł: 'l', Ø: 'O', ø: 'o', Đ: 'D', đ: 'd' }[ch] ?? plain;
      try {
        font.encodeText(fallback);
        out += fallback;
      } catch {
        out += '?';
      }
    }
  }
  return out;
}

function pounds(amount: number): string {
  return formatMoney(toPence(amount));
}

function drawStatement(page: PDFPage, fonts: { regular: PDFFont; bold: PDFFont }, s: CisStatement) {
  const { regular, bold } = fonts;
  const [width, height] = A4;
  const ink = rgb(0.1, 0.1, 0.12);
  const muted = rgb(0.35, 0.37, 0.4);
  const rule = rgb(0.8, 0.82, 0.85);
  let y = height - MARGIN;

  const text = (value: string, x: number, size: number, font = regular, color = ink) =>
    page.drawText(drawable(font, value), { x, y, size, font, color });
  const right = (value: string, xRight: number, size: number, font = regular) => {
    const safe = drawable(font, value);
    page.drawText(safe, { x: xRight - font.widthOfTextAtSize(safe, size), y, size, font, color: ink });
  };
  const hr = () =>
    page.drawLine({ start: { x: MARGIN, y }, end: { x: width - MARGIN, y }, thickness: 0.75, color: rule });

  text('Construction Industry Scheme', MARGIN, 11, regular, muted);
  y -= 24;
  text(
    s.corrected ? 'Payment and deduction statement (corrected)' : 'Payment and deduction statement',
    MARGIN,
    20,
    bold,
  );
  y -= 18;
  text(`Tax month ending ${formatStatementDate(s.taxMonthEnd)}`, MARGIN, 12, regular, muted);
  y -= 22;
  hr();
  y -= 26;

  const field = (label: string, value: string, x: number) => {
    page.drawText(drawable(regular, label), { x, y: y + 14, size: 9, font: regular, color: muted });
    page.drawText(drawable(bold, value), { x, y, size: 12, font: bold, color: ink });
  };
  const column = (width - 2 * MARGIN) / 2;
  text('Contractor', MARGIN, 13, bold);
  text('Subcontractor', MARGIN + column, 13, bold);
  y -= 34;
  field('Name', s.contractorName, MARGIN);
  field('Name', s.line.name, MARGIN + column);
  y -= 36;
  // The service refuses a statement missing a reference HMRC asks for (CISR12160): these are all set.
  field("Employer's tax reference", s.employerReference, MARGIN);
  field('Unique Taxpayer Reference (UTR)', s.line.utr ?? '', MARGIN + column);
  y -= 36;
  if (s.accountsOfficeReference) field('Accounts office reference', s.accountsOfficeReference, MARGIN);
  if (s.line.verificationNumber) field('Verification number', s.line.verificationNumber, MARGIN + column);
  y -= 36;
  if (s.contractorUtr) field('UTR', s.contractorUtr, MARGIN);
  if (s.line.rate !== null) field('Deduction rate', `${s.line.rate}%`, MARGIN + column);
  y -= 34;
  hr();
  y -= 30;

  text('Payments in the tax month', MARGIN, 13, bold);
  y -= 28;
  const liable = toPence(s.line.grossAmount) - toPence(s.line.materialsAmount);
  const net = toPence(s.line.grossAmount) - toPence(s.line.deductionAmount);
  const rows: Array<[string, string, boolean]> = [
    ['Gross amount paid (excluding VAT)', pounds(s.line.grossAmount), false],
    ['Less cost of materials', pounds(s.line.materialsAmount), false],
    ['Amount liable to deduction', formatMoney(liable), false],
    ['Amount deducted', pounds(s.line.deductionAmount), true],
    ['Amount paid (gross less deduction, excluding VAT)', formatMoney(net), false],
  ];
  for (const [label, value, strong] of rows) {
    text(label, MARGIN, 11, strong ? bold : regular);
    right(value, width - MARGIN, 11, strong ? bold : regular);
    y -= 8;
    hr();
    y -= 18;
  }
  y -= 20;
  const notes = [
    'Keep this statement: it is the record of the tax deducted from your payments in this tax month.',
    `Statement period: tax month ending ${formatStatementDate(s.taxMonthEnd)} (period ${s.period}).`,
  ];
  for (const note of notes) {
    text(note, MARGIN, 9, regular, muted);
    y -= 14;
  }
}

/** The statements as one PDF, a page each (one statement: one page). */
export async function renderStatementsPdf(statements: readonly CisStatement[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const first = statements[0];
  doc.setTitle(
    statements.length === 1 && first
      ? `CIS statement ${first.line.name} ${first.period}`
      : `CIS statements ${first?.period ?? ''}`,
  );
  doc.setAuthor(first?.contractorName ?? 'Ledgerlink');
  doc.setProducer('Ledgerlink');
  doc.setCreator('Ledgerlink');
  const fonts = {
    regular: await doc.embedFont(HELVETICA),
    bold: await doc.embedFont(HELVETICA_BOLD),
  };
  for (const statement of statements) drawStatement(doc.addPage(A4), fonts, statement);
  return Buffer.from(await doc.save());
}

/** A file name for the download: `cis-statement-2026-12-hughes-groundworks-ltd.pdf`. */
export function statementFileName(period: string, name: string | null): string {
  const slug = (name ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return name ? `cis-statement-${period}-${slug || 'subcontractor'}.pdf` : `cis-statements-${period}.pdf`;
}
