import type { RouteOptions } from 'fastify';
import { errorResponseSchema, ERROR_STATUS_DESCRIPTIONS } from '../../shared/errors';

type Status = keyof typeof ERROR_STATUS_DESCRIPTIONS;

/** Routes anyone may call signed out: no 401/403 of their own to document beyond what they declare. */
const PUBLIC = /^\/api\/(config|docs)/;

/**
 * The error answers a route can give, by what it is (issue 16): any /api request can be malformed (400), be
 * refused (401 signed out, 403 cross-origin, another organisation, a switched-off feature), name what is not
 * there (404) or come too often (429); a write can also conflict (409), be refused as undoable (422) or be too
 * large (413); a Xero-backed route can find Xero unreachable (502).
 */
export function errorStatusesFor(method: string, url: string): Status[] {
  if (!url.startsWith('/api/') || PUBLIC.test(url)) return [];
  const statuses: Status[] = [400, 401, 403, 404, 429];
  if (method !== 'GET' && method !== 'HEAD') statuses.push(409, 413, 422);
  if (url.startsWith('/api/xero/')) statuses.push(502);
  return statuses;
}

/**
 * Adds the `{ message, code }` error answers to a route's response schemas (an `onRoute` hook, so every route
 * of every module is covered and the OpenAPI description lists them). A status the route documents itself is
 * kept as it is.
 */
export function documentErrorResponses(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const method = methods.find((m) => m !== 'HEAD') ?? 'GET';
  const statuses = errorStatusesFor(method, route.url ?? '');
  if (statuses.length === 0) return;
  const schema = (route.schema ??= {}) as { response?: Record<string | number, unknown>; hide?: boolean };
  if (schema.hide) return;
  const response = (schema.response ??= {});
  for (const status of statuses) {
    if (response[status] === undefined && response[String(status)] === undefined) {
      response[status] = errorResponseSchema.describe(ERROR_STATUS_DESCRIPTIONS[status]);
    }
  }
}
