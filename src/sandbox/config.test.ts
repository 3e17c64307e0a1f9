import { describe, expect, it } from 'vitest';
import { loadSandboxConfig } from './config';

describe('loadSandboxConfig', () => {
  it('gives the sandbox defaults on an empty environment', () => {
    const config = loadSandboxConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 5055, scale: 1, seed: 1 });
    expect(config.redirectUris).toEqual([
      'http://localhost:5000/api/xero/callback',
      'http://localhost:5000/api/auth/xero/callback',
    ]);
  });

  it.each([
    [
      { SANDBOX_PORT: 'abc' },
      'Invalid configuration: SANDBOX_PORT must be a whole number from 0 to 65535 (got "abc")',
    ],
    [
      { SANDBOX_PORT: '70000' },
      'Invalid configuration: SANDBOX_PORT must be a whole number from 0 to 65535 (got "70000")',
    ],
    [
      { SANDBOX_SCALE: '0' },
      'Invalid configuration: SANDBOX_SCALE must be a positive whole number (got "0")',
    ],
  ])('names the variable that is wrong: %o', (env, text) => {
    expect(() => loadSandboxConfig(env)).toThrow(text);
  });
});
