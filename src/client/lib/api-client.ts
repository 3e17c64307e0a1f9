import type { z } from 'zod';
import { errorCodeOf, type ErrorCode } from '@/shared/errors-rules';
import { env } from '@/client/config/env';
import { apiPaths } from '@/client/config/paths';
import { recordConnectionFailure } from './connection-trouble';
import { isSessionEndedAnswer, recordUnauthorized, reportSessionEnded } from './session';
import {
  isXeroAccessLost,
  isXeroAccessLostAnswer,
  reportXeroAccessLost,
  XERO_ACCESS_LOST_MESSAGE,
} from './xero-access';
import { sleep } from './utils';

/**
 * The one fetch wrapper (docs/product/shell.md §7–§8, docs/architecture.md §7). Every call sends credentials;
 * a JSON body is sent only when there is a payload; GET is the default; paths containing /auth/ bypass the
 * HTTP cache.
 */

export const NETWORK_RETRY_DELAYS_MS = [1000, 2000] as const;
/**
 * returnNull mode: an attempt closer than 5 s to the previous one waits 2 s first (docs/product/shell.md §9).
 */
export const AUTH_ATTEMPT_WINDOW_MS = 5000;
export const AUTH_ATTEMPT_DELAY_MS = 2000;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A response schema, or a loader for one. The shell's own calls pass loaders (`lib/response-schemas`), so zod
 * is fetched beside their first request instead of being part of the first screen's download
 * (bench/results.md §3).
 */
export type SchemaSource<T> = z.ZodType<T> | (() => z.ZodType<T> | Promise<z.ZodType<T>>);

/**
 * A failed response: its status, its parsed body, the message of docs/product/shell.md §8 and the server's
 * `code` (docs/api-errors.md; undefined when the answer did not come from Ledgerlink, e.g. a proxy's 502).
 * Ask what kind of failure it is with the helpers of `lib/api-errors.ts`, not by reading the body.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly path: string;
  readonly code: ErrorCode | undefined;
  constructor(message: string, status: number, body: unknown, path: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
    this.path = path;
    this.code = errorCodeOf(body);
  }
  /** 422: an expected validation error (docs/product/shell.md §5). */
  get isValidation(): boolean {
    return this.status === 422;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export interface RequestOptions<T> {
  method?: HttpMethod;
  /** The payload; sent as JSON only when present. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Parses a successful answer; without it the answer is returned as it came. */
  schema?: SchemaSource<T>;
  /** Bypass the HTTP cache (always on for paths containing /auth/). */
  noCache?: boolean;
  /** Retry network errors (2 retries, 1 s then 2 s). On by default. */
  retryNetworkErrors?: boolean;
  /** Given the headers of a successful answer (e.g. how complete a list is), before it is parsed. */
  onHeaders?: (headers: Headers) => void;
}

function getField(body: unknown, field: 'message' | 'error'): string | undefined {
  if (body && typeof body === 'object' && field in body) {
    const value = (body as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/**
 * The message of a failed response: the body's message, else its error, else the raw text, else the status
 * text, else "HTTP Error {status}". A 422 appends the server's error text after a colon when both exist.
 */
export function getErrorMessage(status: number, statusText: string, body: unknown, rawText: string): string {
  const message = getField(body, 'message');
  const error = getField(body, 'error');
  if (status === 422 && message && error && error !== message) return `${message}: ${error}`;
  if (message) return message;
  if (error) return error;
  if (rawText.trim() !== '') return rawText;
  if (statusText.trim() !== '') return statusText;
  return `HTTP Error ${status}`;
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

function toUrl(path: string): string {
  if (/^https?:\/\//.test(path)) return path;
  const origin = env.apiOrigin ?? window.location.origin;
  return new URL(path, origin).toString();
}

async function fetchWithRetry(url: string, init: RequestInit, retry: boolean): Promise<Response> {
  const delays = retry ? NETWORK_RETRY_DELAYS_MS : [];
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await fetch(url, init);
    } catch (error) {
      const delay = delays[attempt];
      if (isAbort(error) || delay === undefined) {
        if (!isAbort(error)) recordConnectionFailure();
        throw error;
      }
      await sleep(delay);
    }
  }
}

function buildInit<T>(path: string, options: RequestOptions<T>): RequestInit {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const init: RequestInit = { method: options.method ?? 'GET', credentials: 'include', headers };
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  if (options.noCache || path.includes('/auth/')) init.cache = 'no-cache';
  if (options.signal) init.signal = options.signal;
  return init;
}

async function readBody(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch {
    return '';
  }
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Starts loading a lazy schema at once, so it downloads while the request is in flight. */
function startLoadingSchema<T>(source: SchemaSource<T> | undefined): Promise<z.ZodType<T> | undefined> {
  if (typeof source !== 'function') return Promise.resolve(source);
  const loading = Promise.resolve(source());
  // Awaited only after a successful answer; a failed request must not leave the load's failure unhandled.
  loading.catch(() => undefined);
  return loading;
}

async function handleResponse<T>(
  path: string,
  response: Response,
  schemaReady: Promise<z.ZodType<T> | undefined>,
): Promise<T> {
  const text = await readBody(response);
  if (!response.ok) {
    const parsed = text.trim() === '' ? { ok: true as const, value: {} } : parseJson(text);
    const body = parsed.ok ? parsed.value : text;
    if (response.status >= 500) recordConnectionFailure();
    // A 401 saying the Xero connection is gone is not about the session: the header moves to Reconnect.
    if (isXeroAccessLostAnswer(response.status, body)) reportXeroAccessLost();
    else if (response.status === 401) {
      recordUnauthorized();
      if (isSessionEndedAnswer(response.status, body)) reportSessionEnded();
    }
    throw new ApiError(
      getErrorMessage(response.status, response.statusText, body, parsed.ok ? '' : text),
      response.status,
      body,
      path,
    );
  }
  let value: unknown = {};
  if (text.trim() !== '') {
    const parsed = parseJson(text);
    if (!parsed.ok) throw new Error(`Failed to parse response from ${path}`);
    value = parsed.value;
  }
  const schema = await schemaReady;
  if (!schema) return value as T;
  const result = schema.safeParse(value);
  if (!result.success) {
    console.warn(`Unexpected response shape from ${path}`, result.error.issues);
    throw new Error(`Failed to parse response from ${path}`);
  }
  return result.data;
}

/**
 * Requests that give this browser a new session and end its old one as they run: turning two-step sign-in on
 * (every password-only session ends) and completing it (the pending session is replaced). The new cookie
 * arrives with their answer, so a request the page sent meanwhile may carry the old one and be refused.
 */
const SESSION_RENEWING_PATHS = new Set<string>([apiPaths.mfaEnable, apiPaths.mfaVerify]);
const renewalsInFlight = new Set<Promise<unknown>>();
let renewalsDone = 0;

/** One request; throws ApiError on a failed response and the fetch error after the network retries. */
export async function apiRequest<T = unknown>(path: string, options: RequestOptions<T> = {}): Promise<T> {
  const schemaReady = startLoadingSchema(options.schema);
  const send = () =>
    fetchWithRetry(toUrl(path), buildInit(path, options), options.retryNetworkErrors ?? true);
  const renewing = options.method === 'POST' && SESSION_RENEWING_PATHS.has(path);
  const doneAtSend = renewalsDone;
  let response: Response;
  if (renewing) {
    const exchange = send();
    renewalsInFlight.add(exchange);
    try {
      response = await exchange;
    } finally {
      renewalsInFlight.delete(exchange);
      renewalsDone += 1;
    }
  } else {
    response = await send();
    // Refused while this browser's session was being renewed: it may have gone out with the old cookie. Once the
    // renewal has answered (and the browser holds the new cookie) it goes once more. A 401 is given before a
    // route does anything, so sending it again repeats nothing.
    if (response.status === 401 && (renewalsInFlight.size > 0 || renewalsDone !== doneAtSend)) {
      await Promise.allSettled([...renewalsInFlight]);
      response = await send();
    }
  }
  if (response.ok) options.onHeaders?.(response.headers);
  return handleResponse(path, response, schemaReady);
}

let lastNullableAttempt = 0;

/**
 * The "return null on 401" mode (docs/product/shell.md §8): a 401 yields null instead of an error; when the
 * previous attempt was less than 5 s earlier, the null comes after a 2 s delay, so a caller retrying in a
 * loop cannot hammer the server.
 */
export async function apiRequestOrNull<T = unknown>(
  path: string,
  options: RequestOptions<T> = {},
): Promise<T | null> {
  const now = Date.now();
  const closeToPrevious = lastNullableAttempt > 0 && now - lastNullableAttempt < AUTH_ATTEMPT_WINDOW_MS;
  lastNullableAttempt = now;
  try {
    return await apiRequest(path, options);
  } catch (error) {
    if (isApiError(error) && error.status === 401) {
      if (closeToPrevious) await sleep(AUTH_ATTEMPT_DELAY_MS);
      return null;
    }
    throw error;
  }
}

/** Test helper. */
export function resetApiClientState(): void {
  lastNullableAttempt = 0;
}

type BodylessOptions<T> = Omit<RequestOptions<T>, 'method' | 'body'>;

export const api = {
  get: <T = unknown>(path: string, options?: BodylessOptions<T>) =>
    apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T = unknown>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T = unknown>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T = unknown>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T = unknown>(path: string, options?: BodylessOptions<T>) =>
    apiRequest<T>(path, { ...options, method: 'DELETE' }),
  getOrNull: <T = unknown>(path: string, options?: BodylessOptions<T>) =>
    apiRequestOrNull<T>(path, { ...options, method: 'GET' }),
};

/** What users read instead of the browser's or the server's jargon (issue 17 item 12). */
export const USER_MESSAGES = {
  offline: 'Ledgerlink could not be reached. Check your internet connection, then try again.',
  serverFault: 'Something went wrong on our side. Please try again in a moment.',
  unreadable: 'Ledgerlink received an answer it could not read. Please try again.',
  xeroAccessLost: XERO_ACCESS_LOST_MESSAGE.description,
} as const;

/** Texts that are the transport's, not ours: the fetch failure, HTTP status lines, "Internal server error". */
const NETWORK_JARGON =
  /^(failed to fetch|fetch failed|load failed|networkerror\b.*|network request failed)$/i;
const SERVER_JARGON =
  /^(internal server error|http error \d{3}|bad gateway|service unavailable|gateway time-?out)$/i;

function humanise(error: unknown, message: string): string {
  if (isXeroAccessLost(error) || isReconnectionText(message)) return USER_MESSAGES.xeroAccessLost;
  if (error instanceof TypeError && NETWORK_JARGON.test(message.trim())) return USER_MESSAGES.offline;
  if (/^Failed to parse response from /.test(message)) return USER_MESSAGES.unreadable;
  if (isApiError(error) && error.status >= 500 && SERVER_JARGON.test(message.trim()))
    return USER_MESSAGES.serverFault;
  // A wrapped failure ("Failed to set active organization: 500 …") reads as its cause does.
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const inner = humanise(cause, cause.message);
    if (inner !== cause.message) return inner;
  }
  return message;
}

function isReconnectionText(message: string): boolean {
  return message === 'Token refresh failed' || message === 'No refresh token, reconnection required';
}

/** A readable message for any thrown value, with a fallback (e.g. "Login failed"); jargon becomes words. */
export function getMessage(error: unknown, fallback: string): string {
  if (error instanceof Error && error.message.trim() !== '') return humanise(error, error.message);
  return fallback;
}
