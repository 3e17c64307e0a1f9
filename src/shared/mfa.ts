import { z } from 'zod';
import { currentUserSchema, PASSWORD_MAX_LENGTH } from './auth';

// The sign-in answer's check is zod-free so the client's first screen can import it without zod.
export * from './mfa-rules';

/**
 * Two-step sign-in (TOTP) for accounts that sign in with a password. Not in the spec: Xero's security
 * standard for connected apps asks for it (or for Sign in with Xero, which has Xero's own two-step sign-in).
 */

export const TOTP_DIGITS = 6;
export const RECOVERY_CODE_COUNT = 10;
/** Recovery codes are 10 characters from this alphabet (no 0/o, 1/l/i), shown as two groups of five. */
export const RECOVERY_CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_LENGTH = 10;

export const MFA_TEXTS = {
  codeRequired: 'Enter the code',
  codeFormat: 'Enter the 6-digit code from your authenticator app',
  recoveryFormat: 'Enter a recovery code such as abcde-fghjk',
  wrongCode: 'That code is not right. Check your authenticator app and try again.',
  usedCode: 'That code has already been used. Wait for the next one.',
  disableProof: 'Enter a code from your authenticator app or your password',
  wrongPassword: 'That password is not right',
  notAvailable:
    'Two-step sign-in is for accounts that sign in with a password. Sign in with Xero uses Xero’s own two-step sign-in.',
  alreadyOn: 'Two-step sign-in is already on',
  notOn: 'Two-step sign-in is not on',
  noSetup: 'Start the set-up again: no authenticator key is waiting to be confirmed',
  adminMustKeep: 'Administrators must keep two-step sign-in on',
  noPendingSignIn: 'Sign in with your password first',
  tooManyAttempts: (minutes: number) => `Too many codes tried. Try again in ${minutes} minutes.`,
} as const;

/** What a person may type: a 6-digit code (spaces allowed) or a recovery code (dashes and spaces allowed). */
export const mfaCodeSchema = z.string().trim().min(1, MFA_TEXTS.codeRequired).max(64, MFA_TEXTS.codeFormat);

/** Digits only, without the spaces some apps show in the middle ("123 456"). */
export function normalizeTotpCode(input: string): string {
  return input.replace(/\s+/g, '');
}

export function isTotpCode(input: string): boolean {
  return new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(normalizeTotpCode(input));
}

/** Lower case, letters and digits only: "ABCDE-FGHJK" and "abcde fghjk" are the same code. */
export function normalizeRecoveryCode(input: string): string {
  return input.toLowerCase().replace(/[^a-z0-9]/g, '');
}

export function isRecoveryCode(input: string): boolean {
  const code = normalizeRecoveryCode(input);
  return code.length === RECOVERY_CODE_LENGTH && [...code].every((c) => RECOVERY_CODE_ALPHABET.includes(c));
}

/** "abcdefghjk" → "abcde-fghjk". */
export function formatRecoveryCode(code: string): string {
  const clean = normalizeRecoveryCode(code);
  return `${clean.slice(0, 5)}-${clean.slice(5)}`;
}

/** POST /api/auth/mfa/enable: the first code from the app confirms the key was saved. */
export const mfaEnableRequestSchema = z.object({
  code: mfaCodeSchema.refine(isTotpCode, MFA_TEXTS.codeFormat),
});
export type MfaEnableRequest = z.infer<typeof mfaEnableRequestSchema>;

/** POST /api/auth/mfa/verify: the second step of a password sign-in (a TOTP code or a recovery code). */
export const mfaVerifyRequestSchema = z.object({ code: mfaCodeSchema });
export type MfaVerifyRequest = z.infer<typeof mfaVerifyRequestSchema>;

/** POST /api/auth/mfa/disable: a code (TOTP or recovery) or the account password. */
export const mfaDisableRequestSchema = z
  .object({
    code: mfaCodeSchema.optional(),
    password: z.string().min(1, MFA_TEXTS.disableProof).max(PASSWORD_MAX_LENGTH).optional(),
  })
  .refine((body) => Boolean(body.code) !== Boolean(body.password), MFA_TEXTS.disableProof);
export type MfaDisableRequest = z.infer<typeof mfaDisableRequestSchema>;

/** GET /api/auth/mfa: the signed-in user's two-step sign-in. */
export const mfaStatusSchema = z.object({
  enabled: z.boolean(),
  /** False for an account without a password (Sign in with Xero only). */
  available: z.boolean(),
  /** True for an administrator when REQUIRE_MFA_FOR_ADMINS is on: it cannot be turned off. */
  required: z.boolean(),
  recoveryCodesLeft: z.number().int(),
});
export type MfaStatus = z.infer<typeof mfaStatusSchema>;

/** POST /api/auth/mfa/setup: a new key, not yet in use until a code confirms it. */
export const mfaSetupResponseSchema = z.object({
  /** Base32, for typing into an app that cannot scan. */
  secret: z.string(),
  otpauthUri: z.string(),
  /** The otpauth URI as a PNG data URL. */
  qrCode: z.string(),
});
export type MfaSetupResponse = z.infer<typeof mfaSetupResponseSchema>;

/** POST /api/auth/mfa/enable: the recovery codes, shown this once, and the user of the (new) session. */
export const mfaEnableResponseSchema = z.object({
  recoveryCodes: z.array(z.string()),
  user: currentUserSchema,
});
export type MfaEnableResponse = z.infer<typeof mfaEnableResponseSchema>;

export const mfaDisableResponseSchema = z.object({ enabled: z.literal(false) });

/**
 * POST /api/login and /api/auth/login answer with the user, or (200, so the client's 401 counting of
 * docs/product/shell.md §4 does not see a normal sign-in as a failure) with the step that is still missing.
 */
export const mfaRequiredSchema = z.object({ mfaRequired: z.literal(true) });
export const mfaSetupRequiredSchema = z.object({ mfaSetupRequired: z.literal(true) });
export const loginResponseSchema = z.union([currentUserSchema, mfaRequiredSchema, mfaSetupRequiredSchema]);
export type LoginResponse = z.infer<typeof loginResponseSchema>;
export type MfaChallenge = z.infer<typeof mfaRequiredSchema> | z.infer<typeof mfaSetupRequiredSchema>;
