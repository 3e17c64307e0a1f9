import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A JSON answer serialised once, with the cache version it was built at and an ETag of its bytes. */
export interface CachedBody {
  version: number;
  body: Buffer;
  etag: string;
  /** The body gzip-compressed, made the first time a browser that accepts gzip asks (off the event loop). */
  gzipped?: Promise<Buffer>;
}

const gzip = promisify(zlib.gzip);

/** An answer its builder already serialised (e.g. JSON the database wrote): cached as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}
/** Below this, compressing costs more than it saves. */
const COMPRESS_FROM_BYTES = 1024;

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  return value.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === '*') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * Serialised answers of cached reads (the outstanding-invoice list, a customer's weekly sales), kept in memory
 * per scope (organisation + view + parameters) under the organisation's cache version. The version comes from
 * the database on every request (with the session, in one query) and every write to the invoice cache moves
 * it on in the writer's transaction (migration 0005), so an answer is served only while nothing it was built
 * from has changed, on this instance or any other. A body is built after its version was read, so it is never
 * older than its version. Only the newest version of a scope is kept; least recently used scopes go first
 * once `maxBytes` is reached. Concurrent misses of one scope and version build it once.
 *
 * Misses of different scopes build `concurrentBuilds` at a time (default 1): a 10,000-invoice list is about
 * 26 MB of rows and objects on its way to 2.6 MB of JSON, and ten organisations' lists built at once held all
 * of it together (bench/results.md §2: the memory scenario's peak). The JavaScript runs on one thread either
 * way, so building in turn costs no throughput; a waiting request gets its answer after the ones before it.
 */
export function createBodyCache(options: { maxBytes: number; concurrentBuilds?: number }) {
  const entries = new Map<string, CachedBody>();
  const building = new Map<string, Promise<CachedBody>>();
  let bytes = 0;
  const slots = options.concurrentBuilds ?? 1;
  let running = 0;
  const waiting: Array<() => void> = [];

  /** Runs `task` once fewer than `slots` builds are running (first come, first served). */
  async function inTurn<T>(task: () => Promise<T>): Promise<T> {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  }

  function forget(scope: string): void {
    const old = entries.get(scope);
    if (!old) return;
    entries.delete(scope);
    bytes -= old.body.length;
  }

  function remember(scope: string, entry: CachedBody): void {
    const old = entries.get(scope);
    // A request that read an older version finished late: the newer body stays.
    if (old && old.version > entry.version) return;
    forget(scope);
    if (entry.body.length > options.maxBytes) return;
    entries.set(scope, entry);
    bytes += entry.body.length;
    for (const [key, value] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(key);
      bytes -= value.body.length;
    }
  }

  return {
    /**
     * The body of `scope` at `version`: from memory, or built by `build` (once for concurrent callers), which
     * returns the answer to serialise or a `JsonText` already serialised.
     */
    get(scope: string, version: number, build: () => Promise<unknown>): Promise<CachedBody> {
      const hit = entries.get(scope);
      if (hit && hit.version === version) {
        // Most recently used goes last, so eviction takes the coldest first.
        entries.delete(scope);
        entries.set(scope, hit);
        return Promise.resolve(hit);
      }
      const key = `${scope}@${version}`;
      const pending = building.get(key);
      if (pending) return pending;
      const promise = inTurn(async () => {
        const built = await build();
        const body = Buffer.from(built instanceof JsonText ? built.text : JSON.stringify(built));
        const entry: CachedBody = { version, body, etag: describeEtag(body) };
        remember(scope, entry);
        return entry;
      }).finally(() => building.delete(key));
      building.set(key, promise);
      return promise;
    },

    /** Bytes held and scopes cached (tests and diagnostics). */
    size(): { bytes: number; scopes: number } {
      return { bytes, scopes: entries.size };
    },
  };
}
export type BodyCache = ReturnType<typeof createBodyCache>;

/** A strong ETag from the bytes themselves: equal answers match whichever version or instance built them. */
function describeEtag(body: Buffer): string {
  return `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** Whether an If-None-Match header names this ETag (weak comparison, as RFC 9110 §13.1.2 asks for GET). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * Sends a cached body as it is, without the route's schema serialisation (the tests parse these bodies with the
 * route's response schema). `private, no-cache` lets the browser keep it and ask again with
 * If-None-Match every time; an unchanged answer is then a 304 without a body. A browser that accepts gzip gets
 * the body compressed once per cached entry (a 5,000-invoice list goes from 1.3 MB to about a tenth of it).
 */
export async function sendCachedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  entry: CachedBody,
  options: { etagVariant?: string } = {},
): Promise<FastifyReply> {
  // A variant (e.g. the list's sync progress, sent in a header) makes the same bytes a different answer.
  const etag = options.etagVariant ? `${entry.etag.slice(0, -1)}-${options.etagVariant}"` : entry.etag;
  reply.header('cache-control', 'private, no-cache').header('etag', etag).header('vary', 'Accept-Encoding');
  const condition = request.headers['if-none-match'];
  if (matchesEtag(Array.isArray(condition) ? condition.join(',') : condition, etag))
    return reply.code(304).send();
  reply.type('application/json; charset=utf-8');
  if (entry.body.length >= COMPRESS_FROM_BYTES && acceptsGzip(request)) {
    const gzipped = (entry.gzipped ??= gzip(entry.body, { level: 6 }));
    const packed = await gzipped.catch(() => {
      // A failed compression is not remembered: this answer goes plain, the next one tries again.
      if (entry.gzipped === gzipped) delete entry.gzipped;
      return null;
    });
    if (packed) return reply.header('content-encoding', 'gzip').send(packed);
  }
  return reply.send(entry.body);
}
