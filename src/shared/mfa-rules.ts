/**
 * The sign-in answer's check without zod: the client's first screen (lib/auth) imports it, and zod stays out
 * of its download (bench/results.md §3). `mfa.ts` re-exports it beside the schemas.
 */
export function isMfaChallenge<Answer extends object>(
  answer: Answer,
): answer is Extract<Answer, { mfaRequired: true } | { mfaSetupRequired: true }> {
  return 'mfaRequired' in answer || 'mfaSetupRequired' in answer;
}
