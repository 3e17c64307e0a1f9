import type { LoggerOptions } from 'pino';

/**
 * Paths pino blanks in every log line: credentials, tokens and cookies never reach the logs.
 * (Request bodies are not logged at all; these cover objects we log on purpose.)
 */
export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  '*.password',
  '*.passwordHash',
  '*.currentPassword',
  '*.newPassword',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.idToken',
  '*.clientSecret',
  '*.client_secret',
  '*.code_verifier',
  '*.codeVerifier',
  '*.token',
  '*.secret',
  '*.totp',
  '*.code',
  'password',
  'accessToken',
  'refreshToken',
  'token',
  'secret',
];

export function createLoggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        // Query strings can carry OAuth codes and states: log the path only.
        return { method: request.method, path: request.url.split('?')[0], ip: request.ip, id: request.id };
      },
    },
  };
}
