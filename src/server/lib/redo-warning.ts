import type { FastifyRequest } from 'fastify';
import { REDO_CONFIRM_HEADER, REDO_CONFIRMED, type RedoSuspect } from '../../shared/redo-warning';
import { AppError } from './app-error';

/** Whether the person chose to go on after the redo warning (the header of src/shared/redo-warning.ts). */
export function readRedoConfirmed(request: FastifyRequest): boolean {
  const raw = request.headers[REDO_CONFIRM_HEADER];
  return (Array.isArray(raw) ? raw[0] : raw) === REDO_CONFIRMED;
}

/**
 * The redo warning (issue 44): nothing is sent, and the answer (409) names what Xero already has, for the screen
 * to show and the person to decide. Sent again with the same key and the confirmation header, it goes on.
 */
export function refuseRedo(suspects: readonly RedoSuspect[]): never {
  const said = suspects.map((s) => s.message).join('. ');
  throw new AppError(
    'CONFLICT',
    `${said}. Nothing was sent: Ledgerlink's records were restored from a backup and may not show it. Check it in Xero; to make this one as well, confirm and send it again.`,
    undefined,
    { redo: suspects },
  );
}
