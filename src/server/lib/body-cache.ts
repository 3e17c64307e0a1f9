import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A JSON answer serialised once, with the cache version it was built at and an ETag of its bytes. From
 * `COMPRESS_FROM_BYTES` on it is kept gzip-compressed only (a 10,000-invoice list: 2.6 MB of JSON, about 0.3 MB
 * compressed): every browser takes gzip, and the rare client that does not gets it inflated off the event loop.
 */
export interface CachedBody {
  version: number;
  etag: string;
  /** The JSON's length in bytes. */
  length: number;
  /** The JSON as it is (small answers), or null when only `gzipped` is kept. */
  plain: Buffer | null;
  /** The JSON gzip-compressed (large answers), or null. */
  gzipped: Buffer | null;
}

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);
/** Below this, compressing costs more than it saves. */
const COMPRESS_FROM_BYTES = 1024;

/** The answer's JSON bytes, inflated when only the compressed ones are kept. */
export async function plainBytes(entry: CachedBody): Promise<Buffer> {
  if (entry.plain) return entry.plain;
  if (entry.gzipped) return gunzip(entry.gzipped);
  throw new Error('cached body holds no bytes');
}

/** Builds the entry for `json`: compressed once here, at build time, when it is large. */
export async function packBody(version: number, json: Buffer): Promise<CachedBody> {
  const base = { version, etag: describeEtag(json), length: json.length };
  if (json.length < COMPRESS_FROM_BYTES) return { ...base, plain: json, gzipped: null };
  try {
    return { ...base, plain: null, gzipped: await gzip(json, { level: 6 }) };
  } catch {
    // Compression failing (out of memory) is no reason to fail the answer: keep it as it is.
    return { ...base, plain: json, gzipped: null };
  }
}

/** Bytes an entry holds in memory. */
const heldBytes = (entry: CachedBody) => (entry.plain?.length ?? 0) + (entry.gzipped?.length ?? 0);

/** An answer its builder already serialised (e.g. JSON the database wrote): cached as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

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
 * Misses of different scopes build one at a time: a 10,000-invoice list is about
 * 26 MB of rows and objects on its way to 2.6 MB of JSON, and ten organisations' lists built at once held all
 * of it together (bench/results.md §2: the memory scenario's peak). The JavaScript runs on one thread either
 * way, so building in turn costs no throughput; a waiting request gets its answer after the ones before it.
 */
export function createBodyCache(options: { maxBytes: number }) {
  const entries = new Map<string, CachedBody>();
  const building = new Map<string, Promise<CachedBody>>();
  let bytes = 0;
  /** The build running now, or done: the next one starts after it (first come, first served). */
  let lastBuild: Promise<unknown> = Promise.resolve();

  function inTurn<T>(task: () => Promise<T>): Promise<T> {
    const turn = lastBuild.then(task);
    lastBuild = turn.catch(() => undefined);
    return turn;
  }

  function forget(scope: string): void {
    const old = entries.get(scope);
    if (!old) return;
    entries.delete(scope);
    bytes -= heldBytes(old);
  }

  function remember(scope: string, entry: CachedBody): void {
    const old = entries.get(scope);
    // A request that read an older version finished late: the newer body stays.
    if (old && old.version > entry.version) return;
    forget(scope);
    if (heldBytes(entry) > options.maxBytes) return;
    entries.set(scope, entry);
    bytes += heldBytes(entry);
    for (const [key, value] of entries) {
      if (bytes <= options.maxBytes) break;
      entries.delete(key);
      bytes -= heldBytes(value);
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
        const json = Buffer.from(built instanceof JsonText ? built.text : JSON.stringify(built));
        const entry = await packBody(version, json);
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
 * If-None-Match every time; an unchanged answer is then a 304 without a body. A large answer goes to a browser
 * that accepts gzip as the compressed bytes the cache keeps (a 5,000-invoice list: 1.3 MB of JSON, about a
 * tenth of it on the wire), to any other client inflated again.
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
  if (entry.gzipped && acceptsGzip(request))
    return reply.header('content-encoding', 'gzip').send(entry.gzipped);
  return reply.send(await plainBytes(entry));
}
