import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

const src = fileURLToPath(new URL('./src', import.meta.url));

export default defineConfig({
  resolve: { alias: { '@': src } },
  test: {
    testTimeout: 30_000,
    // CI shares two cores between lanes (.ci/run); a test that fails once there is run once more, as Playwright
    // does in CI. A real regression fails both times; locally nothing is retried.
    retry: process.env.CI === 'true' ? 1 : 0,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['src/{server,shared,sandbox}/**/*.test.ts', 'bench/**/*.test.ts'],
          setupFiles: ['./vitest.setup.ts'],
          pool: 'forks',
          // A worker keeps the modules it has loaded from one test file to the next, instead of loading the
          // server, Fastify, Drizzle, zod and PGlite again for each of about a hundred files: the project's CPU
          // time halves (docs/decisions/033). Every test builds its own app, database and sandbox, so nothing a
          // test asserts lives in a module; VITEST_ISOLATE=true gives each file fresh modules again.
          isolate: process.env.VITEST_ISOLATE === 'true',
        },
      },
      {
        extends: true,
        plugins: [react()],
        test: {
          name: 'client',
          environment: 'jsdom',
          // A page test drives a whole screen through a dozen user actions in jsdom: 20-30 s on two cores at a load
          // of 15 (issue 46, docs/testing.md), against 2-5 s on a quiet machine. The limit is for a test that hangs,
          // not a measure of speed, so it leaves room for a busy CI machine.
          testTimeout: 90_000,
          include: ['src/client/**/*.test.{ts,tsx}'],
          // setup-storage first: modules imported by setup.ts (MSW's cookie store) read localStorage on import.
          setupFiles: [
            './vitest.setup.ts',
            './src/client/testing/setup-storage.ts',
            './src/client/testing/setup.ts',
          ],
        },
      },
    ],
  },
});
