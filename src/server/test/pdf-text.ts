/**
 * Reads the text back out of a PDF made with pdf-lib's standard fonts (tests only): every content stream is
 * inflated and the strings of its text operators are decoded (Windows-1252, the standard fonts' encoding), one
 * line per text operator, in drawing order. Enough to check what a statement says without a PDF library.
 */
import { inflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';

const decoder = new TextDecoder('windows-1252');

function decodeHex(hex: string): string {
  const clean = hex.replace(/\s+/g, '');
  const bytes = new Uint8Array(Math.floor(clean.length / 2));
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return decoder.decode(bytes);
}

function decodeLiteral(body: string): string {
  return body.replace(/\\([nrtbf()\\]|[0-7]{1,3})/g, (_, esc: string) => {
    const map: Record<string, string> = {
      n: '\n',
      r: '\r',
      t: '\t',
      b: '\b',
      f: '\f',
      '(': '(',
      ')': ')',
      '\\': '\\',
    };
    return map[esc] ?? String.fromCharCode(parseInt(esc, 8));
  });
}

/** The text lines of every page of the PDF, in order. */
export function readPdfText(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const lines: string[] = [];
  const streamRe = /(?<!end)stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamRe.exec(raw))) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    if (end < 0) break;
    const data = pdf.subarray(start, end);
    let content: string;
    try {
      content = inflateSync(data).toString('latin1');
    } catch {
      content = data.toString('latin1');
    }
    const textRe = /<([0-9A-Fa-f\s]*)>\s*Tj|\(((?:\\.|[^\\)])*)\)\s*Tj/g;
    let t: RegExpExecArray | null;
    while ((t = textRe.exec(content)))
      lines.push(t[1] !== undefined ? decodeHex(t[1]) : decodeLiteral(t[2] ?? ''));
    streamRe.lastIndex = end + 'endstream'.length;
  }
  return lines;
}

/** The pages' sizes in points, read with pdf-lib (A4 is 595 × 842). */
export async function readPdfPageSizes(pdf: Buffer): Promise<Array<{ width: number; height: number }>> {
  const doc = await PDFDocument.load(pdf);
  return doc.getPages().map((page) => page.getSize());
}
