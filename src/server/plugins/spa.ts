import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorAnswer } from '../lib/app-error';
import { decodedPath, isApiRequest } from './route-path';

/** Hashed file names never change content: browsers and proxies may keep them for a year without asking. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/** A path that names a file of the build: under /assets/, or ending in a file extension. */
function isFilePath(pathname: string): boolean {
  return pathname.startsWith('/assets/') || /\.[A-Za-z0-9]+$/.test(pathname.slice(pathname.lastIndexOf('/')));
}

/**
 * Serves the built client from `dist/client`: hashed assets cached for a year, index.html never cached,
 * and index.html for every other page path so the client's router decides (its own 404 page included).
 * Unknown /api paths get a JSON 404, unknown files (`/assets/missing.js`) a plain one.
 *
 * The build writes `.br` and `.gz` beside each text file (vite.config.ts `precompressBuild`); they are sent
 * as they are to a browser that accepts them (`Content-Encoding`, `Vary: Accept-Encoding`), the plain file
 * otherwise, so nothing is compressed per request.
 */
export async function registerSpa(
  app: FastifyInstance,
  clientDir: string,
  hooks: {
    /** A page's HTML is being sent: what it will ask the API for may start now (not awaited). */
    onPage?: (request: FastifyRequest, pathname: string) => Promise<void>;
  } = {},
) {
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
    const pathname = decodedPath(request.url);
    if (isApiRequest(request) || request.method !== 'GET') {
      return reply.status(404).send(errorAnswer('NOT_FOUND', `Not found: ${request.method} ${pathname}`));
    }
    // A file the build does not have (an old hashed script after a deploy, a mistyped icon) is a 404, not the
    // page: a browser or proxy would otherwise keep HTML under a script's name (issue 28). Page paths have no
    // file extension (src/client/config/paths.ts).
    if (isFilePath(pathname)) {
      return reply
        .status(404)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send(`Not found: ${pathname}`);
    }
    // Checked per request: a rebuild empties the folder for a moment, and sendFile's own "not found" would
    // come back to this handler.
    if (!built || !fs.existsSync(indexPath)) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app has not been built yet: run `npm run build` (npm start does it for you).');
    }
    hooks.onPage?.(request, pathname).catch((error: unknown) => {
      request.log.warn({ err: error }, 'starting the page data failed');
    });
    return reply.sendFile('index.html');
  });
}
