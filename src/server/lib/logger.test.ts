import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  createLoggerOptions,
  createPrettyStream,
  createRequestLogger,
  formatLogLine,
  LedgerlinkLogController,
  requestsAtDebug,
  RESPONSE_LEFT_MESSAGE,
} from './logger';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

describe('demo mode logs', () => {
  it('logs each request at debug: hidden at info, shown with LOG_LEVEL=debug', () => {
    for (const [level, expected] of [
      ['info', 0],
      ['debug', 2],
    ] as const) {
      const { lines, stream } = capture();
      const log = pino({ ...createLoggerOptions(level), hooks: requestsAtDebug }, stream).child({
        reqId: 'req-1',
      });
      log.info({ req: { method: 'GET', url: '/api/user' } }, 'incoming request');
      log.info({ res: { statusCode: 200 }, responseTime: 3.2 }, 'request completed');
      expect(lines.filter((l) => l.includes('request'))).toHaveLength(expected);
      if (expected) expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ level: 20 });
    }
  });

  it('keeps everything else at its level', () => {
    const { lines, stream } = capture();
    const log = pino({ ...createLoggerOptions('info'), hooks: requestsAtDebug }, stream);
    log.info('Demo ready');
    log.warn({ err: new Error('boom') }, 'reconcile failed');
    expect(lines.map((l) => JSON.parse(l) as { msg: string; level: number })).toMatchObject([
      { msg: 'Demo ready', level: 30 },
      { msg: 'reconcile failed', level: 40 },
    ]);
  });
});

describe('the terminal formatter', () => {
  it('turns a JSON request line into one readable line', () => {
    const line = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 0, 1, 9, 5, 7),
      pid: 1,
      hostname: 'h',
      reqId: 'req-1',
      req: { method: 'GET', path: '/api/user' },
      res: { statusCode: 200 },
      responseTime: 3.4,
      msg: 'request completed',
    });
    const text = formatLogLine(line, false);
    expect(text).toMatch(/^\d\d:\d\d:\d\d {2}INFO {3}request completed {2}GET \/api\/user {2}200 {2}3 ms$/);
  });

  it('shows other fields as key=value and an error message under the line', () => {
    const text = formatLogLine(
      JSON.stringify({
        level: 40,
        time: 0,
        msg: 'reconcile failed',
        tenant: 'Demo Shop Ltd',
        err: { message: 'boom', stack: 'Error: boom\n at x' },
      }),
      false,
    );
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/WARN {3}reconcile failed {2}tenant=Demo Shop Ltd$/),
      '    boom',
    ]);
  });

  it('leaves a line that is not JSON as it is', () => {
    expect(formatLogLine('plain text', false)).toBe('plain text');
  });

  it('never prints what pino redacted', () => {
    const out = capture();
    const log = pino(createLoggerOptions('info'), createPrettyStream(out.stream));
    log.info({ password: 'canary-password-123', user: { accessToken: 'canary-token' } }, 'signed in');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toContain('signed in');
    expect(out.lines.join('\n')).not.toMatch(/canary/);
  });
});

describe('a response the browser stops reading (issue 33 item 11)', () => {
  it('is a debug line that says what happened, with the path, never "INFO stream closed prematurely"', async () => {
    const { lines, stream } = capture();
    let logged: () => void = () => undefined;
    const said = new Promise<void>((resolve) => (logged = resolve));
    const watched = new Writable({
      write(chunk: Buffer, encoding, done) {
        stream.write(chunk, encoding, () => {
          if (chunk.toString().includes(RESPONSE_LEFT_MESSAGE)) logged();
          done();
        });
      },
    });
    const app = Fastify({
      logger: { ...createLoggerOptions('debug'), stream: watched },
      logController: new LedgerlinkLogController(),
    });
    let started: () => void = () => undefined;
    const streaming = new Promise<void>((resolve) => (started = resolve));
    app.get('/api/events', (_request, reply) => {
      const body = new PassThrough();
      body.write('data: hello\n\n');
      started();
      return reply.type('text/event-stream').send(body);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const request = http.get({ host: '127.0.0.1', port, path: '/api/events?org=1' });
      request.on('response', (response) => response.once('data', () => request.destroy()));
      request.on('error', () => undefined);
      await streaming;
      await said;
    } finally {
      await app.close();
    }
    const entries = lines.map(
      (l) => JSON.parse(l) as { level: number; msg: string; req?: { path?: string } },
    );
    const left = entries.find((e) => e.msg === RESPONSE_LEFT_MESSAGE);
    expect(left).toMatchObject({ level: 20, req: { path: '/api/events' } });
    expect(entries.filter((e) => /closed prematurely/.test(e.msg))).toEqual([]);
    expect(entries.filter((e) => e.level >= 30 && e.msg === RESPONSE_LEFT_MESSAGE)).toEqual([]);
  });
});

describe("each request's logger (issue 47)", () => {
  /** An app as app.ts builds it: our pino options, our log controller, and requests' loggers made on demand. */
  function appLogging(level: string, requestsAtDebug: boolean) {
    const { lines, stream } = capture();
    let made = 0;
    const app = Fastify({
      logger: { ...createLoggerOptions(level), stream, onChild: () => void made++ },
      logController: new LedgerlinkLogController({ requestsAtDebug }),
      childLoggerFactory: createRequestLogger,
      genReqId: () => 'req-7',
    });
    app.get('/api/quiet', async () => ({ ok: true }));
    app.get('/api/loud', async (request) => {
      request.log.warn(
        { user: { password: 'hunter2' }, accessToken: 'xero-token', organizationId: 3 },
        'Xero refused the token',
      );
      return { ok: true };
    });
    const entries = () =>
      lines.map(
        (l) => JSON.parse(l) as { level: number; msg: string; reqId?: string } & Record<string, unknown>,
      );
    return { app, entries, made: () => made };
  }

  it('is never made for a request that writes nothing kept (demo mode at info, as npm start runs)', async () => {
    const { app, entries, made } = appLogging('info', true);
    for (let i = 0; i < 20; i++) expect((await app.inject({ url: '/api/quiet' })).statusCode).toBe(200);
    expect(made()).toBe(0);
    expect(entries()).toEqual([]);
    await app.close();
  });

  it("writes a request's own line with its request id and its secrets redacted", async () => {
    const { app, entries, made } = appLogging('info', true);
    await app.inject({ url: '/api/loud' });
    expect(made()).toBe(1);
    expect(entries()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'Xero refused the token',
        reqId: 'req-7',
        organizationId: 3,
        accessToken: '[redacted]',
        user: { password: '[redacted]' },
      }),
    ]);
    expect(JSON.stringify(entries())).not.toMatch(/hunter2|xero-token/);
    await app.close();
  });

  it('still logs every request with its id where request lines are kept (live mode at info, demo at debug)', async () => {
    for (const [level, requestsAtDebug, expected] of [
      ['info', false, 30],
      ['debug', true, 20],
    ] as const) {
      const { app, entries } = appLogging(level, requestsAtDebug);
      await app.inject({ url: '/api/quiet' });
      expect(entries().map((e) => [e.msg, e.level, e.reqId])).toEqual([
        ['incoming request', expected, 'req-7'],
        ['request completed', expected, 'req-7'],
      ]);
      await app.close();
    }
  });

  it('writes nothing at all when the level is silent', async () => {
    const { app, entries, made } = appLogging('silent', false);
    await app.inject({ url: '/api/loud' });
    expect([made(), entries().length]).toEqual([0, 0]);
    await app.close();
  });
});
