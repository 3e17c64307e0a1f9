import { REDO_CONFIRM_HEADER, REDO_CONFIRMED, redoSuspectsOf, type RedoSuspect } from '@/shared/redo-warning';
import { ApiError, isApiError } from './api-client';

/**
 * The person chose not to send it after the redo warning: nothing was sent. An answer of the server's kind (the
 * 409 it was), so every screen's own error path words it: "Not sent: Xero already has …".
 */
export class RedoDeclined extends ApiError {
  constructor(warning: ApiError, suspects: readonly RedoSuspect[]) {
    const message = `Not sent: ${suspects.map((s) => s.message).join('. ')}.`;
    super(message, warning.status, { ...(warning.body as object), message }, warning.path);
    this.name = 'RedoDeclined';
  }
}

/** The header a request carries once the person chose to go on after the redo warning. */
export function redoConfirmHeader(confirmRedo: boolean | undefined): Record<string, string> {
  return confirmRedo ? { [REDO_CONFIRM_HEADER]: REDO_CONFIRMED } : {};
}

/**
 * Sends a payment, a new invoice or new bills, and when the server answers with the redo warning (issue 44: after
 * a restore, Xero already has one like it), shows what Xero has and lets the person choose: go on (the same
 * request again, same Idempotency-Key, confirmed) or not (RedoDeclined, nothing sent). Any other error is thrown
 * as it came. `goOn` is the button's words ("Pay it again", "Create the bills anyway").
 */
export async function sendWithRedoWarning<T>(
  send: (confirmRedo: boolean) => Promise<T>,
  words: { title: string; goOn: string },
): Promise<T> {
  try {
    return await send(false);
  } catch (error) {
    const suspects = isApiError(error) && error.status === 409 ? redoSuspectsOf(error.body) : [];
    if (!isApiError(error) || suspects.length === 0) throw error;
    const { askRedo } = await import('@/client/components/redo-warning-dialog');
    if (!(await askRedo(suspects, words))) throw new RedoDeclined(error, suspects);
    return send(true);
  }
}
