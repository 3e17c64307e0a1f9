#!/usr/bin/env node
// `npm run test:stress`: the reliability suites at full size (500 queued writes, a 20 s load at 200 requests
// a second with Xero failing), printing the figures the README quotes.
import { spawnSync } from 'node:child_process';

const result = spawnSync('npx', ['vitest', 'run', '--project', 'node', 'src/server/security'], {
  stdio: 'inherit',
  env: { ...process.env, STRESS_FULL: 'true' },
});
process.exit(result.status ?? 1);
