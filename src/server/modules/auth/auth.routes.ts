import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { adminCheckResponseSchema } from '../../../shared/admin';
import {
  currentUserSchema,
  devCredentialsSchema,
  loginRequestSchema,
  logoutResponseSchema,
  registerRequestSchema,
} from '../../../shared/auth';
import { loginResponseSchema } from '../../../shared/mfa';
import { errorResponseSchema } from '../../../shared/errors';
import { AppError } from '../../lib/app-error';
import type { AuthService } from './auth.service';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_MS, type LoginLimiter } from './login-limiter';
import { toCurrentUser } from './auth.service';
import { requireUser } from './guards';
import { registerMfaRoutes } from './mfa.routes';
import type { MfaService } from './mfa.service';
import type { SessionStore } from './sessions';

/**
 * New accounts per address (issue 16): each costs an argon2 hash and a row, so one source cannot make them
 * without end. REGISTRATIONS_PER_HOUR (20 unless set) are allowed in this window; an office behind one address
 * raises it, and more waits (Retry-After).
 */
const REGISTRATION_WINDOW_MS = 60 * 60_000;

function isLoopback(ip: string): boolean {
  return ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';
}

export function registerAuthRoutes(
  root: FastifyInstance,
  deps: {
    auth: AuthService;
    sessions: SessionStore;
    demoCredentials: { username: string; password: string } | undefined;
    /** Two-step sign-in (it applies REQUIRE_MFA_FOR_ADMINS). */
    mfa: MfaService;
    limiter: LoginLimiter;
    /** Cookies over HTTPS only (the session's setting). */
    secureCookie: boolean;
    /** REGISTRATIONS_PER_HOUR: new accounts one address may create in an hour. */
    registrationsPerHour: number;
  },
) {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { auth, sessions } = deps;
  const mfa = registerMfaRoutes(root, { service: deps.mfa, sessions });

  const currentUser = async (request: FastifyRequest) => {
    const user = requireUser(request);
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      isAdmin: user.isAdmin,
      isXeroUser: user.isXeroUser,
    };
  };
  const userResponse = { response: { 200: currentUserSchema, 401: errorResponseSchema } };
  app.get('/api/user', { schema: userResponse }, currentUser);
  app.get('/api/auth/current-user', { schema: userResponse }, currentUser);

  const registrationLimit = {
    max: deps.registrationsPerHour,
    timeWindow: REGISTRATION_WINDOW_MS,
    errorResponseBuilder: (_request: FastifyRequest, context: { after: string }) =>
      new AppError('RATE_LIMITED', `Too many new accounts from this address. Try again in ${context.after}.`),
  };
  app.post(
    '/api/register',
    {
      config: { rateLimit: registrationLimit },
      schema: { body: registerRequestSchema, response: { 201: loginResponseSchema } },
    },
    async (request, reply) => {
      const user = await auth.register(request.body, request.ip);
      // The first user is an administrator: with REQUIRE_MFA_FOR_ADMINS they set up two-step sign-in first.
      const step = mfa.getLoginStep(user);
      if (step !== 'none')
        return reply.status(201).send(await mfa.startPendingSession(request, reply, user, step));
      await sessions.create(reply, request, user.id);
      return reply.status(201).send(toCurrentUser(user));
    },
  );

  const login = async (
    request: FastifyRequest<{ Body: z.infer<typeof loginRequestSchema> }>,
    reply: FastifyReply,
  ) => {
    const user = await auth.login(
      request.body.username,
      request.body.password,
      request.ip,
      request.cookies[DEVICE_COOKIE],
    );
    // The password was right: this browser is now a known device of the account (login-limiter.ts). Set after
    // the session cookie, which stays the first one of the answer.
    const rememberDevice = () =>
      reply.setCookie(DEVICE_COOKIE, deps.limiter.createDeviceToken(user.username), {
        httpOnly: true,
        sameSite: 'strict',
        secure: deps.secureCookie,
        path: '/api',
        maxAge: Math.floor(DEVICE_COOKIE_MAX_AGE_MS / 1000),
      });
    // A new session id at every sign-in: a session fixed before sign-in is never promoted.
    await sessions.destroy(request, reply);
    // Two-step sign-in: the session stays pending (signed out for everything else) until its code, or its set-up.
    const step = mfa.getLoginStep(user);
    if (step !== 'none') {
      const pending = await mfa.startPendingSession(request, reply, user, step);
      rememberDevice();
      return reply.send(pending);
    }
    await sessions.create(reply, request, user.id);
    rememberDevice();
    return reply.send(toCurrentUser(user));
  };
  app.post(
    '/api/login',
    { schema: { body: loginRequestSchema, response: { 200: loginResponseSchema } } },
    login,
  );
  app.post(
    '/api/auth/login',
    { schema: { body: loginRequestSchema, response: { 200: loginResponseSchema } } },
    login,
  );

  const logout = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.session?.user;
    await sessions.destroy(request, reply);
    if (user) await auth.recordLogout(user, request.ip);
    return reply.send({ ok: true as const });
  };
  app.post('/api/logout', { schema: { response: { 200: logoutResponseSchema } } }, logout);
  app.post('/api/auth/logout', { schema: { response: { 200: logoutResponseSchema } } }, logout);

  app.get(
    '/api/admin/check',
    { schema: { response: { 200: adminCheckResponseSchema } } },
    async (request) => ({
      isAdmin: requireUser(request).isAdmin,
    }),
  );

  // The development helper of docs/product/shell.md §6: demo mode only, and only to a browser on this
  // machine.
  app.get(
    '/api/auth/dev-credentials',
    { schema: { response: { 200: devCredentialsSchema } } },
    async (request) => {
      if (!deps.demoCredentials || !isLoopback(request.ip)) throw new AppError('NOT_FOUND', 'Not found');
      return deps.demoCredentials;
    },
  );
}
