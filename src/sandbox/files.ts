/**
 * Small, valid attachment files generated on demand (nothing binary is stored in the state):
 * a one-page PDF receipt and a PNG "photo of a till receipt". Deterministic for a given title.
 */
import { crc32, deflateSync } from 'node:zlib';

function pdfEscape(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?');
}

export function createPdf(title: string, lines: string[]): Buffer {
  const textOps = [
    'BT /F1 18 Tf 56 780 Td (' + pdfEscape(title) + ') Tj ET',
    ...lines.map((line, i) => `BT /F1 11 Tf 56 ${740 - i * 18} Td (${pdfEscape(line)}) Tj ET`),
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(textOps, 'latin1')} >>\nstream\n${textOps}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((obj, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${obj}\nendobj\n`;
  });
  const xrefAt = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([len, typeAndData, crc]);
}

function hashText(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** A 240×320 PNG that looks like a photographed till receipt (paper, ruled lines, a total bar). */
export function createPng(title: string): Buffer {
  const width = 240;
  const height = 320;
  const seed = hashText(title);
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0;
    const lineIndex = Math.floor((y - 60) / 16);
    const lineWidth = 60 + ((seed >>> (lineIndex % 24)) % 110);
    for (let x = 0; x < width; x++) {
      let r = 92;
      let g = 84;
      let b = 74;
      const onPaper = x >= 24 && x < width - 24 && y >= 12 && y < height - 12;
      if (onPaper) {
        r = 250;
        g = 248;
        b = 240;
        if (y >= 24 && y < 44 && x >= 60 && x < width - 60) [r, g, b] = [30, 41, 59];
        if (y >= 60 && y < 236 && (y - 60) % 16 < 5 && x >= 40 && x < 40 + lineWidth)
          [r, g, b] = [148, 153, 160];
        if (y >= 60 && y < 236 && (y - 60) % 16 < 5 && x >= width - 80 && x < width - 40)
          [r, g, b] = [120, 125, 130];
        if (y >= 256 && y < 270 && x >= 40 && x < width - 40) [r, g, b] = [19, 120, 190];
      }
      const i = row + 1 + x * 3;
      raw[i] = r;
      raw[i + 1] = g;
      raw[i + 2] = b;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from(`Title\0${title.replace(/[^\x20-\x7e]/g, '?')}`, 'latin1')),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
