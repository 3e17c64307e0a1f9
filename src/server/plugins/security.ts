import type { FastifyInstance, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { AppError } from '../lib/app-error';
import { isApiRequest, routeOf, routePath } from './route-path';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * An /api route whose answer a browser shows in a tab of its own (an invoice attachment opened from its
     * link): it carries the page headers, not the shorter set of the answers the app's scripts read.
     */
    shownAsPage?: boolean;
  }
}

/** Where the OpenAPI browser (@fastify/swagger-ui) serves its page and scripts: shown as a page. */
const API_DOCS_PREFIX = '/api/docs';

/** The origin the browser used to reach us: scheme + Host header. */
function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function originOf(value: string): string | null {
  try {
    return new URL(value).origin;
  } catch {
    return null;
  }
}

/** The headers a helmet middleware sets, read by running it once on a response that only records them. */
function helmetHeaders(middleware: ReturnType<typeof helmet>): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  let failed: unknown;
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push([name, String(value)]);
    },
    removeHeader() {},
  };
  middleware({} as never, recorder as never, (error?: unknown) => {
    failed = error;
  });
  if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
  return headers;
}

/**
 * Security headers on every answer, and the same-origin rule for state changes: a state-changing /api request
 * must carry an Origin (or, without one, a Referer) of the app itself, so a cross-site form post is refused.
 */
export async function registerSecurity(
  app: FastifyInstance,
  options: { appUrl: string; https: boolean; signedPaths?: readonly string[] },
) {
  // Helmet's middleware, built once: @fastify/helmet built it again for every request (about 10 µs of a cached
  // read's CPU, bench/profile-server.ts). The headers are the same on every answer, errors and 404s included.
  const setSecurityHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        // Radix and recharts position elements with style attributes.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'frame-src': ["'self'", 'blob:'],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'frame-ancestors': ["'none'"],
        'form-action': ["'self'"],
        ...(options.https ? { 'upgrade-insecure-requests': [] } : {}),
      },
    },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    crossOriginEmbedderPolicy: false,
  });
  // What helmet sets does not depend on the request: asked once, then set as a list (its middleware chain was
  // a few µs of every small answer, issue 32).
  const pageHeaders = helmetHeaders(setSecurityHeaders);
  // The answers the app's scripts read (JSON, the live-event stream, CSV and PDF downloads) are never shown as
  // a page, so the headers that govern a document (its scripts, styles, referrer, window and process
  // isolation) have nothing to act on. They get the set OWASP's REST Security Cheat Sheet gives an API: a
  // CSP that allows nothing (should one be opened in a tab, it runs nothing and loads nothing), no framing,
  // no sniffing, same-origin reads only, no caching (issue 16), and HSTS over HTTPS. Helmet's thirteen cost
  // about 23 µs of server CPU an answer against a bare route's 46, five about 10 (bench/results.md §2, issue 32).
  const apiHeaders: Array<[string, string]> = [
    ['Cache-Control', 'no-store'],
    ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ...pageHeaders.filter(([name]) => name.toLowerCase() === 'strict-transport-security'),
  ];
  // An API answer shown as a page: the page set, and private as every API answer (issue 16).
  const apiPageHeaders: Array<[string, string]> = [['Cache-Control', 'no-store'], ...pageHeaders];
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(API_DOCS_PREFIX)) route.config = { ...route.config, shownAsPage: true };
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Decided on the route that matched, so `/%61pi/user` is as private as `/api/user` (issue 28). A route a
    // cached answer is allowed says so itself: the ETag-validated lists send `private, no-cache`
    // (src/server/lib/body-cache.ts).
    const headers = !isApiRequest(request)
      ? pageHeaders
      : routeOf(request).config.shownAsPage === true
        ? apiPageHeaders
        : apiHeaders;
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    done();
  });

  const allowed = new Set([originOf(options.appUrl)].filter((v): v is string => v !== null));
  // Paths a server calls with a signed body (Xero's webhooks) carry no Origin and no cookie: the signature
  // stands in for the same-origin rule, and the route refuses anything unsigned.
  const signed = new Set(options.signedPaths ?? []);
  // A callback hook, not an async one: a GET passes without a promise (issue 32).
  app.addHook('onRequest', (request, _reply, done) => {
    // The route that matched decides, not the raw URL: a cross-site form posting to `/%61pi/logout` runs the
    // logout route and is refused like one posting to `/api/logout` (issue 28).
    if (!STATE_CHANGING.has(request.method) || !isApiRequest(request) || signed.has(routePath(request))) {
      done();
      return;
    }
    const origin = request.headers.origin;
    const referer = request.headers.referer;
    const claimed = origin && origin !== 'null' ? originOf(origin) : referer ? originOf(referer) : null;
    if (!claimed || !(allowed.has(claimed) || claimed === requestOrigin(request))) {
      done(new AppError('FORBIDDEN', 'Cross-origin request refused'));
      return;
    }
    done();
  });
}
