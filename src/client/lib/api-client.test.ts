import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { api, ApiError, apiRequest, getErrorMessage, getMessage, USER_MESSAGES } from './api-client';
import { isConnectionTroubleVisible, recordConnectionFailure } from './connection-trouble';
import { onSessionEnded } from './session';
import { SESSION_KEYS } from './storage';

type FetchArgs = [string, RequestInit];

function respond(body: string, init: ResponseInit = {}): Response {
  return new Response(body, init);
}

let fetchMock: ReturnType<typeof vi.fn<(...args: FetchArgs) => Promise<Response>>>;

beforeEach(() => {
  fetchMock = vi.fn<(...args: FetchArgs) => Promise<Response>>();
  vi.stubGlobal('fetch', fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

function lastInit(): RequestInit {
  const call = fetchMock.mock.calls.at(-1);
  if (!call) throw new Error('fetch was not called');
  return call[1];
}

describe('request shape', () => {
  it('GET by default, always with credentials, no body and no content type', async () => {
    fetchMock.mockResolvedValue(respond('{"ok":true}'));
    await expect(api.get('/api/xero/connection')).resolves.toEqual({ ok: true });
    const init = lastInit();
    expect(init.method).toBe('GET');
    expect(init.credentials).toBe('include');
    expect(init.body).toBeUndefined();
    expect((init.headers as Record<string, string>)['Content-Type']).toBeUndefined();
    expect(init.cache).toBeUndefined();
  });

  it('sends a JSON body only when a payload exists', async () => {
    fetchMock.mockResolvedValue(respond('{}'));
    await api.post('/api/login', { username: 'sam', password: 'secret-password' });
    expect(lastInit().body).toBe('{"username":"sam","password":"secret-password"}');
    expect((lastInit().headers as Record<string, string>)['Content-Type']).toBe('application/json');

    await api.post('/api/logout');
    expect(lastInit().method).toBe('POST');
    expect(lastInit().credentials).toBe('include');
    expect(lastInit().body).toBeUndefined();
    expect((lastInit().headers as Record<string, string>)['Content-Type']).toBeUndefined();
  });

  it('bypasses the cache for paths containing /auth/', async () => {
    fetchMock.mockResolvedValue(respond('{}'));
    await api.get('/api/auth/current-user');
    expect(lastInit().cache).toBe('no-cache');
  });

  it('resolves paths against the page origin', async () => {
    fetchMock.mockResolvedValue(respond('{}'));
    await api.get('/api/config');
    expect(fetchMock.mock.calls[0]?.[0]).toBe(`${window.location.origin}/api/config`);
  });
});

describe('answers', () => {
  it('an empty body returns an empty object', async () => {
    fetchMock.mockResolvedValue(respond('', { status: 200 }));
    await expect(api.post('/api/logout')).resolves.toEqual({});
  });

  it('unparseable JSON fails with "Failed to parse response from {path}"', async () => {
    fetchMock.mockResolvedValue(respond('<html>oops</html>', { status: 200 }));
    await expect(api.get('/api/xero/connection')).rejects.toThrow(
      'Failed to parse response from /api/xero/connection',
    );
  });
});

describe('lazily loaded schemas (first screen without zod, bench §3)', () => {
  const userSchema = z.object({ id: z.number(), username: z.string() });

  it('starts loading the schema before the request and parses the answer with it', async () => {
    const order: string[] = [];
    fetchMock.mockImplementation(async () => {
      order.push('fetch');
      return respond('{"id":1,"username":"sam","extra":true}');
    });
    const load = vi.fn(async () => {
      order.push('load');
      return userSchema;
    });
    await expect(api.get('/api/auth/current-user', { schema: load })).resolves.toEqual({
      id: 1,
      username: 'sam',
    });
    expect(order).toEqual(['load', 'fetch']);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('accepts a loader that hands the schema over at once', async () => {
    fetchMock.mockResolvedValue(respond('{"id":"one"}'));
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    await expect(api.get('/api/auth/current-user', { schema: () => userSchema })).rejects.toThrow(
      'Failed to parse response from /api/auth/current-user',
    );
  });

  it('a failed request reports its own error, not the schema load, and leaves no unhandled rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      fetchMock.mockResolvedValue(respond('{"message":"Not authenticated"}', { status: 401 }));
      const load = () => Promise.reject(new Error('chunk failed'));
      await expect(api.get('/api/auth/current-user', { schema: load })).rejects.toThrow('Not authenticated');
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('a schema that fails to load fails the call', async () => {
    fetchMock.mockResolvedValue(respond('{"id":1,"username":"sam"}'));
    await expect(
      api.get('/api/auth/current-user', { schema: () => Promise.reject(new Error('chunk failed')) }),
    ).rejects.toThrow('chunk failed');
  });
});

describe('error messages (spec 000 §8)', () => {
  it.each([
    ['body.message first', '{"message":"Bad thing","error":"detail"}', 400, 'Bad Request', 'Bad thing'],
    ['then body.error', '{"error":"Only error"}', 400, 'Bad Request', 'Only error'],
    ['then the raw text', 'plain text failure', 400, 'Bad Request', 'plain text failure'],
    ['then the status text', '', 400, 'Bad Request', 'Bad Request'],
    ['then "HTTP Error {status}"', '', 418, '', 'HTTP Error 418'],
    [
      '422 appends the error after a colon',
      '{"message":"Validation failed","error":"amount too high"}',
      422,
      '',
      'Validation failed: amount too high',
    ],
    ['422 with only a message', '{"message":"Validation failed"}', 422, '', 'Validation failed'],
  ])('%s', async (_name, body, status, statusText, expected) => {
    fetchMock.mockResolvedValue(respond(body, { status, statusText }));
    const error = await api.get('/api/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toBe(expected);
    expect((error as ApiError).status).toBe(status);
  });

  it('carries the parsed body', async () => {
    fetchMock.mockResolvedValue(respond('{"message":"Nope","code":7}', { status: 403 }));
    const error = (await api.get('/api/x').catch((e: unknown) => e)) as ApiError;
    expect(error.body).toEqual({ message: 'Nope', code: 7 });
    expect(error.isValidation).toBe(false);
  });

  it('getErrorMessage is pure', () => {
    expect(getErrorMessage(500, 'Internal Server Error', {}, '')).toBe('Internal Server Error');
  });
});

describe('401 counting (spec 000 §4 Session)', () => {
  it('beyond 5 the sign-in progress flag and timestamp are cleared and the session marked expired', async () => {
    sessionStorage.setItem(SESSION_KEYS.authInProgress, 'true');
    sessionStorage.setItem(SESSION_KEYS.authTimestamp, String(Date.now()));
    fetchMock.mockImplementation(async () => respond('{"message":"Not authenticated"}', { status: 401 }));
    for (let i = 0; i < 5; i += 1) await api.get('/api/x').catch(() => undefined);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBe('true');
    expect(sessionStorage.getItem(SESSION_KEYS.unauthorizedCount)).toBe('5');
    await api.get('/api/x').catch(() => undefined);
    expect(sessionStorage.getItem(SESSION_KEYS.authInProgress)).toBeNull();
    expect(sessionStorage.getItem(SESSION_KEYS.authTimestamp)).toBeNull();
    expect(sessionStorage.getItem(SESSION_KEYS.lastAuthState)).toBe('session_expired');
  });
});

describe('return null on 401', () => {
  it('yields null on 401 and other errors still throw', async () => {
    fetchMock.mockResolvedValueOnce(respond('{"message":"Not authenticated"}', { status: 401 }));
    await expect(api.getOrNull('/api/user')).resolves.toBeNull();
  });

  it('a 401 less than 5 s after the previous attempt yields null after 2 s', async () => {
    vi.useFakeTimers();
    fetchMock.mockImplementation(async () => respond('{"message":"x"}', { status: 401 }));
    await expect(api.getOrNull('/api/user')).resolves.toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(1);

    vi.advanceTimersByTime(1000);
    let settled = false;
    const second = api.getOrNull('/api/user').then((value) => {
      settled = true;
      return value;
    });
    await vi.advanceTimersByTimeAsync(1999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(second).resolves.toBeNull();

    // More than 5 s later: no delay.
    vi.advanceTimersByTime(6000);
    await expect(api.getOrNull('/api/user')).resolves.toBeNull();
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('a successful answer is never delayed', async () => {
    vi.useFakeTimers();
    fetchMock.mockImplementation(async () => respond('{"id":1}'));
    await api.getOrNull('/api/user');
    await expect(api.getOrNull('/api/user')).resolves.toEqual({ id: 1 });
  });
});

describe('network errors', () => {
  it('retries twice, after 1 s and then 2 s', async () => {
    vi.useFakeTimers();
    fetchMock
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockRejectedValueOnce(new TypeError('Failed to fetch'))
      .mockResolvedValueOnce(respond('{"ok":true}'));
    const pending = api.get('/api/xero/connection');
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    await expect(pending).resolves.toEqual({ ok: true });
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('gives up after the second retry', async () => {
    vi.useFakeTimers();
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    const pending = apiRequest('/api/x').catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3000);
    expect(await pending).toBeInstanceOf(TypeError);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it('does not retry an aborted request', async () => {
    fetchMock.mockRejectedValue(new DOMException('aborted', 'AbortError'));
    await expect(api.get('/api/x')).rejects.toThrow('aborted');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe('connection-trouble banner counter', () => {
  it('shows after more than 5 server errors', async () => {
    fetchMock.mockImplementation(async () => respond('{"message":"boom"}', { status: 503 }));
    for (let i = 0; i < 5; i += 1) await api.get('/api/x').catch(() => undefined);
    expect(isConnectionTroubleVisible()).toBe(false);
    await api.get('/api/x').catch(() => undefined);
    expect(isConnectionTroubleVisible()).toBe(true);
  });

  it('counts network errors once per failed call, not per retry', async () => {
    vi.useFakeTimers();
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    for (let i = 0; i < 5; i += 1) {
      const pending = api.get('/api/x').catch(() => undefined);
      await vi.advanceTimersByTimeAsync(3000);
      await pending;
    }
    expect(isConnectionTroubleVisible()).toBe(false);
  });

  it('forgets errors older than 30 minutes', () => {
    const start = Date.now();
    for (let i = 0; i < 5; i += 1) recordConnectionFailure(start + i);
    recordConnectionFailure(start + 31 * 60 * 1000);
    expect(isConnectionTroubleVisible()).toBe(false);
  });

  it('4xx answers do not count', async () => {
    fetchMock.mockImplementation(async () => respond('{"message":"no"}', { status: 404 }));
    for (let i = 0; i < 8; i += 1) await api.get('/api/x').catch(() => undefined);
    expect(isConnectionTroubleVisible()).toBe(false);
  });
});

describe('messages users read (issue 17 item 12)', () => {
  it('never shows the browser or server jargon; keeps what the server says in words', () => {
    expect(getMessage(new TypeError('Failed to fetch'), 'x')).toBe(USER_MESSAGES.offline);
    expect(getMessage(new ApiError('Internal Server Error', 500, {}, '/api/x'), 'x')).toBe(
      USER_MESSAGES.serverFault,
    );
    expect(getMessage(new ApiError('Internal server error', 500, { code: 'INTERNAL' }, '/api/x'), 'x')).toBe(
      USER_MESSAGES.serverFault,
    );
    expect(getMessage(new ApiError('HTTP Error 502', 502, {}, '/api/x'), 'x')).toBe(
      USER_MESSAGES.serverFault,
    );
    expect(getMessage(new Error('Failed to parse response from /api/x'), 'x')).toBe(USER_MESSAGES.unreadable);
    const refused = new ApiError('Token refresh failed', 401, { code: 'XERO_AUTH_EXPIRED' }, '/api/x');
    expect(getMessage(refused, 'x')).toMatch(/Reconnect to Xero/);
    const switched = new Error('Failed to set active organization: 500 Internal server error', {
      cause: new ApiError('Internal server error', 500, {}, '/api/xero/set-active-organization'),
    });
    expect(getMessage(switched, 'x')).toBe(USER_MESSAGES.serverFault);
    expect(getMessage(new ApiError('Invoice is already fully paid', 422, {}, '/api/x'), 'x')).toBe(
      'Invoice is already fully paid',
    );
  });
});

describe('a session renewed while other requests are on their way (e2e load loop, stop 53)', () => {
  const NOT_AUTHENTICATED = '{"code":"UNAUTHENTICATED","message":"Not authenticated"}';

  it('sends a request refused during "Turn on two-step sign-in" once more after it answers, and the page never hears of the 401', async () => {
    let answerEnable: (response: Response) => void = () => undefined;
    const ended = vi.fn();
    const stop = onSessionEnded(ended);
    let flagsCalls = 0;
    fetchMock.mockImplementation(async (url) => {
      if (url.endsWith('/api/auth/mfa/enable'))
        return new Promise<Response>((resolve) => (answerEnable = resolve));
      flagsCalls += 1;
      // The old session ended as the server turned two-step sign-in on; the new cookie comes with its answer.
      return flagsCalls === 1
        ? respond(NOT_AUTHENTICATED, { status: 401 })
        : respond('{"featureCisBills":true}');
    });
    const enable = api.post('/api/auth/mfa/enable', { code: '123456' });
    const flags = api.get('/api/feature-flags');
    await vi.waitFor(() => expect(flagsCalls).toBe(1));
    // Still waiting for the renewal: not sent again yet.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(flagsCalls).toBe(1);
    answerEnable(respond('{"recoveryCodes":[]}'));
    await expect(enable).resolves.toEqual({ recoveryCodes: [] });
    await expect(flags).resolves.toEqual({ featureCisBills: true });
    expect(flagsCalls).toBe(2);
    expect(ended).not.toHaveBeenCalled();
    stop();
  });

  it('a 401 with no renewal about is answered as it is, and sent once', async () => {
    const ended = vi.fn();
    const stop = onSessionEnded(ended);
    fetchMock.mockImplementation(async () => respond(NOT_AUTHENTICATED, { status: 401 }));
    await expect(api.get('/api/feature-flags')).rejects.toMatchObject({ status: 401 });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(ended).toHaveBeenCalledTimes(1);
    stop();
  });
});
