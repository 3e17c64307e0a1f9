import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Hashed file names never change content: browsers and proxies may keep them for a year without asking. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/**
 * Serves the built client from `dist/client`: hashed assets cached for a year, index.html never cached,
 * and index.html for every non-API path so the client's router decides (its own 404 page included).
 * Unknown /api paths get a JSON 404.
 *
 * The build writes `.br` and `.gz` beside each text file (vite.config.ts `precompressBuild`); they are sent
 * as they are to a browser that accepts them (`Content-Encoding`, `Vary: Accept-Encoding`), the plain file
 * otherwise, so nothing is compressed per request.
 */
export async function registerSpa(app: FastifyInstance, clientDir: string) {
  const indexPath = path.join(clientDir, 'index.html');
  const built = fs.existsSync(indexPath);
  if (built) {
    await app.register(fastifyStatic, {
      root: clientDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      setHeaders(reply, filePath) {
        reply.header(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? IMMUTABLE_CACHE : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if (pathname === '/api' || pathname.startsWith('/api/') || request.method !== 'GET') {
      return reply
        .status(404)
        .send({ message: `Not found: ${request.method} ${pathname}`, code: 'NOT_FOUND' });
    }
    // Checked per request: a rebuild empties the folder for a moment, and sendFile's own "not found" would
    // come back to this handler.
    if (!built || !fs.existsSync(indexPath)) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app has not been built yet: run `npm run build` (npm start does it for you).');
    }
    return reply.sendFile('index.html');
  });
}
