import { AppError } from '../lib/app-error';

/**
 * How a write to Xero failed, for a user's message (issue 17 item 3): Xero `refused` it, or it was not
 * sent (both `not-applied`), or Xero gave no clear answer (`unconfirmed`: it may have been applied, and the
 * write ledger checks with Xero before anything is sent again).
 */
export interface WriteFailure {
  outcome: 'not-applied' | 'unconfirmed';
  /** One clause without a closing full stop, ready to sit inside a sentence. */
  reason: string;
}

function clause(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}

/** Reads an error thrown by the write ledger (or before it) as not applied or unconfirmed, with its reason. */
export function describeWriteFailure(error: unknown): WriteFailure {
  if (error instanceof AppError && error.extra?.writeState === 'unknown') {
    const reached = !/could not be reached/i.test(error.detail ?? '');
    return {
      outcome: 'unconfirmed',
      reason: reached ? 'Xero answered with an error' : 'no answer from Xero',
    };
  }
  if (error instanceof AppError && (error.code === 'XERO_REJECTED' || error.code === 'UNPROCESSABLE')) {
    return { outcome: 'not-applied', reason: `Xero refused it: ${clause(error.message)}` };
  }
  return { outcome: 'not-applied', reason: clause(error instanceof Error ? error.message : String(error)) };
}
