import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { TEST_ORIGIN } from './app';

/** The `ll_session=…` pair from a response's Set-Cookie, ready for a Cookie header. */
export function sessionCookie(res: LightMyRequestResponse): string {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw : raw ? [raw] : [];
  const found = list.find((c) => c.startsWith('ll_session=') && !c.startsWith('ll_session=;'));
  if (!found) throw new Error(`no session cookie in response ${res.statusCode}: ${res.body}`);
  return found.split(';')[0] ?? '';
}

export async function register(
  app: FastifyInstance,
  username: string,
  password = 'Sturdy-Ledger-Pass-1',
  email?: string,
) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/register',
    headers: { origin: TEST_ORIGIN },
    payload: { username, password, ...(email ? { email } : {}) },
  });
  if (res.statusCode !== 201) throw new Error(`register ${username} failed: ${res.statusCode} ${res.body}`);
  return {
    cookie: sessionCookie(res),
    user: res.json() as { id: number; username: string; isAdmin: boolean },
  };
}

export async function login(app: FastifyInstance, username: string, password: string, ip?: string) {
  return app.inject({
    method: 'POST',
    url: '/api/login',
    headers: { origin: TEST_ORIGIN },
    payload: { username, password },
    ...(ip ? { remoteAddress: ip } : {}),
  });
}

/** An inject helper that sends the cookie and a same-origin header. */
export function as(app: FastifyInstance, cookie: string) {
  return (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({
      method,
      url,
      headers: { cookie, origin: TEST_ORIGIN },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
}
