import { Writable } from 'node:stream';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { LoggerOptions } from 'pino';

/**
 * Paths pino blanks in every log line: credentials, tokens and cookies never reach the logs.
 * (Request bodies are not logged at all; these cover objects we log on purpose.)
 */
export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-xero-signature"]',
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
  '*.webhookKey',
  '*.client_secret',
  '*.code_verifier',
  '*.codeVerifier',
  '*.token',
  '*.secret',
  '*.totp',
  '*.code',
  // The contractor's Government Gateway credentials (issue 43) and the mail server's URL, which holds a password.
  '*.gatewayUserId',
  '*.senderId',
  '*.smtpUrl',
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

/** What the terminal says when a browser stops reading a response (issue 33 item 11). */
export const RESPONSE_LEFT_MESSAGE =
  'The browser stopped reading this response before its end (a page closed, reloaded or went offline)';

/**
 * Fastify logs a response the browser stopped reading as `INFO stream closed prematurely 200`, which tells a
 * person nothing (issue 33 item 11): live-update streams end that way each time a page closes. It is routine,
 * so it goes to debug with a sentence and the request's method and path; other stream errors stay warnings.
 */
export class LedgerlinkLogController extends LogController {
  override streamError(
    error: Error,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      super.streamError(error, request, reply, metadata);
      return;
    }
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request, res: reply }, RESPONSE_LEFT_MESSAGE);
  }
}

/** Fastify's per-request lines and its "listening" lines: in demo mode they are debug, not info. */
const ROUTINE_MESSAGES = new Set([
  'incoming request',
  'request completed',
  'request errored',
  'Server listening at',
]);

function isRoutine(args: unknown[]): boolean {
  const message = typeof args[0] === 'string' ? args[0] : args[1];
  return (
    typeof message === 'string' &&
    (ROUTINE_MESSAGES.has(message) || message.startsWith('Server listening at'))
  );
}

/**
 * Logs each request at debug instead of info (demo mode: the terminal keeps the ready line, the demo password
 * and what went wrong; LOG_LEVEL=debug shows every request again).
 */
export const requestsAtDebug: NonNullable<LoggerOptions['hooks']> = {
  logMethod(args, method, level) {
    if (level === 30 && isRoutine(args)) {
      (this.debug as (...a: unknown[]) => void)(...args);
      return;
    }
    method.apply(this, args);
  },
};

const LEVELS: Record<number, { name: string; colour: string }> = {
  10: { name: 'TRACE', colour: '90' },
  20: { name: 'DEBUG', colour: '90' },
  30: { name: 'INFO ', colour: '32' },
  40: { name: 'WARN ', colour: '33' },
  50: { name: 'ERROR', colour: '31' },
  60: { name: 'FATAL', colour: '35' },
};
const OMIT = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'reqId',
  'req',
  'res',
  'responseTime',
  'err',
]);

/** One JSON log line as a person reads it: `12:04:05 INFO  message  GET /path 200 3 ms  key=value`. */
export function formatLogLine(line: string, colour: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level), colour: '0' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toTimeString().slice(0, 8) : '';
  const parts = [paint('90', time), paint(level.colour, level.name), String(entry.msg ?? '')];
  const req = entry.req as { method?: string; path?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  if (req?.method) parts.push(`${req.method} ${req.path ?? ''}`);
  if (res?.statusCode) parts.push(String(res.statusCode));
  if (typeof entry.responseTime === 'number') parts.push(`${entry.responseTime.toFixed(0)} ms`);
  const extra = Object.entries(entry)
    .filter(([key]) => !OMIT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  if (extra.length > 0) parts.push(paint('90', extra.join(' ')));
  let text = parts.filter(Boolean).join('  ');
  const err = entry.err as { message?: string; stack?: string } | undefined;
  if (err)
    text += `\n    ${Number(entry.level) >= 50 && err.stack ? err.stack.replace(/\n/g, '\n    ') : (err.message ?? '')}`;
  return text;
}

/** A stream for pino that writes `formatLogLine` output (a terminal); not a TTY keeps pino's JSON. */
export function createPrettyStream(out: NodeJS.WritableStream & { hasColors?: () => boolean }): Writable {
  const colour = typeof out.hasColors === 'function' ? out.hasColors() : false;
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line) out.write(`${formatLogLine(line, colour)}\n`);
      done();
    },
  });
}
