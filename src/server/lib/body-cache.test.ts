import zlib from 'node:zlib';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createBodyCache, matchesEtag, sendCachedBody } from './body-cache';

describe('body cache', () => {
  it('builds a scope once per version and serves the same bytes until the version moves on', async () => {
    const cache = createBodyCache({ maxBytes: 1_000_000 });
    let builds = 0;
    const build = (value: unknown) => async () => {
      builds += 1;
      return value;
    };
    const first = await cache.get('invoices:1', 3, build([{ a: 1 }]));
    const again = await cache.get('invoices:1', 3, build([{ a: 2 }]));
    expect(builds).toBe(1);
    expect(again.plain?.toString()).toBe('[{"a":1}]');
    expect(again.etag).toBe(first.etag);
    const moved = await cache.get('invoices:1', 4, build([{ a: 2 }]));
    expect(builds).toBe(2);
    expect(moved.plain?.toString()).toBe('[{"a":2}]');
    expect(moved.etag).not.toBe(first.etag);
  });

  it('builds once for concurrent requests of one scope and version', async () => {
    const cache = createBodyCache({ maxBytes: 1_000_000 });
    let builds = 0;
    const slow = async () => {
      builds += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { n: builds };
    };
    const bodies = await Promise.all(Array.from({ length: 10 }, () => cache.get('sales:1', 1, slow)));
    expect(builds).toBe(1);
    expect(new Set(bodies.map((b) => b.plain?.toString()))).toEqual(new Set(['{"n":1}']));
  });

  it('builds different scopes one at a time, and a failed build does not hold up the next', async () => {
    const cache = createBodyCache({ maxBytes: 1_000_000 });
    let inFlight = 0;
    let mostAtOnce = 0;
    const build = (scope: string) => async () => {
      inFlight += 1;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      if (scope === 'org:3') throw new Error('database went away');
      return { scope };
    };
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => cache.get(`org:${i}`, 1, build(`org:${i}`))),
    );
    expect(mostAtOnce).toBe(1);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    // Every turn was given back: another build still runs.
    await expect(cache.get('org:9', 1, async () => 'after')).resolves.toMatchObject({ version: 1 });
  });

  it('keeps the newest version when an older request finishes late, and builds nothing when the build fails', async () => {
    const cache = createBodyCache({ maxBytes: 1_000_000 });
    await cache.get('s', 5, async () => 'new');
    const late = await cache.get('s', 4, async () => 'old');
    expect(late.plain?.toString()).toBe('"old"');
    let builds = 0;
    await cache.get('s', 5, async () => {
      builds += 1;
      return 'rebuilt';
    });
    expect(builds).toBe(0);
    await expect(
      cache.get('t', 1, async () => Promise.reject(new Error('Xero unavailable'))),
    ).rejects.toThrow('Xero unavailable');
    expect(cache.size().scopes).toBe(1);
  });

  it('drops the least recently used scopes beyond its byte budget', async () => {
    const cache = createBodyCache({ maxBytes: 25 });
    const ten = 'x'.repeat(8); // "xxxxxxxx" with quotes: 10 bytes
    await cache.get('a', 1, async () => ten);
    await cache.get('b', 1, async () => ten);
    await cache.get('a', 1, async () => 'unused');
    await cache.get('c', 1, async () => ten);
    expect(cache.size()).toEqual({ bytes: 20, scopes: 2 });
    let rebuilt = false;
    await cache.get('b', 1, async () => {
      rebuilt = true;
      return ten;
    });
    expect(rebuilt).toBe(true);
    const huge = await cache.get('big', 1, async () => 'y'.repeat(100));
    expect(huge.length).toBe(102);
    expect(cache.size().bytes).toBeLessThanOrEqual(25);
  });

  it('compares If-None-Match as RFC 9110 asks for GET (weak comparison, lists, *)', () => {
    const etag = '"abc"';
    expect(matchesEtag('"abc"', etag)).toBe(true);
    expect(matchesEtag('W/"abc"', etag)).toBe(true);
    expect(matchesEtag('"x", "abc"', etag)).toBe(true);
    expect(matchesEtag('*', etag)).toBe(true);
    expect(matchesEtag('"abcd"', etag)).toBe(false);
    expect(matchesEtag(undefined, etag)).toBe(false);
  });

  it('keeps a big body gzip-compressed only, sends it so to a browser that accepts gzip, inflated to others', async () => {
    const cache = createBodyCache({ maxBytes: 10_000_000 });
    const list = Array.from({ length: 2_000 }, (_, i) => ({
      invoiceNumber: `INV-${i}`,
      contact: 'Daily Sales',
      amountDue: i / 100,
    }));
    const app = Fastify();
    app.get('/list', async (request, reply) =>
      sendCachedBody(request, reply, await cache.get('list', 1, async () => list)),
    );
    app.get('/tiny', async (request, reply) =>
      sendCachedBody(request, reply, await cache.get('tiny', 1, async () => ({ ok: true }))),
    );
    try {
      const entry = await cache.get('list', 1, async () => list);
      expect(entry.plain).toBeNull();
      expect(cache.size().bytes).toBe(entry.gzipped?.length);
      expect(cache.size().bytes).toBeLessThan(entry.length / 4);
      const plain = await app.inject({ url: '/list' });
      expect(plain.rawPayload.length).toBe(entry.length);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.json()).toEqual(list);
      for (const accept of ['gzip, deflate, br', 'br;q=1, gzip;q=0.8']) {
        const packed = await app.inject({ url: '/list', headers: { 'accept-encoding': accept } });
        expect(packed.headers['content-encoding']).toBe('gzip');
        expect(packed.headers.vary).toContain('Accept-Encoding');
        expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
        expect(JSON.parse(zlib.gunzipSync(packed.rawPayload).toString())).toEqual(list);
        expect(packed.headers.etag).toBe(plain.headers.etag);
      }
      expect(
        (await app.inject({ url: '/list', headers: { 'accept-encoding': 'gzip;q=0' } })).headers[
          'content-encoding'
        ],
      ).toBeUndefined();
      expect(
        (await app.inject({ url: '/tiny', headers: { 'accept-encoding': 'gzip' } })).headers[
          'content-encoding'
        ],
      ).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
