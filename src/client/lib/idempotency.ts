/**
 * Idempotency keys of writes. One key per user action (Pay, Process, Create, Save, Approve, Delete, Post),
 * made when the user acts and reused only by that action's retries: the server records the write under it
 * before sending it to Xero, so a resend can never pay, approve or post twice.
 */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

/** The request header that carries it. */
export function idempotencyHeader(key: string): { 'Idempotency-Key': string } {
  return { 'Idempotency-Key': key };
}
