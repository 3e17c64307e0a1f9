/**
 * What every Accounting API call goes through, in Xero's order: bearer token (401), xero-tenant-id
 * covered by the user's connections (403), scope (401), the ledger, limits (429), injected faults,
 * the Accept check, Idempotency-Key replay, and finally "drop the connection after the write".
 */
import { randomUUID } from 'node:crypto';
import type {
  FastifyContextConfig,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { authenticateBearer, type BearerIdentity } from '../identity';
import { fingerprintOf, type IdempotencyStore, type StoredAnswer } from '../idempotency';
import type { RateLimits } from '../limits';
import { findOrg, type Runtime } from '../runtime';
import type { OrgRec } from '../state';
import { msDateTimeNoOffset } from '../xero-dates';
import { XeroError } from './errors';

export type ScopeArea = 'invoices' | 'payments' | 'journals' | 'settings' | 'contacts' | 'attachments';

export interface ApiRouteConfig {
  scope: ScopeArea;
  write?: boolean;
  /** Answers raw bytes (attachments): no JSON Accept check. */
  binary?: boolean;
}

export interface ApiContext {
  rt: Runtime;
  org: OrgRec;
  identity: BearerIdentity;
  clientId: string;
  /** Lower-cased query parameters. */
  q: Record<string, string | undefined>;
}

/** Route options marking an Accounting API route (scope, write, binary). */
export function apiRoute(config: ApiRouteConfig): { config: FastifyContextConfig } {
  return { config: config as FastifyContextConfig };
}

const contexts = new WeakMap<FastifyRequest, ApiContext>();
const idempotencyHandles = new WeakMap<
  FastifyRequest,
  { complete: (a: StoredAnswer) => void; abandon: () => void }
>();
const replayed = new WeakSet<FastifyRequest>();

export function ctxOf(request: FastifyRequest): ApiContext {
  const ctx = contexts.get(request);
  if (!ctx) throw new Error('accounting context missing');
  return ctx;
}

/** Broad and granular scopes that grant each area (docs/xero-api.md §2.4). */
const SCOPES: Record<ScopeArea, string[]> = {
  invoices: ['accounting.transactions', 'accounting.invoices'],
  payments: ['accounting.transactions', 'accounting.payments'],
  journals: ['accounting.transactions', 'accounting.manualjournals'],
  settings: ['accounting.settings'],
  contacts: ['accounting.contacts'],
  attachments: ['accounting.attachments'],
};

export function hasScope(granted: string[], area: ScopeArea, write: boolean): boolean {
  return SCOPES[area].some((s) => granted.includes(s) || (!write && granted.includes(`${s}.read`)));
}

export function lowerQuery(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries((request.query as Record<string, unknown>) ?? {})) {
    out[k.toLowerCase()] = typeof v === 'string' ? v : Array.isArray(v) ? v.map(String).join(',') : undefined;
  }
  return out;
}

export function envelope(
  rt: Runtime,
  key: string,
  items: unknown[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    Id: randomUUID(),
    Status: 'OK',
    ProviderName: 'Ledgerlink Sandbox',
    DateTimeUTC: msDateTimeNoOffset(rt.now()),
    ...extra,
    [key]: items,
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function isWrite(method: string): boolean {
  return method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
}

export interface PipelineDeps {
  rt: Runtime;
  limits: RateLimits;
  idempotency: IdempotencyStore;
}

/** The latency fault set for this path, if any (accounting calls and /connections): it waits as a slow Xero would. */
export async function applyLatency(rt: Runtime, request: FastifyRequest): Promise<void> {
  const latency = rt.faults.latency(request.url);
  if (latency > 0) {
    rt.ledger.countFault('latency');
    await sleep(latency);
  }
}

/** Shared by the accounting scope and /connections: the bearer token. */
export async function authenticate(rt: Runtime, request: FastifyRequest): Promise<BearerIdentity> {
  const result = await authenticateBearer(rt, request.headers.authorization);
  if (!result.ok) throw XeroError.problem(401, result.detail);
  return result.identity;
}

/** The bytes of an answer body: a string or buffer as sent, a stream by its Content-Length. */
function bodyBytes(payload: unknown, reply: FastifyReply): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  if (Buffer.isBuffer(payload)) return payload.length;
  return Number(reply.getHeader('content-length')) || 0;
}

/** The longest path and query the sandbox answers (Xero's own limit, about 2,090 with its host, is reported, not documented). */
export const MAX_URL_CHARS = 2048;

export function installPipeline(app: FastifyInstance, deps: PipelineDeps): void {
  const { rt, limits, idempotency } = deps;
  /** The counted call each request is (tenant and route pattern), so its answer's bytes go to the same row. */
  const counted = new WeakMap<FastifyRequest, { tenantId: string; endpoint: string }>();

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config as Partial<ApiRouteConfig> | undefined;
    if (!config?.scope) return;
    // Xero's gateway answers a URL longer than about 2,090 characters with a bare 404 (reported: 53 ids in
    // `IDs=` fail where 52 pass, XeroAPI/xero-node#404, XeroAPI/Xero-NetStandard#471); the sandbox refuses a
    // path and query over MAX_URL_CHARS the same way, before counting the call.
    if (request.url.length > MAX_URL_CHARS) throw XeroError.notFound();
    const identity = await authenticate(rt, request);
    const tenantHeader = request.headers['xero-tenant-id'];
    const tenantId = (Array.isArray(tenantHeader) ? tenantHeader[0] : tenantHeader)?.trim().toLowerCase();
    const connected =
      tenantId &&
      rt.state.identity.connections.some(
        (c) =>
          c.userId === identity.user.userId && c.clientId === identity.clientId && c.tenantId === tenantId,
      );
    const org = tenantId ? findOrg(rt, tenantId) : undefined;
    if (!tenantId || !connected || !org) throw XeroError.problem(403, 'AuthenticationUnsuccessful');
    if (!hasScope(identity.scopes, config.scope, Boolean(config.write)))
      throw XeroError.problem(401, 'AuthorizationUnsuccessful');
    const endpoint = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
    rt.ledger.countCall(org.OrganisationID, org.Name, request.method, endpoint);
    counted.set(request, { tenantId: org.OrganisationID, endpoint });
    const now = rt.now();
    const burst = rt.faults.takeBurst(request.url);
    if (burst) {
      rt.ledger.countFault('burst429');
      rt.ledger.countRejected();
      reply.headers(limits.headers(org.OrganisationID, identity.clientId, now));
      const headers: Record<string, string> = { 'x-rate-limit-problem': burst.problem };
      if (burst.retryAfterSeconds !== null) headers['retry-after'] = String(burst.retryAfterSeconds);
      throw new XeroError(
        429,
        { Title: 'Too Many Requests', Status: 429, Detail: `Rate limit exceeded: ${burst.problem}` },
        'application/json; charset=utf-8',
        headers,
      );
    }
    const decision = limits.acquire(org.OrganisationID, identity.clientId, now);
    reply.headers(limits.headers(org.OrganisationID, identity.clientId, now));
    if (!decision.ok) {
      const problem = decision.problem ?? 'minute';
      rt.ledger.countViolation(problem === 'appminute' ? 'appMinute' : problem);
      rt.ledger.countRejected();
      const headers: Record<string, string> = { 'x-rate-limit-problem': problem };
      if (decision.retryAfterSeconds !== undefined)
        headers['retry-after'] = String(decision.retryAfterSeconds);
      throw new XeroError(
        429,
        { Title: 'Too Many Requests', Status: 429, Detail: `Rate limit exceeded: ${problem}` },
        'application/json; charset=utf-8',
        headers,
      );
    }
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      limits.release(org.OrganisationID);
    };
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
    contexts.set(request, { rt, org, identity, clientId: identity.clientId, q: lowerQuery(request) });
    // Latency is added while the call holds its in-flight slot, as a slow Xero would.
    await applyLatency(rt, request);
    const fault = rt.faults.takeError(request.url);
    if (fault) {
      rt.ledger.countFault('error');
      throw new XeroError(
        fault,
        fault === 503
          ? 'The Xero API is currently unavailable (sandbox fault).'
          : 'An unhandled error occurred (sandbox fault).',
        'text/plain; charset=utf-8',
      );
    }
    const accept = request.headers.accept ?? '';
    if (!config.binary && !/application\/json/i.test(accept)) {
      throw new XeroError(
        406,
        'The Xero sandbox answers JSON only. Send "Accept: application/json": without it the real Xero answers XML.',
        'text/plain; charset=utf-8',
      );
    }
  });

  app.addHook('preHandler', async (request, reply) => {
    const config = request.routeOptions.config as Partial<ApiRouteConfig> | undefined;
    if (!config?.scope || !['POST', 'PUT', 'PATCH'].includes(request.method)) return;
    const raw = request.headers['idempotency-key'];
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key) return;
    if (key.length > 128) throw XeroError.postDataInvalid('Idempotency-Key must be 128 characters or fewer');
    const ctx = ctxOf(request);
    const scopeKey = `${ctx.clientId}|${ctx.org.OrganisationID}|${key}`;
    const fingerprint = fingerprintOf(request.method, request.url, request.body);
    const found = await idempotency.lookup(
      scopeKey,
      fingerprint,
      rt.now(),
      rt.settings.idempotencyWindowSeconds * 1000,
    );
    if (found.kind === 'mismatch') {
      throw new XeroError(400, {
        Title: 'Bad Request',
        Status: 400,
        Detail: `The Idempotency-Key '${key}' has already been used for a different request`,
        Type: 'IdempotencyKeyReuse',
      });
    }
    if (found.kind === 'replay') {
      replayed.add(request);
      reply.header('idempotent-replayed', 'true');
      return reply.status(found.answer.status).type(found.answer.contentType).send(found.answer.body);
    }
    idempotencyHandles.set(request, { complete: found.complete, abandon: found.abandon });
    return undefined;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const call = counted.get(request);
    if (call) rt.ledger.countBytes(call.tenantId, request.method, call.endpoint, bodyBytes(payload, reply));
    // Xero dates its answers by the clock its documents' UpdatedDateUTC come from: the sandbox's, moved or not.
    if (call) reply.header('date', new Date(rt.now()).toUTCString());
    const handle = idempotencyHandles.get(request);
    if (handle) {
      idempotencyHandles.delete(request);
      if (reply.statusCode >= 500) handle.abandon();
      else {
        const body =
          typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
        handle.complete({
          status: reply.statusCode,
          contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
          body,
        });
      }
    }
    const config = request.routeOptions.config as Partial<ApiRouteConfig> | undefined;
    const answerDelay = config?.scope && isWrite(request.method) ? rt.faults.answerDelay(request.url) : 0;
    if (answerDelay > 0) {
      rt.ledger.countFault('answerDelay');
      await sleep(answerDelay);
    }
    if (
      config?.scope &&
      isWrite(request.method) &&
      reply.statusCode < 500 &&
      contexts.has(request) &&
      !replayed.has(request) &&
      rt.faults.takeDrop(request.url)
    ) {
      rt.ledger.countFault('dropped');
      request.raw.socket?.destroy();
    }
    return payload;
  });

  app.setErrorHandler((error: FastifyError | XeroError, _request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof XeroError) {
      reply.headers(error.headers);
      return reply
        .status(error.status)
        .type(error.contentType)
        .send(typeof error.body === 'string' ? error.body : JSON.stringify(error.body));
    }
    const status = error.statusCode ?? 500;
    if (status === 415)
      return reply
        .status(415)
        .type('text/plain; charset=utf-8')
        .send('Unsupported Content-Type: send application/json');
    if (status === 413) return reply.status(413).type('text/plain; charset=utf-8').send('Request too large');
    if (status >= 400 && status < 500) {
      return reply
        .status(400)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ ErrorNumber: 14, Type: 'PostDataInvalidException', Message: error.message }));
    }
    console.warn(`[sandbox] unhandled error: ${error.stack ?? error.message}`);
    return reply.status(500).type('text/plain; charset=utf-8').send('An unhandled error occurred');
  });

  app.setNotFoundHandler((_request, reply) =>
    reply
      .status(404)
      .type('text/plain; charset=utf-8')
      .send("The resource you're looking for cannot be found"),
  );
}
