import { redoSuspectsOf } from '@/shared/redo-warning';
import { REDO_CONFIRM_HEADER, REDO_CONFIRMED } from '@/shared/redo-warning';
import { isApiError } from './api-client';

/** The person chose not to send it after the redo warning: nothing was sent. */
export class RedoDeclined extends Error {
  constructor(message: string) {
    super(message);
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
    if (suspects.length === 0) throw error;
    const { askRedo } = await import('@/client/components/redo-warning-dialog');
    if (!(await askRedo(suspects, words))) throw new RedoDeclined(suspects.map((s) => s.message).join('. '));
    return send(true);
  }
}
