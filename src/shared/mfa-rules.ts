import type { LoginResponse, MfaChallenge } from './mfa';

/**
 * The sign-in answer's check without zod: the client's first screen (lib/auth) imports it, and zod stays out
 * of its download (bench §3). `mfa.ts` re-exports it beside the schemas.
 */
export function isMfaChallenge(answer: LoginResponse): answer is MfaChallenge {
  return 'mfaRequired' in answer || 'mfaSetupRequired' in answer;
}
