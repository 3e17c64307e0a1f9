import crypto from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import {
  formatRecoveryCode,
  isRecoveryCode,
  isTotpCode,
  MFA_TEXTS,
  normalizeRecoveryCode,
  normalizeTotpCode,
  RECOVERY_CODE_ALPHABET,
  RECOVERY_CODE_COUNT,
  RECOVERY_CODE_LENGTH,
  type MfaSetupResponse,
  type MfaStatus,
} from '../../../shared/mfa';
import { AppError } from '../../lib/app-error';
import type { SecretBox } from '../../lib/crypto';
import type { AuditLog, AuditAction } from '../audit/audit';
import type { MfaLimiter } from './mfa.limiter';
import type { MfaRepository } from './mfa.repository';
import { hashPassword, verifyPassword } from './password';

export const MFA_ISSUER = 'Ledgerlink';
/** One step either side of now: phones whose clocks drift by up to 30 seconds still get in. */
const EPOCH_TOLERANCE_SECONDS = 30;

type MfaUser = NonNullable<Awaited<ReturnType<MfaRepository['findUser']>>>;

/** What a password sign-in still needs before it becomes a session. */
export type LoginStep = 'none' | 'verify' | 'setup';

export interface MfaContext {
  userId: number;
  username: string;
  ip: string;
}

type CodeCheck = { ok: true; method: 'totp' | 'recovery' } | { ok: false; reason: 'wrong' | 'replayed' };

function createRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i += 1)
    code += RECOVERY_CODE_ALPHABET[crypto.randomInt(RECOVERY_CODE_ALPHABET.length)];
  return code;
}

export function createMfaService(deps: {
  repo: MfaRepository;
  limiter: MfaLimiter;
  box: () => SecretBox;
  audit: AuditLog;
  requireMfaForAdmins: boolean;
}) {
  const { repo, limiter, audit } = deps;

  async function getUser(userId: number): Promise<MfaUser> {
    const user = await repo.findUser(userId);
    if (!user) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
    return user;
  }

  function isRequiredFor(user: Pick<MfaUser, 'isAdmin' | 'passwordHash'>): boolean {
    return deps.requireMfaForAdmins && user.isAdmin && user.passwordHash !== null;
  }

  function readSecret(user: MfaUser): string {
    if (!user.mfaSecretEnc) throw new AppError('CONFLICT', MFA_TEXTS.noSetup);
    return deps.box().decrypt(user.mfaSecretEnc);
  }

  async function checkTotp(userId: number, secret: string, input: string): Promise<CodeCheck> {
    const result = await verify({
      secret,
      token: normalizeTotpCode(input),
      epochTolerance: EPOCH_TOLERANCE_SECONDS,
    });
    // The functional verify answers for HOTP too; a TOTP match carries its time step.
    if (!result.valid || !('timeStep' in result)) return { ok: false, reason: 'wrong' };
    // Each time step once: the step is advanced atomically, so two requests racing with one code cannot both win.
    const last = await repo.getLastTimeStep(userId);
    if (last !== null && result.timeStep <= last) return { ok: false, reason: 'replayed' };
    return (await repo.advanceTimeStep(userId, result.timeStep))
      ? { ok: true, method: 'totp' }
      : { ok: false, reason: 'replayed' };
  }

  async function useRecoveryCode(user: MfaUser, input: string): Promise<CodeCheck> {
    const code = normalizeRecoveryCode(input);
    const hashes = user.mfaRecoveryCodes;
    for (const [index, hash] of hashes.entries()) {
      if (!(await verifyPassword(hash, code))) continue;
      const rest = hashes.filter((_, i) => i !== index);
      return (await repo.replaceRecoveryCodes(user.id, hashes, rest))
        ? { ok: true, method: 'recovery' }
        : { ok: false, reason: 'replayed' };
    }
    return { ok: false, reason: 'wrong' };
  }

  /** A TOTP code, or (when allowed) a recovery code; anything else is simply wrong. */
  async function checkCode(user: MfaUser, input: string, allowRecovery: boolean): Promise<CodeCheck> {
    if (isTotpCode(input)) return checkTotp(user.id, readSecret(user), input);
    if (allowRecovery && isRecoveryCode(input)) return useRecoveryCode(user, input);
    return { ok: false, reason: 'wrong' };
  }

  /** Runs one limited attempt: counts it, evaluates it, and turns a wrong answer into the message to show. */
  async function attempt(
    ctx: MfaContext,
    action: AuditAction,
    evaluate: () => Promise<CodeCheck | { ok: false; reason: 'password' }>,
  ) {
    const attemptId = await limiter.begin(ctx.userId, ctx.ip);
    const outcome = await evaluate();
    if (!outcome.ok) {
      await audit.recordFor(ctx, {
        action,
        result: 'failure',
        detail: { reason: outcome.reason },
      });
      const message =
        outcome.reason === 'replayed'
          ? MFA_TEXTS.usedCode
          : outcome.reason === 'password'
            ? MFA_TEXTS.wrongPassword
            : MFA_TEXTS.wrongCode;
      throw new AppError('VALIDATION_ERROR', message);
    }
    await limiter.succeed(attemptId);
    return outcome;
  }

  async function createRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, createRecoveryCode);
    const hashes = await Promise.all(codes.map((code) => hashPassword(code)));
    return { codes: codes.map(formatRecoveryCode), hashes };
  }

  return {
    /** After a right password: the session becomes whole now, waits for a code, or must set two-step sign-in up first. */
    getLoginStep(user: { mfaEnabled: boolean; isAdmin: boolean; passwordHash: string | null }): LoginStep {
      if (user.mfaEnabled) return 'verify';
      if (isRequiredFor(user)) return 'setup';
      return 'none';
    },

    /** A session waiting for its second step lives only until `expiresAt`, whatever the usual lifetime. */
    limitSessionLifetime(sessionId: string, expiresAt: Date): Promise<void> {
      return repo.limitSessionLifetime(sessionId, expiresAt);
    },

    /** The activity line of a sign-in left waiting for its second step, or its set-up. */
    async recordChallenge(ctx: MfaContext, step: Exclude<LoginStep, 'none'>): Promise<void> {
      await audit.record({
        userId: ctx.userId,
        username: ctx.username,
        action: 'user.mfa.challenge',
        result: 'success',
        ip: ctx.ip,
        detail: { step },
      });
    },

    /** The activity line of a sign-in finished with its second step (once its whole session is made). */
    async recordSignIn(ctx: MfaContext, method: 'totp' | 'recovery'): Promise<void> {
      await audit.record({
        userId: ctx.userId,
        username: ctx.username,
        action: 'user.login',
        result: 'success',
        ip: ctx.ip,
        detail: { method: `password+${method}` },
      });
    },

    async getStatus(userId: number): Promise<MfaStatus> {
      const user = await getUser(userId);
      return {
        enabled: user.mfaEnabled,
        available: user.passwordHash !== null,
        required: isRequiredFor(user),
        recoveryCodesLeft: user.mfaEnabled ? user.mfaRecoveryCodes.length : 0,
      };
    },

    /** A new key, stored encrypted and not in use until `enable` confirms a code from it. */
    async setup(ctx: MfaContext): Promise<MfaSetupResponse> {
      const user = await getUser(ctx.userId);
      if (user.passwordHash === null) throw new AppError('FORBIDDEN', MFA_TEXTS.notAvailable);
      if (user.mfaEnabled) throw new AppError('CONFLICT', MFA_TEXTS.alreadyOn);
      const secret = generateSecret();
      if (!(await repo.saveNewSecret(user.id, deps.box().encrypt(secret))))
        throw new AppError('CONFLICT', MFA_TEXTS.alreadyOn);
      const otpauthUri = generateURI({ issuer: MFA_ISSUER, label: user.username, secret });
      const qrCode = await QRCode.toDataURL(otpauthUri, { errorCorrectionLevel: 'M', margin: 1, width: 240 });
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.mfa.setup',
        result: 'success',
        ip: ctx.ip,
      });
      return { secret, otpauthUri, qrCode };
    },

    /** Confirms the waiting key with a code from it, turns two-step sign-in on, and returns the recovery codes once. */
    async enable(ctx: MfaContext, code: string): Promise<{ recoveryCodes: string[]; user: MfaUser }> {
      const user = await getUser(ctx.userId);
      if (user.passwordHash === null) throw new AppError('FORBIDDEN', MFA_TEXTS.notAvailable);
      if (user.mfaEnabled) throw new AppError('CONFLICT', MFA_TEXTS.alreadyOn);
      const secretEnc = user.mfaSecretEnc;
      if (!secretEnc) throw new AppError('CONFLICT', MFA_TEXTS.noSetup);
      await attempt(ctx, 'user.mfa.enable', () => checkCode(user, code, false));
      const { codes, hashes } = await createRecoveryCodes();
      if (!(await repo.enable(user.id, secretEnc, hashes)))
        throw new AppError('CONFLICT', MFA_TEXTS.alreadyOn);
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.mfa.enable',
        result: 'success',
        ip: ctx.ip,
      });
      return { recoveryCodes: codes, user: { ...user, mfaEnabled: true } };
    },

    /** The second step of a password sign-in: a TOTP code or a recovery code, each usable once. */
    async verify(
      ctx: MfaContext,
      code: string,
    ): Promise<{ user: MfaUser; method: 'totp' | 'recovery'; recoveryCodesLeft: number }> {
      const user = await getUser(ctx.userId);
      if (!user.mfaEnabled) throw new AppError('UNAUTHENTICATED', MFA_TEXTS.noPendingSignIn);
      const outcome = await attempt(ctx, 'user.mfa.verify', () => checkCode(user, code, true));
      const method = outcome.ok ? outcome.method : 'totp';
      const recoveryCodesLeft = user.mfaRecoveryCodes.length - (method === 'recovery' ? 1 : 0);
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.mfa.verify',
        result: 'success',
        ip: ctx.ip,
        detail: { method, ...(method === 'recovery' ? { recoveryCodesLeft } : {}) },
      });
      return { user, method, recoveryCodesLeft };
    },

    /** Turns it off with a code (TOTP or recovery) or the account password. */
    async disable(
      ctx: MfaContext,
      proof: { code?: string | undefined; password?: string | undefined },
    ): Promise<void> {
      const user = await getUser(ctx.userId);
      if (!user.mfaEnabled) throw new AppError('CONFLICT', MFA_TEXTS.notOn);
      if (isRequiredFor(user)) throw new AppError('FORBIDDEN', MFA_TEXTS.adminMustKeep);
      await attempt(ctx, 'user.mfa.disable', async () => {
        if (proof.code) return checkCode(user, proof.code, true);
        const ok =
          user.passwordHash !== null && (await verifyPassword(user.passwordHash, proof.password ?? ''));
        return ok ? { ok: true, method: 'totp' } : { ok: false, reason: 'password' };
      });
      await repo.disable(user.id);
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.mfa.disable',
        result: 'success',
        ip: ctx.ip,
        detail: { proof: proof.code ? 'code' : 'password' },
      });
    },

    /** New recovery codes (the old ones stop working), confirmed with a code from the app. */
    async regenerateRecoveryCodes(ctx: MfaContext, code: string): Promise<string[]> {
      const user = await getUser(ctx.userId);
      if (!user.mfaEnabled) throw new AppError('CONFLICT', MFA_TEXTS.notOn);
      await attempt(ctx, 'user.mfa.recovery_codes', () => checkCode(user, code, false));
      const { codes, hashes } = await createRecoveryCodes();
      const latest = await getUser(user.id);
      if (!(await repo.replaceRecoveryCodes(user.id, latest.mfaRecoveryCodes, hashes)))
        throw new AppError('CONFLICT', 'The recovery codes changed meanwhile. Try again.');
      await audit.record({
        userId: user.id,
        username: user.username,
        action: 'user.mfa.recovery_codes',
        result: 'success',
        ip: ctx.ip,
      });
      return codes;
    },
  };
}
export type MfaService = ReturnType<typeof createMfaService>;
