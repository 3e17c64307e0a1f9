import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** `request.routeOptions`, read once a request (`routeOf`); null until then. */
    matchedRoute: FastifyRequest['routeOptions'] | null;
  }
}

/**
 * The route that matched, its options read once a request: Fastify builds and freezes a new object on each read
 * of `request.routeOptions`, and the shared hooks ask about six times an answer (issue 47: about 0.4 KB of
 * garbage a request).
 */
export function routeOf(request: FastifyRequest): FastifyRequest['routeOptions'] {
  request.matchedRoute ??= request.routeOptions;
  return request.matchedRoute;
}

/**
 * The path every check decides on (issue 28 item 6): the pattern of the route that matched, else the decoded
 * path. The router decodes percent-escapes before it matches, so `/%61pi/logout` runs the `/api/logout`
 * handler; a check that read the raw URL saw `/%61pi/logout`, not an API path, and let a cross-site form sign
 * a user out. Deciding on what matched makes the checks see exactly what the router saw.
 */
export function routePath(request: FastifyRequest): string {
  const matched = routeOf(request).url;
  if (matched !== undefined) return matched;
  return decodedPath(request.url);
}

/** The path of a URL without its query string, percent-escapes decoded (left as sent when they are malformed). */
export function decodedPath(url: string): string {
  const query = url.indexOf('?');
  const raw = query === -1 ? url : url.slice(0, query);
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A request for the JSON API (a route under /api, or an unknown path there), decided as the router decides. */
export function isApiRequest(request: FastifyRequest): boolean {
  const path = routePath(request);
  return path === '/api' || path.startsWith('/api/');
}
