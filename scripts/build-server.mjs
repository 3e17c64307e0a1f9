/**
 * Bundles the server into one ES module run by plain Node: `npm start` and `npm run start:only` run
 * dist/server/server.mjs, so production does not carry tsx's TypeScript loader (a second V8 instance on its
 * own thread, about 80 MB of the process's memory: bench/results.md §2). Packages stay in node_modules
 * (PGlite finds its WebAssembly there); the migrations are copied beside the bundle, where
 * src/server/db/client.ts looks for them (`./migrations` next to the module); the client's folder is found from the
 * module's place too (src/server/app.ts: `../../dist/client`), which dist/<dir>/ keeps as src/server/ does.
 *
 *   node scripts/build-server.mjs                          dist/server/server.mjs
 *   node scripts/build-server.mjs <entry.ts> <out.mjs>     another entry (the benchmarks' server process)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function bundleServer(entry = 'src/server/server.ts', outfile = 'dist/server/server.mjs') {
  const out = path.resolve(ROOT, outfile);
  await build({
    entryPoints: [path.resolve(ROOT, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.12',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const migrations = path.join(path.dirname(out), 'migrations');
  fs.rmSync(migrations, { recursive: true, force: true });
  fs.cpSync(path.resolve(ROOT, 'src/server/db/migrations'), migrations, { recursive: true });
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [entry, outfile] = process.argv.slice(2);
  await bundleServer(entry, outfile);
}
