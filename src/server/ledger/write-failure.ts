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

/**
 * The write ledger's error for a write left unconfirmed, reworded to say whether Xero answered with an error or
 * gave no answer at all (issue 17 item 3: 'did not confirm in time' read as if Xero had refused); same code and
 * extra, so callers and the client treat it as before. Any other error is returned unchanged.
 */
export function explainUnconfirmed(error: unknown): unknown {
  if (!(error instanceof AppError) || error.extra?.writeState !== 'unknown') return error;
  const { reason } = describeWriteFailure(error);
  const opening = reason.charAt(0).toUpperCase() + reason.slice(1);
  return new AppError(
    error.code,
    `${opening}: it did not confirm this change. Ledgerlink will check with Xero before anything is sent again; refresh in a minute to see the result.`,
    error.detail,
    error.extra,
  );
}
