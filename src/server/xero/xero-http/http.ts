import type { z } from 'zod';
import { AppError } from '../../lib/app-error';
import { currentXeroPriority, refuseIfCacheOnly } from '../call-context';
import { AppWindow, TenantGate, XERO_LIMITS, type TenantGateOptions, type XeroGate } from './tenant-gate';
import type { TokenStore } from './token-store';

export interface XeroRequest<T> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under the API base, e.g. `/api.xro/2.0/Invoices` or `/connections`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Required for every write: Xero replays the first answer for a repeated key (6 minutes). */
  idempotencyKey?: string;
  ifModifiedSince?: Date;
  schema?: z.ZodType<T>;
  /** Return the raw bytes instead of JSON (attachments). */
  binary?: boolean;
  /**
   * How many times a 5xx or a lost answer is tried (default: the client's `maxAttempts`). A user-facing read
   * whose caller already retries on its own (Pay Invoices' Refresh Invoice, docs/product/features.md §8) uses
   * 1, so a failure is said at once instead of after the back-off (issue 17 item 18).
   */
  attempts?: number;
}

export interface XeroResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

export interface XeroCallEvent {
  tenantId: string | null;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /** On a 429: Xero's X-Rate-Limit-Problem and the Retry-After it asked for. */
  rateLimitProblem?: string;
  retryAfterMs?: number;
}

export interface XeroHttpOptions {
  apiUrl: string;
  tokens: TokenStore;
  gate?: TenantGateOptions;
  /** Where a tenant's gate comes from: by default one in-memory TenantGate per tenant (one instance). */
  createGate?: (tenantId: string) => XeroGate;
  /** Called after every attempt (metrics): status 0 when no answer came. */
  onCall?: (event: XeroCallEvent) => void;
  /**
   * Called with the size of each answer body read for a tenant (Xero bills apps by the data they download,
   * issue 19): bytes as received, after decompression; bodies not read (304s, refused answers) count 0.
   */
  onReceived?: (event: { tenantId: string; method: string; path: string; bytes: number }) => void;
  /** Called with Xero's remaining-call headers after each answer for a tenant. */
  onRateLimits?: (
    tenantId: string,
    limits: { minuteRemaining: number | null; dayRemaining: number | null },
  ) => void;
  /** Test hook: how long to wait between retries (default: capped, jittered exponential back-off). */
  backoffMs?: (attempt: number) => number;
  maxAttempts?: number;
  /** Longest Retry-After we wait for inside a request; longer ones fail fast with a clear message. */
  maxRetryAfterMs?: number;
  timeoutMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function defaultBackoff(attempt: number): number {
  const base = Math.min(8_000, 300 * 2 ** attempt);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

function headerNumber(headers: Headers, name: string): number | null {
  const raw = headers.get(name);
  if (raw === null || raw.trim() === '') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** Xero's error bodies: ValidationException with Elements[].ValidationErrors[], or Message / Detail / Title. */
export function describeXeroError(body: unknown): string {
  if (!body || typeof body !== 'object') return typeof body === 'string' && body ? body.slice(0, 300) : '';
  const b = body as Record<string, unknown>;
  const messages = new Set<string>();
  const collect = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (item && typeof item === 'object') {
        const m = (item as Record<string, unknown>).Message;
        if (typeof m === 'string') messages.add(m);
        collect((item as Record<string, unknown>).ValidationErrors);
      }
    }
  };
  collect(b.Elements);
  for (const key of ['Payments', 'Invoices', 'ManualJournals']) collect(b[key]);
  if (messages.size > 0) return [...messages].join('; ');
  for (const key of ['Message', 'Detail', 'detail', 'Title', 'title', 'error_description', 'error']) {
    if (typeof b[key] === 'string' && b[key]) return b[key] as string;
  }
  return '';
}

/** Answers Xero gives before it processes a request: a write that only ever got these was not applied. */
const REFUSED_BEFORE_PROCESSING = new Set(['XERO_RATE_LIMITED', 'XERO_AUTH_EXPIRED']);
const notApplied = new WeakSet<Error>();

/** True when the write that failed with `error` certainly never reached Xero's books. */
export function isNotApplied(error: unknown): boolean {
  return error instanceof Error && notApplied.has(error);
}

/**
 * The one HTTP path to Xero. Per tenant it queues within Xero's limits; it honours Retry-After, retries
 * 5xx and network failures with capped, jittered back-off, and retries a write only when it carries an
 * Idempotency-Key (so Xero replays instead of applying it twice). A 401 gets one forced token refresh.
 * Every JSON answer is parsed with the caller's zod schema; Xero's failures become our error codes.
 */
export function createXeroHttp(options: XeroHttpOptions) {
  const gates = new Map<string, XeroGate>();
  const limits = options.gate ?? XERO_LIMITS;
  // The app's minute, every organisation's gate together (this instance is the whole app unless the gate is shared).
  const appWindow = new AppWindow(limits.appPerMinute ?? XERO_LIMITS.appPerMinute ?? 10_000, limits.windowMs);
  const gateFor = (tenantId: string): XeroGate => {
    let gate = gates.get(tenantId);
    if (!gate) {
      gate = options.createGate?.(tenantId) ?? new TenantGate(limits, appWindow);
      gates.set(tenantId, gate);
    }
    return gate;
  };
  const backoff = options.backoffMs ?? defaultBackoff;
  const maxAttempts = options.maxAttempts ?? 4;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 65_000;
  const timeoutMs = options.timeoutMs ?? 30_000;

  /**
   * Sends a request; when a write fails, marks the error if Xero cannot have applied it (every attempt was
   * refused before processing: 429, 401, an unusable token, the day's budget), so the write ledger can call it
   * failed instead of unknown. A lost answer or a 5xx on any attempt leaves it unmarked.
   */
  async function send<T>(
    userId: number,
    tenantId: string | null,
    request: XeroRequest<T>,
  ): Promise<XeroResponse<T>> {
    // The Today page answers from the cache alone (issue 47): nothing leaves, and the caller is told.
    if (refuseIfCacheOnly())
      throw new AppError('XERO_UNAVAILABLE', 'Not read from Xero now: answered from what Ledgerlink holds.');
    const attempts = { mayHaveApplied: false };
    try {
      return await sendAttempts(userId, tenantId, request, attempts);
    } catch (error) {
      if (
        request.method !== 'GET' &&
        !attempts.mayHaveApplied &&
        error instanceof AppError &&
        REFUSED_BEFORE_PROCESSING.has(error.code)
      ) {
        notApplied.add(error);
      }
      throw error;
    }
  }

  async function sendAttempts<T>(
    userId: number,
    tenantId: string | null,
    request: XeroRequest<T>,
    attempts: { mayHaveApplied: boolean },
  ): Promise<XeroResponse<T>> {
    const isWrite = request.method !== 'GET';
    const url = new URL(options.apiUrl + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const gate = tenantId ? gateFor(tenantId) : null;
    // A person's call goes before any background read of the organisation (issue 47).
    const priority = currentXeroPriority();
    const triesAllowed = Math.max(1, request.attempts ?? maxAttempts);
    let forcedRefresh = false;
    for (let attempt = 0; ; attempt += 1) {
      const tokens = await options.tokens.getAccessToken(userId);
      const headers: Record<string, string> = {
        Accept: request.binary ? '*/*' : 'application/json',
        Authorization: `Bearer ${tokens.accessToken}`,
      };
      if (tenantId) headers['xero-tenant-id'] = tenantId;
      if (request.body !== undefined) headers['Content-Type'] = 'application/json';
      if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
      if (request.ifModifiedSince) headers['If-Modified-Since'] = request.ifModifiedSince.toUTCString();

      if (gate) await gate.acquire(priority);
      const sentAt = performance.now();
      const report = (status: number, extra: Partial<XeroCallEvent> = {}) =>
        options.onCall?.({
          tenantId,
          method: request.method,
          path: request.path,
          status,
          durationMs: performance.now() - sentAt,
          ...extra,
        });
      let response: Response;
      try {
        response = await fetch(url, {
          method: request.method,
          headers,
          ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        gate?.release();
        report(0);
        attempts.mayHaveApplied = true;
        // A write whose answer was lost may have been applied: only the idempotency key makes a resend safe.
        const retryable = !isWrite || Boolean(request.idempotencyKey);
        if (retryable && attempt + 1 < triesAllowed) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new AppError(
          'XERO_UNAVAILABLE',
          'Xero could not be reached. Please try again.',
          error instanceof Error ? error.message : undefined,
        );
      }
      gate?.release();

      if (tenantId) {
        const minuteRemaining = headerNumber(response.headers, 'x-minlimit-remaining');
        const dayRemaining = headerNumber(response.headers, 'x-daylimit-remaining');
        if (gate) {
          gate.minuteRemaining = minuteRemaining ?? gate.minuteRemaining;
          gate.dayRemaining = dayRemaining ?? gate.dayRemaining;
        }
        if (minuteRemaining !== null || dayRemaining !== null)
          options.onRateLimits?.(tenantId, { minuteRemaining, dayRemaining });
      }

      if (response.status === 429) {
        await response.body?.cancel();
        const problem = response.headers.get('x-rate-limit-problem') ?? '';
        const retryAfterMs = (headerNumber(response.headers, 'retry-after') ?? 0) * 1000 || backoff(attempt);
        report(429, { rateLimitProblem: problem, retryAfterMs });
        if (/day/i.test(problem) || retryAfterMs > maxRetryAfterMs) {
          // Xero says when the day's budget comes back; until then, fail fast without calling.
          if (gate && /day/i.test(problem)) gate.blockDay(retryAfterMs);
          throw new AppError(
            'XERO_RATE_LIMITED',
            "Xero's call limit for this organisation has been reached. Please try again later.",
            undefined,
            {
              retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
            },
          );
        }
        gate?.pause(retryAfterMs);
        if (attempt + 1 < maxAttempts + 2) continue;
        throw new AppError('XERO_RATE_LIMITED', 'Xero is busy. Please try again in a minute.');
      }
      if (response.status !== 429) report(response.status);
      if (response.status >= 500) {
        await response.body?.cancel();
        attempts.mayHaveApplied = true;
        const retryable = !isWrite || Boolean(request.idempotencyKey);
        if (retryable && attempt + 1 < triesAllowed) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new AppError(
          'XERO_UNAVAILABLE',
          'Xero is not answering properly right now. Please try again.',
          `Xero answered ${response.status}`,
        );
      }
      if (response.status === 401 && !forcedRefresh) {
        await response.body?.cancel();
        forcedRefresh = true;
        await options.tokens.refresh(userId, true, tokens.accessToken);
        continue;
      }
      if (response.status === 304) {
        return { status: 304, data: undefined as T, headers: response.headers };
      }
      if (request.binary && response.ok) {
        const data = Buffer.from(await response.arrayBuffer());
        if (tenantId)
          options.onReceived?.({ tenantId, method: request.method, path: request.path, bytes: data.length });
        return { status: response.status, data: data as T, headers: response.headers };
      }
      const text = await response.text();
      if (tenantId)
        options.onReceived?.({
          tenantId,
          method: request.method,
          path: request.path,
          bytes: Buffer.byteLength(text),
        });
      let body: unknown = undefined;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (!response.ok) {
        const detail = describeXeroError(body);
        if (response.status === 401)
          throw new AppError(
            'XERO_AUTH_EXPIRED',
            'Your Xero connection has expired. Please reconnect.',
            detail || undefined,
          );
        if (response.status === 403) {
          throw new AppError(
            'FORBIDDEN',
            'Xero refused access to this organisation. Reconnect it from the Organizations page.',
            detail || undefined,
          );
        }
        if (response.status === 404) throw new AppError('NOT_FOUND', detail || 'Not found in Xero');
        throw new AppError(
          'XERO_REJECTED',
          detail || `Xero refused the request (${response.status})`,
          undefined,
          { xeroStatus: response.status },
        );
      }
      if (!request.schema) return { status: response.status, data: body as T, headers: response.headers };
      const parsed = request.schema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new AppError(
          'XERO_UNAVAILABLE',
          'Xero sent an answer Ledgerlink could not read. Please try again.',
          issue ? `${issue.path.join('.')}: ${issue.message}` : undefined,
        );
      }
      return { status: response.status, data: parsed.data, headers: response.headers };
    }
  }

  return {
    send,
    gateFor,
    /** Calls waiting at each tenant's gate on this instance (metrics). */
    gateQueues: (): Array<[string, number]> => [...gates].map(([tenantId, gate]) => [tenantId, gate.pending]),
  };
}
export type XeroHttp = ReturnType<typeof createXeroHttp>;
