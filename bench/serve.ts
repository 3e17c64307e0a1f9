/**
 * A server process for the load and memory benchmarks, so the load generator (autocannon, in the parent)
 * and the measured server never share a CPU thread, and the server's own memory can be read.
 *
 *   node --import tsx bench/serve.ts app  '<json: {dataDir, databaseUrl?, sandboxUrl}>'
 *   node --import tsx bench/serve.ts bare '<file with [{contentType, base64}]>'
 *
 * Prints "READY <port>" once listening; stops on SIGTERM.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import Fastify from 'fastify';
import { openBenchDatabase, startBenchApp } from './lib/harness';

interface AppSpec {
  dataDir: string;
  databaseUrl?: string;
  sandboxUrl: string;
  /** More configuration variables for the app (the soak gives it a webhook key). */
  env?: Record<string, string>;
  /** The built client to serve (the page benchmark's first visit); none by default. */
  clientDir?: string;
  /** Xero's own limits in the app's gate (the practice benchmark); lifted by default (harness UNPACED_GATE). */
  paced?: boolean;
}

async function startApp(spec: AppSpec): Promise<{ port: number; close: () => Promise<void> }> {
  const database = await openBenchDatabase(
    spec.databaseUrl ? { url: spec.databaseUrl } : { dir: spec.dataDir },
  );
  const running = await startBenchApp({
    database,
    sandboxUrl: spec.sandboxUrl,
    dataDir: spec.dataDir,
    ...(spec.env ? { env: spec.env } : {}),
    ...(spec.clientDir ? { clientDir: spec.clientDir } : {}),
    ...(spec.paced ? { paced: true } : {}),
  });
  return { port: Number(new URL(running.url).port), close: () => running.close() };
}

/**
 * The same bytes behind a bare Fastify route each: what the answer costs without the app around it. Like the
 * app's body cache, an answer of 1 KB or more goes gzip-compressed (once, here) to a client that asks for gzip.
 */
async function startBare(file: string): Promise<{ port: number; close: () => Promise<void> }> {
  const bodies = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ contentType: string; base64: string }>;
  const app = Fastify({ logger: false });
  bodies.forEach((body, i) => {
    const bytes = Buffer.from(body.base64, 'base64');
    const gzipped = bytes.length >= 1024 ? zlib.gzipSync(bytes, { level: 6 }) : null;
    app.get(`/bare/${i}`, async (request, reply) => {
      reply.type(body.contentType);
      if (gzipped && /\bgzip\b/.test(request.headers['accept-encoding'] ?? ''))
        return reply.header('content-encoding', 'gzip').send(gzipped);
      return reply.send(bytes);
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, close: () => app.close() };
}

const [mode, arg = ''] = process.argv.slice(2);
const server =
  mode === 'app' ? await startApp(JSON.parse(arg) as AppSpec) : mode === 'bare' ? await startBare(arg) : null;
if (!server) {
  console.error('usage: serve.ts app <json> | bare <file>');
  process.exit(2);
}
// The monotonic clock CPU profiles use (µs): bench/profile-server.ts leaves out what came before it.
process.stdout.write(`LISTENING_AT_US ${process.hrtime.bigint() / 1000n}\n`);
process.stdout.write(`READY ${server.port}\n`);
process.on('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
