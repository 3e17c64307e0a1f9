import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE_CACHE, registerSpa } from './spa';

const SCRIPT = `export const answer = ${JSON.stringify('ledgerlink '.repeat(200))};\n`;
const INDEX = `<!doctype html><html><head><title>Ledgerlink</title><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>`;

/** A built client as vite.config.ts's precompressBuild leaves it: plain files with .br and .gz beside them. */
function writeBuiltClient(dir: string) {
  fs.mkdirSync(path.join(dir, 'assets'));
  const write = (name: string, text: string, compressed: boolean) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    if (!compressed) return;
    fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(text));
    fs.writeFileSync(`${file}.gz`, zlib.gzipSync(text));
  };
  write('index.html', INDEX, true);
  write('assets/index-abc123.js', SCRIPT, true);
  write('assets/tiny-def456.js', 'export {};\n', false);
}

async function startSpa(clientDir: string): Promise<FastifyInstance> {
  const app = Fastify();
  await registerSpa(app, clientDir);
  await app.ready();
  return app;
}

describe('serving the built client (spa.ts)', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-spa-'));
    writeBuiltClient(dir);
    app = await startSpa(dir);
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends the Brotli file to a browser that accepts br and gzip, cached for a year', async () => {
    const res = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.rawPayload.length).toBeLessThan(SCRIPT.length / 5);
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it('sends the gzip file to a browser that accepts gzip only', async () => {
    const res = await app.inject({
      url: '/assets/index-abc123.js',
      headers: { 'accept-encoding': 'gzip, deflate' },
    });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(res.rawPayload).toString()).toBe(SCRIPT);
  });

  it('sends the plain file without Accept-Encoding, still varying on it for shared caches', async () => {
    const res = await app.inject({ url: '/assets/index-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.body).toBe(SCRIPT);
  });

  it('falls back to the plain file when no compressed one was written', async () => {
    const res = await app.inject({
      url: '/assets/tiny-def456.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe('export {};\n');
  });

  it('sends index.html, compressed and never cached, for every page path', async () => {
    for (const url of ['/', '/organizations', '/auth?error=missing_code']) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(INDEX);
    }
    const plain = await app.inject({ url: '/organizations' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(INDEX);
  });

  it('answers unknown /api paths and other methods with a JSON 404', async () => {
    const api = await app.inject({ url: '/api/nothing', headers: { 'accept-encoding': 'br' } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ message: 'Not found: GET /api/nothing', code: 'NOT_FOUND' });
    const post = await app.inject({ method: 'POST', url: '/organizations' });
    expect(post.statusCode).toBe(404);
  });

  it('answers a file the build does not have with a 404, not the page', async () => {
    for (const url of [
      '/assets/missing.js',
      '/assets/index-abc123.css',
      '/favicon-missing.ico',
      '/a/b.webmanifest',
    ]) {
      const res = await app.inject({ url, headers: { 'accept-encoding': 'br' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/plain/);
      expect(res.body, url).not.toContain('<div id="root">');
    }
    // A page path still gets the page, with or without a query string holding a dot.
    const page = await app.inject({ url: '/invoices?search=INV.0001' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(INDEX);
  });

  it('treats a percent-encoded /api path as the API (issue 28)', async () => {
    const res = await app.inject({ url: '/%61pi/nothing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'Not found: GET /api/nothing', code: 'NOT_FOUND' });
  });

  it('says the app is not built when there is no index.html', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ledgerlink-spa-empty-'));
    const bare = await startSpa(empty);
    try {
      const res = await bare.inject({ url: '/organizations' });
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('npm run build');
    } finally {
      await bare.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
