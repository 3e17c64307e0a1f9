import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, sessions, users } from '../../db/schema/index';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/app';
import { as, login, register, sessionCookie } from '../../test/session';
import { LOGIN_LIMITS } from './login-limiter';

const GOOD = 'Sturdy-Ledger-Pass-1';

describe('accounts and sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ demoCredentials: { username: 'admin', password: 'demo-pass-123' } });
  });
  afterAll(() => t.close());

  it('makes the first user an administrator and later ones ordinary users', async () => {
    const first = await register(t.app, 'first.user', GOOD, 'first@example.com');
    expect(first.user).toMatchObject({
      username: 'first.user',
      isAdmin: true,
      isXeroUser: false,
      email: 'first@example.com',
    });
    const second = await register(t.app, 'second.user');
    expect(second.user.isAdmin).toBe(false);
    const check = await as(t.app, second.cookie)('GET', '/api/admin/check');
    expect(check.json()).toEqual({ isAdmin: false });
    expect((await as(t.app, first.cookie)('GET', '/api/admin/check')).json()).toEqual({ isAdmin: true });
  });

  it('sets an HttpOnly, SameSite=Lax session cookie holding only a random id', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/register',
      headers: { origin: TEST_ORIGIN },
      payload: { username: 'cookie.user', password: GOOD },
    });
    const raw = String(res.headers['set-cookie']);
    expect(raw).toMatch(/HttpOnly/);
    expect(raw).toMatch(/SameSite=Lax/);
    expect(raw).not.toMatch(/Secure/);
    const token = sessionCookie(res).split('=')[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The database keeps only a hash of it.
    const rows = await t.database.db.select().from(sessions);
    expect(rows.some((r) => r.id === token)).toBe(false);
  });

  it('refuses bad registrations with a message that says why', async () => {
    const post = (payload: object) =>
      t.app.inject({ method: 'POST', url: '/api/register', headers: { origin: TEST_ORIGIN }, payload });
    const short = await post({ username: 'shorty', password: 'Ab1!x' });
    expect(short.statusCode).toBe(400);
    expect(short.json().message).toContain('Password must be at least 8 characters');
    const common = await post({ username: 'commoner', password: 'password123' });
    expect(common.statusCode).toBe(400);
    expect(common.json().message).toBe('This password is too common. Choose one that is harder to guess.');
    const taken = await post({ username: 'FIRST.user', password: GOOD });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().message).toBe('Username already exists');
    const badEmail = await post({ username: 'emailer', password: GOOD, email: 'not-an-email' });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.json().message).toContain('Please enter a valid email address');
    const long = await post({ username: 'longpass', password: `${'Zq9-'.repeat(16)}` });
    expect(long.statusCode).toBe(201);
  });

  it('hashes with argon2id, at least 19 MiB and 2 iterations', async () => {
    const [row] = await t.database.db.select().from(users).where(eq(users.username, 'first.user'));
    expect(row?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('answers an unknown user and a wrong password alike', async () => {
    const wrong = await login(t.app, 'first.user', 'Wrong-Password-99', '10.0.0.1');
    const unknown = await login(t.app, 'nobody.here', 'Wrong-Password-99', '10.0.0.1');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json().message).toBe('Invalid username or password');
  });

  it('issues a new session at sign-in and ends it on the server at logout', async () => {
    const a = await login(t.app, 'second.user', GOOD);
    expect(a.statusCode).toBe(200);
    const cookieA = sessionCookie(a);
    const b = await login(t.app, 'second.user', GOOD);
    const cookieB = sessionCookie(b);
    expect(cookieB).not.toBe(cookieA);
    const me = await as(t.app, cookieB)('GET', '/api/auth/current-user');
    expect(me.json()).toMatchObject({ username: 'second.user', isAdmin: false });
    const out = await as(t.app, cookieB)('POST', '/api/logout');
    expect(out.json()).toEqual({ ok: true });
    const replay = await as(t.app, cookieB)('GET', '/api/user');
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toBe('Not authenticated');
    // The activity log says who signed out, once.
    const lines = await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'user.logout'));
    expect(lines.map((r) => [r.username, r.result])).toEqual([['second.user', 'success']]);
  });

  it('expires idle and old sessions', async () => {
    const res = await login(t.app, 'second.user', GOOD);
    const cookie = sessionCookie(res);
    expect((await as(t.app, cookie)('GET', '/api/user')).statusCode).toBe(200);
    await t.database.db
      .update(sessions)
      .set({ lastSeenAt: new Date(Date.now() - t.config.session.idleTimeoutMs - 1000) });
    expect((await as(t.app, cookie)('GET', '/api/user')).statusCode).toBe(401);
    const again = sessionCookie(await login(t.app, 'second.user', GOOD));
    await t.database.db.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) });
    expect((await as(t.app, again)('GET', '/api/user')).statusCode).toBe(401);
  });

  it('limits password guessing per account and address without locking other accounts out', async () => {
    await register(t.app, 'target.user');
    const ip = '10.9.9.9';
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.max; i += 1) {
      expect((await login(t.app, 'target.user', `Guess-${i}-xyz`, ip)).statusCode).toBe(401);
    }
    const blocked = await login(t.app, 'target.user', GOOD, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe('Too many sign-in attempts. Try again in 15 minutes.');
    // The owner, elsewhere, still gets in; so does another account from the same address.
    expect((await login(t.app, 'target.user', GOOD, '10.1.1.1')).statusCode).toBe(200);
    expect((await login(t.app, 'second.user', GOOD, ip)).statusCode).toBe(200);
  });

  it('lets parallel password guesses through only up to the limit', async () => {
    await register(t.app, 'parallel.target');
    const ip = '10.9.9.10';
    const max = LOGIN_LIMITS.accountAndAddress.max;
    const guesses = await Promise.all(
      Array.from({ length: max + 4 }, (_, i) => login(t.app, 'parallel.target', `Guess-${i}-xyz`, ip)),
    );
    expect(guesses.filter((r) => r.statusCode === 401)).toHaveLength(max);
    expect(guesses.filter((r) => r.statusCode === 429)).toHaveLength(4);
    expect((await login(t.app, 'parallel.target', GOOD, ip)).statusCode).toBe(429);
  });

  it('offers the demo helper its credentials only on loopback', async () => {
    const local = await t.app.inject({ url: '/api/auth/dev-credentials' });
    expect(local.json()).toEqual({ username: 'admin', password: 'demo-pass-123' });
    const remote = await t.app.inject({ url: '/api/auth/dev-credentials', remoteAddress: '192.0.2.10' });
    expect(remote.statusCode).toBe(404);
  });

  it('never returns a password hash', async () => {
    const res = await login(t.app, 'first.user', GOOD);
    expect(res.body).not.toContain('argon2');
    expect(res.body).not.toContain('password');
  });
});

describe('without demo credentials, over https', () => {
  it('has no development helper and marks the cookie Secure', async () => {
    const t = await createTestApp({ env: { APP_URL: 'https://books.example.com' } });
    try {
      expect((await t.app.inject({ url: '/api/auth/dev-credentials' })).statusCode).toBe(404);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/register',
        headers: { origin: 'https://books.example.com' },
        payload: { username: 'secure.user', password: GOOD },
      });
      expect(String(res.headers['set-cookie'])).toMatch(/Secure/);
    } finally {
      await t.close();
    }
  });
});

describe('sign-in limits that keep guessers out without locking owners out (issue 16)', () => {
  let t: TestApp;
  let adminCookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    adminCookie = (await register(t.app, 'limits.admin')).cookie;
  });
  afterAll(() => t.close());

  const deviceCookieOf = (res: { headers: Record<string, unknown> }) => {
    const raw = res.headers['set-cookie'];
    const list = (Array.isArray(raw) ? raw : raw ? [raw] : []) as string[];
    return list.find((c) => c.startsWith('ll_device='))?.split(';')[0] ?? '';
  };

  it("lets the owner's known browser in while a guesser at the same address is held back, with Retry-After", async () => {
    await register(t.app, 'owner.known');
    const ip = '10.20.0.1';
    const first = await login(t.app, 'owner.known', GOOD, ip);
    expect(first.statusCode).toBe(200);
    const device = deviceCookieOf(first);
    expect(String(first.headers['set-cookie'])).toMatch(/ll_device=[^;]+;.*HttpOnly/);
    // Someone at the same address (an office, a café) guesses until the limit.
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.max; i += 1) {
      expect((await login(t.app, 'owner.known', `Guess-${i}-xyz`, ip)).statusCode).toBe(401);
    }
    const guesser = await login(t.app, 'owner.known', `Guess-again-xyz`, ip);
    expect(guesser.statusCode).toBe(429);
    expect(guesser.headers['retry-after']).toBe('900');
    expect(guesser.json()).toMatchObject({
      message: 'Too many sign-in attempts. Try again in 15 minutes.',
      code: 'RATE_LIMITED',
    });
    // The owner, in the browser they signed in from before, is not locked out by it.
    const owner = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { origin: TEST_ORIGIN, cookie: device },
      payload: { username: 'owner.known', password: GOOD },
      remoteAddress: ip,
    });
    expect(owner.statusCode).toBe(200);
    // A device cookie of another account, or a forged one, counts for nothing.
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      headers: { origin: TEST_ORIGIN, cookie: `${device.slice(0, -4)}AAAA` },
      payload: { username: 'owner.known', password: GOOD },
      remoteAddress: ip,
    });
    expect(forged.statusCode).toBe(429);
  });

  it('shows a locked account to an administrator, who can lift the lock (and it is audited)', async () => {
    const { user } = await register(t.app, 'locked.person');
    const ip = '10.20.0.2';
    for (let i = 0; i < LOGIN_LIMITS.accountAndAddress.max; i += 1)
      await login(t.app, 'locked.person', `Guess-${i}-xyz`, ip);
    expect((await login(t.app, 'locked.person', GOOD, ip)).statusCode).toBe(429);
    const admin = as(t.app, adminCookie);
    const listed = (await admin('GET', '/api/admin/users')).json() as Array<{
      id: number;
      signInLocked?: boolean;
    }>;
    expect(listed.find((u) => u.id === user.id)?.signInLocked).toBe(true);
    expect(listed[0]?.signInLocked).toBe(false);
    // Only an administrator may lift it.
    const self = sessionCookie(await login(t.app, 'locked.person', GOOD, '10.20.0.3'));
    expect((await as(t.app, self)('POST', `/api/admin/users/${user.id}/unlock`)).statusCode).toBe(403);
    const unlock = await admin('POST', `/api/admin/users/${user.id}/unlock`);
    expect(unlock.statusCode).toBe(200);
    expect(
      ((await admin('GET', '/api/admin/users')).json() as Array<{ id: number; signInLocked?: boolean }>).find(
        (u) => u.id === user.id,
      )?.signInLocked,
    ).toBe(false);
    expect((await login(t.app, 'locked.person', GOOD, ip)).statusCode).toBe(200);
    const audit = (await admin('GET', '/api/admin/audit?action=admin.unlock')).json() as Array<{
      action: string;
      target: string;
      username: string;
    }>;
    expect(audit[0]).toMatchObject({
      action: 'admin.unlock',
      target: 'locked.person',
      username: 'limits.admin',
    });
    expect((await admin('POST', '/api/admin/users/999999/unlock')).statusCode).toBe(404);
  });

  /** Registers `count` new accounts from `ip`, returning each answer's status; checks the refusal's shape. */
  async function registerFrom(app: TestApp['app'], ip: string, count: number, prefix: string) {
    const answers: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/register',
        headers: { origin: TEST_ORIGIN },
        payload: { username: `${prefix}.${i}`, password: GOOD },
        remoteAddress: ip,
      });
      answers.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.json()).toMatchObject({ code: 'RATE_LIMITED' });
        expect(res.json().message).toMatch(/^Too many new accounts from this address\. Try again in /);
      }
    }
    return answers;
  }

  it('limits registrations per address to 20 an hour, with Retry-After', async () => {
    const answers = await registerFrom(t.app, '10.20.0.9', 21, 'many');
    expect(answers.slice(0, 20)).toEqual(Array(20).fill(201));
    expect(answers[20]).toBe(429);
    // Another address is not affected.
    expect(await registerFrom(t.app, '10.20.0.10', 1, 'many.elsewhere')).toEqual([201]);
  });

  it('REGISTRATIONS_PER_HOUR sets the limit', async () => {
    const small = await createTestApp({ env: { REGISTRATIONS_PER_HOUR: '3' } });
    try {
      expect(await registerFrom(small.app, '10.20.0.11', 4, 'few')).toEqual([201, 201, 201, 429]);
    } finally {
      await small.close();
    }
  });
});
