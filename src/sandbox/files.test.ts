import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createPng } from './files';

/** The chunks of a PNG file: type, data and the CRC-32 it carries. */
function chunks(png: Buffer): { type: string; data: Buffer; crc: string }[] {
  const found = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    found.push({ type, data, crc: png.toString('hex', at + 8 + length, at + 12 + length) });
    at += 12 + length;
  }
  return found;
}

describe('the sandbox’s receipt photo', () => {
  it('is a PNG a viewer accepts: signature, chunks in order, each with its CRC-32', () => {
    const png = createPng('Receipt');
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const found = chunks(png);
    expect(found.map((c) => c.type)).toEqual(['IHDR', 'tEXt', 'IDAT', 'IEND']);
    // CRC-32 values of these exact chunks (PNG spec, ISO 3309 polynomial); IEND's is the one every PNG ends with.
    expect(found[0]?.crc).toBe('0d8a6604');
    expect(found[1]?.crc).toBe('d6f37dbb');
    expect(found[3]?.crc).toBe('ae426082');
  });

  it('holds a 240×320 RGB image that inflates to one filtered row per line', () => {
    const [header, , data] = chunks(createPng('Receipt'));
    expect(header?.data.readUInt32BE(0)).toBe(240);
    expect(header?.data.readUInt32BE(4)).toBe(320);
    expect(inflateSync(data?.data ?? Buffer.alloc(0)).length).toBe((240 * 3 + 1) * 320);
  });
});
