import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, expect, test } from './fixtures';

/**
 * What reaches the browser: the built JavaScript carries no secret and no server code. Checked here, after
 * scripts/e2e.mjs has built the client the server serves, both on disk (every chunk, the lazy ones included)
 * and as the browser receives the first screen.
 */
const NEEDLES = [
  ADMIN.password,
  'TOKEN_ENCRYPTION_KEY',
  'XERO_CLIENT_SECRET',
  'DATABASE_URL',
  'argon2',
  'drizzle-orm',
  'access_token_enc',
];

test('the built JavaScript ships no secret and no server code', async ({ page }) => {
  const client = path.resolve('dist/client');
  const chunks = fs
    .readdirSync(client, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.js'));
  expect(chunks.length).toBeGreaterThan(1);
  for (const chunk of chunks) {
    const code = fs.readFileSync(path.join(client, chunk), 'utf8');
    for (const needle of NEEDLES) expect(code.includes(needle), `${needle} in ${chunk}`).toBe(false);
  }

  const served: string[] = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') served.push(res.url());
  });
  await page.goto('/auth');
  await expect(page.getByRole('button', { name: /sign in/i }).first()).toBeVisible();
  expect(served.length).toBeGreaterThan(0);
  for (const url of served) {
    const code = await (await page.request.get(url)).text();
    for (const needle of NEEDLES) expect(code.includes(needle), `${needle} in ${url}`).toBe(false);
  }
});
