import crypto from 'node:crypto';

/**
 * Xero signs each webhook delivery with the app's webhook key: `x-xero-signature` is the base64 HMAC-SHA256 of
 * the raw request body (developer.xero.com/documentation/webhooks/configuring-your-server). The body must be
 * hashed as it arrived: parsing and re-serialising the JSON changes the bytes. Compared in constant time.
 */
export function isXeroSignatureValid(
  rawBody: Buffer,
  header: string | string[] | undefined,
  webhookKey: string,
): boolean {
  if (typeof header !== 'string' || header.length === 0 || header.length > 128) return false;
  const expected = crypto.createHmac('sha256', webhookKey).update(rawBody).digest();
  let given: Buffer;
  try {
    given = Buffer.from(header, 'base64');
  } catch {
    return false;
  }
  // Buffer.from ignores characters outside base64; a header that does not round-trip is not Xero's.
  if (given.toString('base64') !== header.trim()) return false;
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
