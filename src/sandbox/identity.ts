/**
 * Xero's identity service on loopback: discovery, JWKS, the authorize (login + consent) pages, the
 * token endpoint (authorization code with PKCE; refresh with rotation and a grace period), userinfo
 * and revocation. docs/xero-api.md §2.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
} from 'jose';
import { renderConsentPage, renderErrorPage, renderLoginPage } from './authorize-page';
import type { AuthCode, PendingAuthorization, Runtime, SandboxClientConfig, SigningKeys } from './runtime';
import { findOrg, findUser } from './runtime';
import type { AccessTokenRec, RefreshTokenRec, UserRec } from './state';

export const SUPPORTED_SCOPES = [
  'openid',
  'profile',
  'email',
  'offline_access',
  'accounting.transactions',
  'accounting.transactions.read',
  'accounting.invoices',
  'accounting.invoices.read',
  'accounting.payments',
  'accounting.payments.read',
  'accounting.banktransactions',
  'accounting.banktransactions.read',
  'accounting.manualjournals',
  'accounting.manualjournals.read',
  'accounting.settings',
  'accounting.settings.read',
  'accounting.contacts',
  'accounting.contacts.read',
  'accounting.attachments',
  'accounting.attachments.read',
  'accounting.journals.read',
  'accounting.reports.read',
  'accounting.budgets.read',
];

const PENDING_TTL_MS = 30 * 60_000;

export async function createSigningKeys(): Promise<{ keys: SigningKeys; privateJwk: JWK; publicJwk: JWK }> {
  const pair = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = await exportJWK(pair.privateKey);
  const publicJwk = await exportJWK(pair.publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    keys: { ...pair, kid },
    privateJwk: { ...privateJwk, kid, alg: 'RS256' },
    publicJwk: { ...publicJwk, kid, alg: 'RS256', use: 'sig' },
  };
}

export async function importSigningKeys(privateJwk: JWK, publicJwk: JWK): Promise<SigningKeys> {
  const privateKey = await importJWK(privateJwk, 'RS256');
  const publicKey = await importJWK(publicJwk, 'RS256');
  if (privateKey instanceof Uint8Array || publicKey instanceof Uint8Array)
    throw new Error('expected RSA keys');
  return { privateKey, publicKey, kid: publicJwk.kid ?? (await calculateJwkThumbprint(publicJwk)) };
}

export function discoveryDocument(url: string): Record<string, unknown> {
  return {
    issuer: url,
    authorization_endpoint: `${url}/identity/connect/authorize`,
    token_endpoint: `${url}/connect/token`,
    userinfo_endpoint: `${url}/connect/userinfo`,
    revocation_endpoint: `${url}/connect/revocation`,
    end_session_endpoint: `${url}/connect/endsession`,
    jwks_uri: `${url}/.well-known/openid-configuration/jwks`,
    scopes_supported: SUPPORTED_SCOPES,
    claims_supported: [
      'sub',
      'xero_userid',
      'email',
      'given_name',
      'family_name',
      'preferred_username',
      'global_session_id',
      'sid',
      'auth_time',
      'idp',
      'amr',
    ],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    request_parameter_supported: false,
  };
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function randomToken(bytes = 32): string {
  return b64url(randomBytes(bytes));
}

function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

function displayName(user: UserRec): string {
  return `${user.givenName} ${user.familyName}`.trim() || user.email;
}

function appName(client: SandboxClientConfig): string {
  return client.name ?? 'Ledgerlink';
}

function query(request: FastifyRequest): Record<string, string | undefined> {
  const q = request.query as Record<string, unknown>;
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(q ?? {}))
    out[k] = typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
  return out;
}

function form(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function redirectWith(
  reply: FastifyReply,
  redirectUri: string,
  params: Record<string, string | undefined>,
): FastifyReply {
  const target = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) target.searchParams.set(k, v);
  return reply.redirect(target.toString(), 302);
}

function errorPage(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(renderErrorPage(error, description));
}

/** Find or create a sandbox user for an email typed on the login page (new users see every organisation). */
export function findOrCreateUser(rt: Runtime, email: string): UserRec {
  const normalised = email.trim().toLowerCase();
  const existing = rt.state.identity.users.find((u) => u.email.toLowerCase() === normalised);
  if (existing) return existing;
  const local = normalised.split('@')[0] ?? 'user';
  const parts = local.split(/[._-]+/).filter(Boolean);
  const cap = (s: string | undefined): string => (s ? s[0]?.toUpperCase() + s.slice(1) : '');
  const user: UserRec = {
    userId: randomUUID(),
    email: normalised,
    givenName: cap(parts[0]) || 'Sandbox',
    familyName: cap(parts.slice(1).join(' ')) || 'User',
    tenantIds: rt.state.orgs.map((o) => o.OrganisationID),
    createdMs: rt.now(),
  };
  rt.state.identity.users.push(user);
  rt.markDirty();
  return user;
}

function needsOrganisation(scopes: string[]): boolean {
  return scopes.some((s) => s.startsWith('accounting.'));
}

/** Finish a consent: connect the tenants, mint a code and send the browser back to the app. */
function approve(
  rt: Runtime,
  reply: FastifyReply,
  pending: PendingAuthorization,
  user: UserRec,
  tenantIds: string[],
): FastifyReply {
  const now = rt.now();
  const authEventId = randomUUID();
  const clientId = pending.clientId;
  for (const tenantId of tenantIds) {
    const existing = rt.state.identity.connections.find(
      (c) => c.userId === user.userId && c.clientId === clientId && c.tenantId === tenantId,
    );
    if (existing) {
      existing.authEventId = authEventId;
      existing.updatedMs = now;
    } else {
      rt.state.identity.connections.push({
        id: randomUUID(),
        userId: user.userId,
        clientId,
        tenantId,
        authEventId,
        createdMs: now,
        updatedMs: now,
      });
    }
  }
  const code: AuthCode = {
    code: randomToken(24),
    clientId,
    redirectUri: pending.redirectUri,
    userId: user.userId,
    scopes: pending.scopes,
    nonce: pending.nonce,
    codeChallenge: pending.codeChallenge,
    authEventId,
    expMs: now + rt.settings.codeTtlSeconds * 1000,
    used: false,
  };
  rt.codes.set(code.code, code);
  rt.pending.delete(pending.id);
  rt.markDirty();
  return redirectWith(reply, pending.redirectUri, {
    code: code.code,
    scope: pending.scopes.join(' '),
    state: pending.state,
    session_state: randomToken(16),
  });
}

function tenantsForAutoConsent(rt: Runtime, user: UserRec, tenants: 'all' | string[]): string[] {
  const allowed = rt.state.orgs.filter((o) => user.tenantIds.includes(o.OrganisationID));
  if (tenants === 'all') return allowed.map((o) => o.OrganisationID);
  const wanted = tenants.map((t) => t.toLowerCase());
  return allowed
    .filter((o) => wanted.includes(o.Name.toLowerCase()) || wanted.includes(o.OrganisationID))
    .map((o) => o.OrganisationID);
}

function getPending(rt: Runtime, id: string | undefined): PendingAuthorization | undefined {
  if (!id) return undefined;
  const pending = rt.pending.get(id);
  if (!pending) return undefined;
  if (rt.now() - pending.createdMs > PENDING_TTL_MS) {
    rt.pending.delete(id);
    return undefined;
  }
  return pending;
}

function loginPage(
  rt: Runtime,
  pending: PendingAuthorization,
  client: SandboxClientConfig,
  error?: string,
  email?: string,
): string {
  const users = rt.state.identity.users.map((u) => ({
    email: u.email,
    name: displayName(u),
    orgCount: u.tenantIds.length,
  }));
  return renderLoginPage({
    requestId: pending.id,
    appName: appName(client),
    users,
    ...(error ? { error } : {}),
    ...(email ? { email } : {}),
  });
}

function consentPage(
  rt: Runtime,
  pending: PendingAuthorization,
  client: SandboxClientConfig,
  user: UserRec,
  error?: string,
): string {
  const orgs = rt.state.orgs
    .filter((o) => user.tenantIds.includes(o.OrganisationID))
    .map((o, i) => ({ tenantId: o.OrganisationID, name: o.Name, checked: i === 0 }));
  return renderConsentPage({
    requestId: pending.id,
    appName: appName(client),
    user: { name: displayName(user), email: user.email },
    scopes: pending.scopes,
    orgs,
    needsOrg: needsOrganisation(pending.scopes),
    ...(error ? { error } : {}),
  });
}

interface ClientAuthResult {
  client?: SandboxClientConfig;
  error?: { status: number; body: Record<string, string> };
}

function authenticateClient(rt: Runtime, request: FastifyRequest): ClientAuthResult {
  const body = form(request);
  const header = request.headers.authorization;
  let id: string | undefined;
  let secret: string | undefined;
  let basic = false;
  if (header?.toLowerCase().startsWith('basic ')) {
    basic = true;
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const sep = decoded.indexOf(':');
    const dec = (s: string): string => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    id = dec(sep >= 0 ? decoded.slice(0, sep) : decoded);
    secret = dec(sep >= 0 ? decoded.slice(sep + 1) : '');
    if (str(body.client_secret))
      return {
        error: {
          status: 400,
          body: { error: 'invalid_request', error_description: 'Use one client authentication method' },
        },
      };
  } else {
    id = str(body.client_id);
    secret = str(body.client_secret);
  }
  const client = rt.clients.find((c) => c.clientId === id);
  if (!client || !secret || !safeEqual(secret, client.clientSecret)) {
    return { error: { status: basic ? 401 : 400, body: { error: 'invalid_client' } } };
  }
  return { client };
}

function atHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken).digest();
  return b64url(digest.subarray(0, digest.length / 2));
}

async function issueTokens(
  rt: Runtime,
  input: {
    client: SandboxClientConfig;
    user: UserRec;
    scopes: string[];
    authEventId: string;
    sid: string;
    familyId: string;
    authTimeMs: number;
    nonce?: string | undefined;
  },
): Promise<Record<string, unknown>> {
  const now = rt.now();
  const iat = Math.floor(now / 1000);
  const ttl = rt.settings.accessTokenTtlSeconds;
  const jti = randomUUID().replace(/-/g, '').toUpperCase();
  const accessToken = await new SignJWT({
    client_id: input.client.clientId,
    sub: input.user.userId.replace(/-/g, ''),
    auth_time: Math.floor(input.authTimeMs / 1000),
    idp: 'Xero',
    xero_userid: input.user.userId,
    global_session_id: input.sid,
    sso_provider_id: 'xero',
    jti,
    authentication_event_id: input.authEventId,
    scope: input.scopes,
    amr: ['pwd'],
  })
    .setProtectedHeader({ alg: 'RS256', kid: rt.keys.kid, typ: 'JWT' })
    .setIssuer(rt.url)
    .setAudience(`${rt.url}/resources`)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + ttl)
    .sign(rt.keys.privateKey);
  const accessRec: AccessTokenRec = {
    jti,
    familyId: input.familyId,
    userId: input.user.userId,
    clientId: input.client.clientId,
    expMs: (iat + ttl) * 1000,
    revoked: false,
    forcedExpired: false,
  };
  const ids = rt.state.identity;
  ids.accessTokens = ids.accessTokens.filter((t) => t.expMs > now - 60_000);
  ids.accessTokens.push(accessRec);
  const response: Record<string, unknown> = {
    access_token: accessToken,
    expires_in: ttl,
    token_type: 'Bearer',
    scope: input.scopes.join(' '),
  };
  if (input.scopes.includes('openid')) {
    const claims: Record<string, unknown> = {
      auth_time: Math.floor(input.authTimeMs / 1000),
      xero_userid: input.user.userId,
      global_session_id: input.sid,
      sid: input.sid,
      idp: 'Xero',
      amr: ['pwd'],
      at_hash: atHash(accessToken),
    };
    if (input.nonce) claims.nonce = input.nonce;
    if (input.scopes.includes('email')) claims.email = input.user.email;
    if (input.scopes.includes('profile')) {
      claims.given_name = input.user.givenName;
      claims.family_name = input.user.familyName;
      claims.preferred_username = input.user.email;
    }
    response.id_token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: rt.keys.kid, typ: 'JWT' })
      .setIssuer(rt.url)
      .setAudience(input.client.clientId)
      .setSubject(input.user.userId.replace(/-/g, ''))
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + 300)
      .sign(rt.keys.privateKey);
  }
  if (input.scopes.includes('offline_access')) {
    const refresh: RefreshTokenRec = {
      token: randomToken(32),
      familyId: input.familyId,
      userId: input.user.userId,
      clientId: input.client.clientId,
      scopes: input.scopes,
      authEventId: input.authEventId,
      sid: input.sid,
      authTimeMs: input.authTimeMs,
      issuedMs: now,
      rotatedMs: null,
      revoked: false,
    };
    // Drop tokens that can no longer be redeemed so the state does not grow forever.
    const graceMs = rt.settings.refreshGraceSeconds * 1000;
    ids.refreshTokens = ids.refreshTokens.filter(
      (t) => !t.revoked && (t.rotatedMs === null || now - t.rotatedMs <= Math.max(graceMs, 24 * 3_600_000)),
    );
    ids.refreshTokens.push(refresh);
    response.refresh_token = refresh.token;
  }
  rt.markDirty();
  return response;
}

export interface BearerIdentity {
  user: UserRec;
  clientId: string;
  scopes: string[];
  authEventId: string;
  jti: string;
}

export type BearerResult = { ok: true; identity: BearerIdentity } | { ok: false; detail: string };

function formatXeroTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

/** Check a bearer access token as Xero's API gateway does. */
export async function authenticateBearer(rt: Runtime, header: string | undefined): Promise<BearerResult> {
  if (!header || !/^bearer\s+/i.test(header)) return { ok: false, detail: 'AuthenticationUnsuccessful' };
  const token = header.replace(/^bearer\s+/i, '').trim();
  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, rt.keys.publicKey, {
      issuer: rt.url,
      audience: `${rt.url}/resources`,
      algorithms: ['RS256'],
      currentDate: new Date(rt.now()),
    });
    payload = verified.payload as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_JWT_EXPIRED') {
      const exp = (() => {
        try {
          const part = token.split('.')[1] ?? '';
          return (JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: number }).exp ?? 0;
        } catch {
          return 0;
        }
      })();
      return { ok: false, detail: `TokenExpired: token expired at ${formatXeroTime(exp * 1000)}` };
    }
    return { ok: false, detail: 'AuthenticationUnsuccessful' };
  }
  const jti = String(payload.jti ?? '');
  const rec = rt.state.identity.accessTokens.find((t) => t.jti === jti);
  if (!rec || rec.revoked) return { ok: false, detail: 'AuthenticationUnsuccessful' };
  if (rec.forcedExpired)
    return { ok: false, detail: `TokenExpired: token expired at ${formatXeroTime(rt.now())}` };
  const family = rt.state.identity.refreshTokens.filter((t) => t.familyId === rec.familyId);
  if (family.length > 0 && family.every((t) => t.revoked))
    return { ok: false, detail: 'AuthenticationUnsuccessful' };
  const user = findUser(rt, String(payload.xero_userid ?? ''));
  if (!user) return { ok: false, detail: 'AuthenticationUnsuccessful' };
  const scopes = Array.isArray(payload.scope)
    ? payload.scope.map(String)
    : String(payload.scope ?? '').split(' ');
  return {
    ok: true,
    identity: {
      user,
      clientId: String(payload.client_id ?? ''),
      scopes,
      authEventId: String(payload.authentication_event_id ?? ''),
      jti,
    },
  };
}

/** Revoke every token and connection a user has given a client (Xero's revocation semantics). */
export function revokeUserGrant(rt: Runtime, userId: string, clientId: string): void {
  const ids = rt.state.identity;
  for (const t of ids.refreshTokens) if (t.userId === userId && t.clientId === clientId) t.revoked = true;
  for (const t of ids.accessTokens) if (t.userId === userId && t.clientId === clientId) t.revoked = true;
  ids.connections = ids.connections.filter((c) => !(c.userId === userId && c.clientId === clientId));
  rt.markDirty();
}

export function registerIdentityRoutes(app: FastifyInstance, rt: Runtime): void {
  app.get('/.well-known/openid-configuration', async () => {
    rt.ledger.countIdentity('discovery');
    return discoveryDocument(rt.url);
  });

  app.get('/.well-known/openid-configuration/jwks', async () => {
    rt.ledger.countIdentity('jwks');
    return { keys: [rt.state.identity.publicJwk] };
  });

  app.get('/identity/connect/authorize', async (request, reply) => {
    rt.ledger.countIdentity('authorize');
    const q = query(request);
    const client = rt.clients.find((c) => c.clientId === q.client_id);
    if (!client) return errorPage(reply, 400, 'invalid_client', 'Unknown client or client not enabled');
    if (!q.redirect_uri || !client.redirectUris.includes(q.redirect_uri))
      return errorPage(reply, 400, 'unauthorized_client', 'Invalid redirect_uri');
    const state = q.state;
    if (q.response_type !== 'code')
      return redirectWith(reply, q.redirect_uri, { error: 'unsupported_response_type', state });
    const scopes = (q.scope ?? '').split(/\s+/).filter(Boolean);
    const unknown = scopes.filter((s) => !SUPPORTED_SCOPES.includes(s));
    if (scopes.length === 0 || unknown.length > 0)
      return redirectWith(reply, q.redirect_uri, {
        error: 'invalid_scope',
        error_description: unknown.join(' ') || 'scope is required',
        state,
      });
    if (q.code_challenge !== undefined) {
      if ((q.code_challenge_method ?? 'plain') !== 'S256')
        return redirectWith(reply, q.redirect_uri, {
          error: 'invalid_request',
          error_description: 'code_challenge_method must be S256',
          state,
        });
      if (!/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge))
        return redirectWith(reply, q.redirect_uri, {
          error: 'invalid_request',
          error_description: 'invalid code_challenge',
          state,
        });
    }
    const pending: PendingAuthorization = {
      id: randomToken(18),
      clientId: client.clientId,
      redirectUri: q.redirect_uri,
      scopes,
      state,
      nonce: q.nonce,
      codeChallenge: q.code_challenge,
      createdMs: rt.now(),
    };
    rt.pending.set(pending.id, pending);
    if (rt.autoConsent) {
      const user = findOrCreateUser(rt, rt.autoConsent.email);
      const tenants = needsOrganisation(scopes)
        ? tenantsForAutoConsent(rt, user, rt.autoConsent.tenants)
        : [];
      return approve(rt, reply, pending, user, tenants);
    }
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(loginPage(rt, pending, client));
  });

  app.post('/identity/connect/authorize/login', async (request, reply) => {
    const body = form(request);
    const pending = getPending(rt, str(body.request));
    if (!pending)
      return errorPage(
        reply,
        400,
        'invalid_request',
        'This sign-in request has expired. Go back to the app and try again.',
      );
    const client = rt.clients.find((c) => c.clientId === pending.clientId);
    if (!client) return errorPage(reply, 400, 'unauthorized_client', 'Unknown client or client not enabled');
    const typed = str(body.new_email)?.trim();
    const email = typed || str(body.email);
    if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
      return reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(loginPage(rt, pending, client, 'Enter a valid email address or pick a sandbox user.', typed));
    }
    const user = findOrCreateUser(rt, email);
    pending.userId = user.userId;
    return reply.redirect(`/identity/connect/consent?request=${encodeURIComponent(pending.id)}`, 303);
  });

  app.get('/identity/connect/authorize/switch', async (request, reply) => {
    const pending = getPending(rt, query(request).request);
    if (!pending)
      return errorPage(
        reply,
        400,
        'invalid_request',
        'This sign-in request has expired. Go back to the app and try again.',
      );
    const client = rt.clients.find((c) => c.clientId === pending.clientId);
    if (!client) return errorPage(reply, 400, 'unauthorized_client', 'Unknown client or client not enabled');
    delete pending.userId;
    return reply.type('text/html; charset=utf-8').send(loginPage(rt, pending, client));
  });

  app.get('/identity/connect/consent', async (request, reply) => {
    const pending = getPending(rt, query(request).request);
    if (!pending)
      return errorPage(
        reply,
        400,
        'invalid_request',
        'This sign-in request has expired. Go back to the app and try again.',
      );
    const client = rt.clients.find((c) => c.clientId === pending.clientId);
    const user = pending.userId ? findUser(rt, pending.userId) : undefined;
    if (!client || !user) return errorPage(reply, 400, 'invalid_request', 'Log in first.');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(consentPage(rt, pending, client, user));
  });

  app.post('/identity/connect/consent', async (request, reply) => {
    rt.ledger.countIdentity('consent');
    const body = form(request);
    const pending = getPending(rt, str(body.request));
    if (!pending)
      return errorPage(
        reply,
        400,
        'invalid_request',
        'This sign-in request has expired. Go back to the app and try again.',
      );
    const client = rt.clients.find((c) => c.clientId === pending.clientId);
    const user = pending.userId ? findUser(rt, pending.userId) : undefined;
    if (!client || !user) return errorPage(reply, 400, 'invalid_request', 'Log in first.');
    if (body.action !== 'allow') {
      rt.pending.delete(pending.id);
      return redirectWith(reply, pending.redirectUri, { error: 'access_denied', state: pending.state });
    }
    const raw = body.tenants;
    const picked = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
      .map(String)
      .filter((t) => user.tenantIds.includes(t) && findOrg(rt, t));
    if (needsOrganisation(pending.scopes) && picked.length === 0) {
      return reply
        .status(400)
        .type('text/html; charset=utf-8')
        .send(consentPage(rt, pending, client, user, 'Select at least one organisation to connect.'));
    }
    return approve(rt, reply, pending, user, needsOrganisation(pending.scopes) ? picked : []);
  });

  app.post('/connect/token', async (request, reply) => {
    const auth = authenticateClient(rt, request);
    const body = form(request);
    const fail = (status: number, error: string, description?: string): FastifyReply => {
      rt.ledger.countToken(body.grant_type === 'refresh_token' ? 'refreshFailed' : 'failed');
      return reply
        .status(status)
        .header('cache-control', 'no-store')
        .send(description ? { error, error_description: description } : { error });
    };
    if (auth.error || !auth.client) {
      rt.ledger.countToken(body.grant_type === 'refresh_token' ? 'refreshFailed' : 'failed');
      if (auth.error?.status === 401) reply.header('www-authenticate', 'Basic realm="sandbox"');
      return reply.status(auth.error?.status ?? 400).send(auth.error?.body ?? { error: 'invalid_client' });
    }
    const client = auth.client;
    const now = rt.now();
    if (body.grant_type === 'authorization_code') {
      const code = rt.codes.get(String(body.code ?? ''));
      if (!code || code.clientId !== client.clientId) return fail(400, 'invalid_grant');
      if (code.used || code.expMs < now) {
        rt.codes.delete(code.code);
        return fail(400, 'invalid_grant');
      }
      if (str(body.redirect_uri) !== code.redirectUri)
        return fail(400, 'invalid_grant', 'redirect_uri does not match');
      const verifier = str(body.code_verifier);
      if (code.codeChallenge) {
        if (!verifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier))
          return fail(400, 'invalid_grant', 'code_verifier required');
        const challenge = b64url(createHash('sha256').update(verifier).digest());
        if (challenge !== code.codeChallenge) return fail(400, 'invalid_grant', 'PKCE verification failed');
      } else if (verifier) {
        return fail(400, 'invalid_grant', 'code_verifier sent without a code_challenge');
      }
      code.used = true;
      const user = findUser(rt, code.userId);
      if (!user) return fail(400, 'invalid_grant');
      rt.ledger.countToken('authorizationCode');
      const tokens = await issueTokens(rt, {
        client,
        user,
        scopes: code.scopes,
        authEventId: code.authEventId,
        sid: randomUUID().replace(/-/g, ''),
        familyId: randomUUID(),
        authTimeMs: now,
        nonce: code.nonce,
      });
      return reply.header('cache-control', 'no-store').send(tokens);
    }
    if (body.grant_type === 'refresh_token') {
      const rec = rt.state.identity.refreshTokens.find((t) => t.token === str(body.refresh_token));
      if (!rec || rec.clientId !== client.clientId || rec.revoked) return fail(400, 'invalid_grant');
      if (rec.rotatedMs === null && now - rec.issuedMs > rt.settings.refreshTokenTtlSeconds * 1000)
        return fail(400, 'invalid_grant');
      if (rec.rotatedMs !== null && now - rec.rotatedMs > rt.settings.refreshGraceSeconds * 1000)
        return fail(400, 'invalid_grant');
      const user = findUser(rt, rec.userId);
      if (!user) return fail(400, 'invalid_grant');
      if (rec.rotatedMs === null) rec.rotatedMs = now;
      rt.ledger.countToken('refresh');
      const tokens = await issueTokens(rt, {
        client,
        user,
        scopes: rec.scopes,
        authEventId: rec.authEventId,
        sid: rec.sid,
        familyId: rec.familyId,
        authTimeMs: rec.authTimeMs,
      });
      // Signing is asynchronous: a revocation that arrived meanwhile wins, as at Xero, where a revoked grant
      // issues nothing usable. Without this a refresh racing "revoke" handed out live tokens for a grant whose
      // connections were gone, and GET /connections answered [] ("removed in Xero") instead of 401 (revoked).
      if (rec.revoked) {
        for (const t of rt.state.identity.accessTokens) if (t.familyId === rec.familyId) t.revoked = true;
        for (const t of rt.state.identity.refreshTokens) if (t.familyId === rec.familyId) t.revoked = true;
        rt.markDirty();
        return fail(400, 'invalid_grant');
      }
      return reply.header('cache-control', 'no-store').send(tokens);
    }
    return fail(400, 'unsupported_grant_type');
  });

  const userinfo = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    rt.ledger.countIdentity('userinfo');
    const result = await authenticateBearer(rt, request.headers.authorization);
    if (!result.ok)
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer error="invalid_token"')
        .send({ error: 'invalid_token' });
    const { user, scopes } = result.identity;
    const info: Record<string, unknown> = { sub: user.userId.replace(/-/g, ''), xero_userid: user.userId };
    if (scopes.includes('email')) info.email = user.email;
    if (scopes.includes('profile'))
      Object.assign(info, {
        given_name: user.givenName,
        family_name: user.familyName,
        preferred_username: user.email,
      });
    return reply.send(info);
  };
  app.get('/connect/userinfo', userinfo);
  app.post('/connect/userinfo', userinfo);

  app.post('/connect/revocation', async (request, reply) => {
    rt.ledger.countIdentity('revocation');
    const auth = authenticateClient(rt, request);
    if (auth.error || !auth.client)
      return reply.status(auth.error?.status ?? 400).send(auth.error?.body ?? { error: 'invalid_client' });
    const token = str(form(request).token);
    if (!token) return reply.status(400).send({ error: 'invalid_request' });
    const refresh = rt.state.identity.refreshTokens.find(
      (t) => t.token === token && t.clientId === auth.client?.clientId,
    );
    if (refresh) {
      revokeUserGrant(rt, refresh.userId, refresh.clientId);
    } else {
      const clientId = auth.client.clientId;
      const verified = await authenticateBearer(rt, `Bearer ${token}`);
      if (verified.ok && verified.identity.clientId === clientId) {
        const rec = rt.state.identity.accessTokens.find((t) => t.jti === verified.identity.jti);
        if (rec) rec.revoked = true;
        rt.markDirty();
      }
    }
    return reply.status(200).send();
  });

  app.get('/connect/endsession', async (request, reply) => {
    const target = query(request).post_logout_redirect_uri;
    const originOf = (u: string): string | null => {
      try {
        return new URL(u).origin;
      } catch {
        return null;
      }
    };
    const allowed =
      target &&
      originOf(target) &&
      rt.clients.some((c) => c.redirectUris.some((u) => originOf(u) === originOf(target)));
    if (allowed && target) return reply.redirect(target, 302);
    return reply
      .type('text/html; charset=utf-8')
      .send(renderErrorPage('logged_out', 'You have been signed out of the Xero sandbox.'));
  });
}
