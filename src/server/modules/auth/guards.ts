import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/app-error';
import type { RequestPrincipal, SessionInfo, SessionUser } from './sessions';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in session, resolved once per /api request (null when signed out). */
    session: SessionInfo | null;
    /** Read with the session: the Xero token's state and the organisation asked for (null outside /api). */
    principal: RequestPrincipal | null;
    /**
     * How many changes to who may do what this instance had announced when the /api request began (null
     * elsewhere): one announced since holds the answer until the other instances have heard (app.ts, decision 032).
     */
    accessChangesAtStart: number | null;
  }
}

/** The signed-in user, or a 401 "Not authenticated" (the spec's client reacts to that text). */
export function requireUser(request: FastifyRequest): SessionUser {
  const session = request.session;
  if (!session || session.mfaPending) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
  return session.user;
}

export function requireAdmin(request: FastifyRequest): SessionUser {
  const user = requireUser(request);
  if (!user.isAdmin) throw new AppError('FORBIDDEN', 'Administrator access required');
  return user;
}
