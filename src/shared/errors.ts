import { z } from 'zod';
import { ERROR_CODES } from './errors-rules';

export * from './errors-rules';

/**
 * The one error shape of the whole API (docs/product/shell.md §8 reads `message` first, then `error`): `code`
 * names the kind, one of `ERROR_CODES` (docs/api-errors.md); some answers add fields of their own (a retry
 * time, the failed rows), so further fields are allowed.
 */
export const errorResponseSchema = z.looseObject({
  message: z.string(),
  code: z.enum(ERROR_CODES),
  error: z.string().optional(),
});

/** What each error status means, for the API description. */
export const ERROR_STATUS_DESCRIPTIONS = {
  400: 'The request is not valid (VALIDATION_ERROR, BAD_REQUEST, XERO_REJECTED)',
  401: 'Not signed in, or the Xero connection needs reconnecting (UNAUTHENTICATED, MFA_REQUIRED, XERO_AUTH_EXPIRED)',
  403: 'Not allowed: another organisation, a feature switched off, an organisation not connected to Xero, not an administrator, or a cross-origin request (FORBIDDEN, FEATURE_DISABLED, NOT_CONNECTED)',
  404: 'Not found (NOT_FOUND)',
  409: 'Conflicts with the current state, e.g. a duplicate or a write already in progress (CONFLICT)',
  413: 'The request body is too large (PAYLOAD_TOO_LARGE)',
  422: 'Understood but cannot be done (UNPROCESSABLE)',
  429: 'Too many requests; Retry-After says when to try again (RATE_LIMITED, XERO_RATE_LIMITED)',
  502: 'Xero could not be reached (XERO_UNAVAILABLE)',
} as const;
