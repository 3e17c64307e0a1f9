import { Writable } from 'node:stream';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { levels, type Bindings, type ChildLoggerOptions, type LogFn, type LoggerOptions } from 'pino';

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
  readonly #requestsAtDebug: boolean;

  /**
   * `requestsAtDebug` (demo mode): Fastify's line for each request and its answer is debug, not info, as
   * `requestsAtDebug` makes it for pino. Said here, at the source, a request that logs nothing else at a level
   * that is on never makes its logger (`RequestLogger`).
   */
  constructor(options: { requestsAtDebug?: boolean } = {}) {
    super();
    this.#requestsAtDebug = options.requestsAtDebug === true;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>) {
    if (!this.#requestsAtDebug) {
      super.incomingRequest(request, reply, metadata);
      return;
    }
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ) {
    if (!this.#requestsAtDebug || error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

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

/** Pino's level methods and numbers (trace 10 … fatal 60). */
const LEVEL_METHODS = [
  ['fatal', 60],
  ['error', 50],
  ['warn', 40],
  ['info', 30],
  ['debug', 20],
  ['trace', 10],
] as const;

/**
 * Each request's logger, made when the request first writes a line at a level that is on.
 *
 * Fastify gives every request a child of the app's logger, its request id bound, before any hook runs. With the
 * redaction paths above, pino (9.14, @pinojs/redact) runs that id through the wildcard redactor, which parses
 * every path again on each call: about 7 µs and 9 KB of garbage a request, a third of everything the app
 * allocated answering a warm Today page (issue 47; measured with V8's sampling heap profiler, objects freed by
 * GC included). Most requests write nothing at the level that is on, so they never pay for it; a request that
 * does gets the very child Fastify would have made, bindings and redaction included.
 */
export class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | null = null;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  /** Whether a line at `level` would be written (pino's numbers: trace 10 … fatal 60; silent writes nothing). */
  #on(level: number): boolean {
    if (this.#child) return true;
    const threshold = levels.values[this.level];
    return threshold !== undefined && level >= threshold;
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  // Pino's level methods, on the prototype (static block below): a request's logger allocates nothing more.
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  static {
    // As a class's own methods are: writable and configurable (a test may spy on `request.log.warn`).
    const method = (value: (...args: unknown[]) => void) => ({ value, writable: true, configurable: true });
    for (const [name, level] of LEVEL_METHODS) {
      Object.defineProperty(
        this.prototype,
        name,
        method(function (this: RequestLogger, ...args: unknown[]) {
          if (!this.#on(level)) return;
          (this.#logger()[name] as (...a: unknown[]) => void)(...args);
        }),
      );
    }
    Object.defineProperty(
      this.prototype,
      'silent',
      method(() => undefined),
    );
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger is a `RequestLogger`. */
export function createRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new RequestLogger(logger, bindings, options);
}
