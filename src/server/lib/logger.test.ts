import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLoggerOptions, createPrettyStream, formatLogLine, requestsAtDebug } from './logger';

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
