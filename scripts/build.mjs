#!/usr/bin/env node
/**
 * `npm run build` (and the build step of `npm start`): the web app (Vite) and the server bundle
 * (scripts/build-server.mjs), reported as one line (issue 45 item 5): how long it took, or what failed.
 * Vite's own listing of every chunk it wrote (about 90 lines) is not printed; its warnings and errors are.
 *
 *   node scripts/build.mjs            one line: "Built the web app and the server in 14.2 s"
 *   node scripts/build.mjs --verbose  Vite's full listing as well
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from './build-server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');

const started = process.hrtime.bigint();
const seconds = () => (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);

try {
  const { build } = await import('vite');
  // Warnings (a chunk too large, a bad import) still reach the terminal: only the listing is left out.
  await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: verbose ? 'info' : 'warn' });
  await bundleServer();
  console.log(`Built the web app and the server in ${seconds()} s`);
} catch (error) {
  // The one line, then what the bundler said (file, line, what is wrong): Vite's build() throws it unprinted.
  console.error(`Build failed after ${seconds()} s:`);
  console.error(error instanceof Error ? error.message.trim() : String(error));
  process.exit(1);
}
