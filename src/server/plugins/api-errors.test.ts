import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode } from '../../shared/errors-rules';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../test/app';

/**
 * The API description documents the errors (issue 16): a generated client or a fuzzer reading /api/docs/json
 * must learn every 4xx a route can answer, each in the { message, code } shape.
 */
describe('the API description documents every error answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lists 400, 401, 403, 404 and 429 for every operation (409, 413 and 422 for writes), with { message, code }', async () => {
    const res = await t.app.inject({ url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as {
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              {
                content?: Record<
                  string,
                  { schema?: { properties?: Record<string, unknown>; required?: string[] } }
                >;
              }
            >;
          }
        >
      >;
    };
    const missing: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/') || path.startsWith('/api/docs') || path === '/api/config') continue;
      for (const [method, operation] of Object.entries(item)) {
        operations += 1;
        const wanted = [
          '400',
          '401',
          '403',
          '404',
          '429',
          ...(method === 'get' ? [] : ['409', '413', '422']),
        ];
        for (const status of wanted) {
          const schema = operation.responses[status]?.content?.['application/json']?.schema;
          if (!schema) missing.push(`${method.toUpperCase()} ${path} ${status}`);
          else if (!schema.properties?.message || !schema.required?.includes('message'))
            missing.push(`${method.toUpperCase()} ${path} ${status} without message`);
        }
      }
    }
    expect(operations).toBeGreaterThan(60);
    expect(missing.slice(0, 20)).toEqual([]);
  });

  it('still answers an error in that shape: a documented 400 and 401 pass the response schema', async () => {
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { origin: TEST_ORIGIN },
      payload: { username: '', password: '' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ message: 'Username is required', code: 'VALIDATION_ERROR' });
    const signedOut = await t.app.inject({ url: '/api/admin/users' });
    expect(signedOut.statusCode).toBe(401);
    expect(signedOut.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('gives every answer the framework refuses a code of the one ErrorCode list, not a Fastify code', async () => {
    const post = (headers: Record<string, string>, payload: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/login',
        headers: { origin: TEST_ORIGIN, ...headers },
        payload,
      });
    const answers = await Promise.all([
      post({ 'content-type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(1_100_000) })),
      post({ 'content-type': 'application/json' }, '{"username":'),
      post({ 'content-type': 'application/xml' }, '<username/>'),
      t.app.inject({ url: '/api/no-such-thing' }),
    ]);
    expect(answers.map((a) => [a.statusCode, a.json().code])).toEqual([
      [413, 'PAYLOAD_TOO_LARGE'],
      [400, 'BAD_REQUEST'],
      [415, 'UNSUPPORTED_MEDIA_TYPE'],
      [404, 'NOT_FOUND'],
    ]);
    for (const answer of answers) expect(isErrorCode(answer.json().code)).toBe(true);
  });
});
