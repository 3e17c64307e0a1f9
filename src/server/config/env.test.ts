import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './env';

describe('loadConfig', () => {
  it('gives demo-mode defaults on an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(5000);
    expect(config.host).toBe('localhost');
    expect(config.appUrl).toBe('http://localhost:5000');
    expect(config.xeroMode).toBe('demo');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/data$/);
    expect(config.registrationsPerHour).toBe(20);
    expect(loadConfig({ REGISTRATIONS_PER_HOUR: '500' }).registrationsPerHour).toBe(500);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', 'PORT must be a whole number from 0 to 65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT', 'PORT must be a whole number from 0 to 65535'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', 'DATABASE_URL must start with postgres://'],
    [
      { XERO_CLIENT_ID: 'abc' },
      'XERO_CLIENT_SECRET',
      'Invalid configuration: XERO_CLIENT_SECRET is not set, but XERO_CLIENT_ID is: set both for live Xero, or neither for demo mode',
    ],
    [{ XERO_CLIENT_SECRET: 'abc' }, 'XERO_CLIENT_ID', 'XERO_CLIENT_ID is not set, but XERO_CLIENT_SECRET is'],
    [
      { XERO_CLIENT_ID: 'a', XERO_CLIENT_SECRET: 'b' },
      'TOKEN_ENCRYPTION_KEY',
      'TOKEN_ENCRYPTION_KEY is required with live Xero keys',
    ],
    [{ TOKEN_ENCRYPTION_KEY: 'short' }, 'TOKEN_ENCRYPTION_KEY', 'must be 32 bytes'],
    [
      { ADMIN_USERNAME: 'boss' },
      'ADMIN_PASSWORD',
      'ADMIN_PASSWORD is not set, but ADMIN_USERNAME is: set both to create the first administrator, or neither',
    ],
    [{ REQUIRE_MFA_FOR_ADMINS: 'maybe' }, 'REQUIRE_MFA_FOR_ADMINS', 'REQUIRE_MFA_FOR_ADMINS'],
    [{ REGISTRATIONS_PER_HOUR: '0' }, 'REGISTRATIONS_PER_HOUR', 'must be a positive whole number'],
  ])('names the variable that is wrong: %o', (env, variable, text) => {
    let caught: unknown;
    try {
      loadConfig(env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(variable);
    expect((caught as ConfigError).message).toContain(text);
  });

  it('never echoes a secret value back', () => {
    try {
      loadConfig({ TOKEN_ENCRYPTION_KEY: 'my-secret-value' });
    } catch (error) {
      expect((error as Error).message).not.toContain('my-secret-value');
    }
  });

  it('switches to live mode with Xero keys and an encryption key', () => {
    const config = loadConfig({
      XERO_CLIENT_ID: 'id',
      XERO_CLIENT_SECRET: 'secret',
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      APP_URL: 'https://app.example.com/',
    });
    expect(config.xeroMode).toBe('live');
    expect(config.appUrl).toBe('https://app.example.com');
    expect(config.session.secureCookie).toBe(true);
  });
});
