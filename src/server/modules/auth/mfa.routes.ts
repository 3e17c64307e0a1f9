import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { currentUserSchema } from '../../../shared/auth';
import {
  MFA_TEXTS,
  mfaDisableRequestSchema,
  mfaDisableResponseSchema,
  mfaEnableRequestSchema,
  mfaEnableResponseSchema,
  mfaSetupResponseSchema,
  mfaStatusSchema,
  mfaVerifyRequestSchema,
  type MfaChallenge,
} from '../../../shared/mfa';
import { errorResponseSchema } from '../../../shared/errors';
import { AppError } from '../../lib/app-error';
import { sha256 } from '../../lib/crypto';
import { toCurrentUser } from './auth.service';
import { requireUser } from './guards';
import type { LoginStep, MfaContext, MfaService } from './mfa.service';
import type { SessionStore, SessionUser } from './sessions';

/** A password sign-in waiting for its second step expires after this long. */
export const PENDING_SESSION_MS = 10 * 60_000;

const recoveryCodesResponseSchema = z.object({ recoveryCodes: z.array(z.string()) });

function contextOf(request: FastifyRequest, user: Pick<SessionUser, 'id' | 'username'>): MfaContext {
  return { userId: user.id, username: user.username, ip: request.ip };
}

/** A whole session, or one that may only set two-step sign-in up (an administrator it is compulsory for). */
function requireSetupCaller(request: FastifyRequest): { user: SessionUser; pending: boolean } {
  const session = request.session;
  if (session?.mfaPending && !session.user.mfaEnabled) return { user: session.user, pending: true };
  return { user: requireUser(request), pending: false };
}

/** A session whose password was right and which now waits for a code. */
function requirePendingVerify(request: FastifyRequest): SessionUser {
  const session = request.session;
  if (!session?.mfaPending || !session.user.mfaEnabled)
    throw new AppError('UNAUTHENTICATED', MFA_TEXTS.noPendingSignIn);
  return session.user;
}

export interface MfaSignIn {
  /** After a right password: 'none' (sign in now), 'verify' (ask for a code) or 'setup' (set it up first). */
  getLoginStep(user: { mfaEnabled: boolean; isAdmin: boolean; passwordHash: string | null }): LoginStep;
  /** Opens a short session that can do nothing but the missing step, and says which step that is. */
  startPendingSession(
    request: FastifyRequest,
    reply: FastifyReply,
    user: { id: number; username: string },
    step: Exclude<LoginStep, 'none'>,
  ): Promise<MfaChallenge>;
}

/**
 * Two-step sign-in (TOTP) for accounts with a password: set up, turn on (recovery codes shown once), turn
 * off, the second step of a password sign-in, and new recovery codes. Called from registerAuthRoutes with the
 * service buildApp wired.
 */
export function registerMfaRoutes(
  root: FastifyInstance,
  deps: { service: MfaService; sessions: SessionStore },
): MfaSignIn {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { sessions, service } = deps;

  /** Ends every session of the user (other browsers included) and opens a new, whole one here. */
  async function startFreshSession(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: number,
  ): Promise<void> {
    await sessions.destroy(request, reply);
    await sessions.destroyAllForUser(userId);
    await sessions.create(reply, request, userId);
  }

  app.get(
    '/api/auth/mfa',
    { schema: { response: { 200: mfaStatusSchema, 401: errorResponseSchema } } },
    async (request) => service.getStatus(requireUser(request).id),
  );

  app.post(
    '/api/auth/mfa/setup',
    { schema: { response: { 200: mfaSetupResponseSchema } } },
    async (request) => {
      const { user } = requireSetupCaller(request);
      return service.setup(contextOf(request, user));
    },
  );

  app.post(
    '/api/auth/mfa/enable',
    { schema: { body: mfaEnableRequestSchema, response: { 200: mfaEnableResponseSchema } } },
    async (request, reply) => {
      const { user } = requireSetupCaller(request);
      const result = await service.enable(contextOf(request, user), request.body.code);
      // Sessions opened with the password alone (here or elsewhere) end; this browser gets a new, whole one.
      await startFreshSession(request, reply, user.id);
      return reply.send({ recoveryCodes: result.recoveryCodes, user: toCurrentUser(result.user) });
    },
  );

  app.post(
    '/api/auth/mfa/verify',
    { schema: { body: mfaVerifyRequestSchema, response: { 200: currentUserSchema } } },
    async (request, reply) => {
      const pendingUser = requirePendingVerify(request);
      const { user, method } = await service.verify(contextOf(request, pendingUser), request.body.code);
      // A new session id once the second step is done: the pending one is never promoted.
      await sessions.destroy(request, reply);
      await sessions.create(reply, request, user.id);
      await service.recordSignIn(contextOf(request, user), method);
      return reply.send(toCurrentUser(user));
    },
  );

  app.post(
    '/api/auth/mfa/disable',
    { schema: { body: mfaDisableRequestSchema, response: { 200: mfaDisableResponseSchema } } },
    async (request) => {
      const user = requireUser(request);
      await service.disable(contextOf(request, user), request.body);
      return { enabled: false as const };
    },
  );

  app.post(
    '/api/auth/mfa/recovery-codes',
    { schema: { body: mfaEnableRequestSchema, response: { 200: recoveryCodesResponseSchema } } },
    async (request) => {
      const user = requireUser(request);
      return {
        recoveryCodes: await service.regenerateRecoveryCodes(contextOf(request, user), request.body.code),
      };
    },
  );

  return {
    getLoginStep: (user) => service.getLoginStep(user),
    async startPendingSession(request, reply, user, step) {
      const token = await sessions.create(reply, request, user.id, { mfaPending: true });
      await service.limitSessionLifetime(sha256(token), new Date(Date.now() + PENDING_SESSION_MS));
      await service.recordChallenge(contextOf(request, user), step);
      return step === 'verify' ? { mfaRequired: true } : { mfaSetupRequired: true };
    },
  };
}
