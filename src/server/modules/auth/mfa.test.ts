import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MFA_TEXTS } from '../../../shared/mfa';
import { auditLog, mfaTotpSteps, sessions, users } from '../../db/schema/index';
import { randomToken, sha256 } from '../../lib/crypto';
import { createTestApp, type TestApp } from '../../test/app';
import { as, login, register, sessionCookie } from '../../test/session';
import { MFA_LIMITS } from './mfa.limiter';
import { PENDING_SESSION_MS } from './mfa.routes';

const GOOD = 'Sturdy-Ledger-Pass-1';

/** A code for the current 30-second step, or one `steps` away (the server accepts one step either side). */
function codeFor(secret: string, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + steps * 30 });
}

async function forgetUsedSteps(t: TestApp, userId: number) {
  // Stands in for waiting 30 seconds for the next code: the server remembers the last step used.
  await t.database.db.delete(mfaTotpSteps).where(eq(mfaTotpSteps.userId, userId));
}

async function auditActions(t: TestApp, userId: number) {
  const rows = await t.database.db.select().from(auditLog).where(eq(auditLog.userId, userId));
  return rows.map((r) => `${r.action}:${r.result}`);
}

async function setUp(
  t: TestApp,
  cookie: string,
): Promise<{ secret: string; recoveryCodes: string[]; cookie: string; userId: number }> {
  const call = as(t.app, cookie);
  const setup = await call('POST', '/api/auth/mfa/setup');
  expect(setup.statusCode).toBe(200);
  const { secret } = setup.json() as { secret: string };
  const enable = await call('POST', '/api/auth/mfa/enable', { code: await codeFor(secret) });
  expect(enable.statusCode).toBe(200);
  const body = enable.json() as { recoveryCodes: string[]; user: { id: number } };
  return { secret, recoveryCodes: body.recoveryCodes, cookie: sessionCookie(enable), userId: body.user.id };
}

describe('two-step sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await register(t.app, 'mfa.first.admin');
  });
  afterAll(() => t.close());

  it('sets up a key stored encrypted, not in use until a code confirms it', async () => {
    const { cookie, user } = await register(t.app, 'mfa.setup');
    const call = as(t.app, cookie);
    expect((await call('GET', '/api/auth/mfa')).json()).toEqual({
      enabled: false,
      available: true,
      required: false,
      recoveryCodesLeft: 0,
    });

    const res = await call('POST', '/api/auth/mfa/setup');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { secret: string; otpauthUri: string; qrCode: string };
    expect(body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(body.otpauthUri).toBe(
      `otpauth://totp/Ledgerlink:mfa.setup?secret=${body.secret}&issuer=Ledgerlink`,
    );
    expect(body.qrCode).toMatch(/^data:image\/png;base64,/);

    const [row] = await t.database.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.mfaEnabled).toBe(false);
    expect(row?.mfaSecretEnc).toMatch(/^v1\./);
    expect(row?.mfaSecretEnc).not.toContain(body.secret);
    // Not on yet: the password alone still signs in.
    expect((await login(t.app, 'mfa.setup', GOOD)).json()).toMatchObject({ username: 'mfa.setup' });
    expect(await auditActions(t, user.id)).toContain('user.mfa.setup:success');
  });

  it('refuses a wrong or malformed code when turning it on, then turns on with a right one and shows 10 recovery codes once', async () => {
    const { cookie, user } = await register(t.app, 'mfa.enable');
    const other = sessionCookie(await login(t.app, 'mfa.enable', GOOD));
    const call = as(t.app, cookie);
    const { secret } = (await call('POST', '/api/auth/mfa/setup')).json() as { secret: string };

    const right = await codeFor(secret);
    const wrong = right === '000000' ? '000001' : '000000';
    const bad = await call('POST', '/api/auth/mfa/enable', { code: wrong });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe(MFA_TEXTS.wrongCode);
    const malformed = await call('POST', '/api/auth/mfa/enable', { code: '12ab' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().message).toBe(MFA_TEXTS.codeFormat);
    const empty = await call('POST', '/api/auth/mfa/enable', {});
    expect(empty.statusCode).toBe(400);

    const ok = await call('POST', '/api/auth/mfa/enable', { code: right });
    expect(ok.statusCode).toBe(200);
    const { recoveryCodes, user: me } = ok.json() as { recoveryCodes: string[]; user: { username: string } };
    expect(me.username).toBe('mfa.enable');
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    // Only argon2 hashes are kept.
    const [row] = await t.database.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.mfaEnabled).toBe(true);
    expect(row?.mfaRecoveryCodes).toHaveLength(10);
    for (const hash of row?.mfaRecoveryCodes ?? []) expect(hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain(recoveryCodes[0]?.replace('-', ''));

    // A new session here; the sessions opened with the password alone are gone.
    const fresh = sessionCookie(ok);
    expect(fresh).not.toBe(cookie);
    expect((await as(t.app, cookie)('GET', '/api/user')).statusCode).toBe(401);
    expect((await as(t.app, other)('GET', '/api/user')).statusCode).toBe(401);
    expect((await as(t.app, fresh)('GET', '/api/auth/mfa')).json()).toEqual({
      enabled: true,
      available: true,
      required: false,
      recoveryCodesLeft: 10,
    });

    // The codes are not shown again, and a second set-up is refused while it is on.
    const again = await as(t.app, fresh)('POST', '/api/auth/mfa/setup');
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(MFA_TEXTS.alreadyOn);
    expect(await auditActions(t, user.id)).toEqual(
      expect.arrayContaining(['user.mfa.enable:failure', 'user.mfa.enable:success']),
    );
  });

  it('makes a password sign-in wait for a code; the pending session can use nothing else', async () => {
    const { cookie } = await register(t.app, 'mfa.pending');
    const { secret, userId } = await setUp(t, cookie);

    for (const url of ['/api/login', '/api/auth/login']) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { origin: 'http://localhost:5000' },
        payload: { username: 'mfa.pending', password: GOOD },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ mfaRequired: true });
      expect(res.body).not.toContain('mfa.pending');
    }

    const pending = sessionCookie(await login(t.app, 'mfa.pending', GOOD));
    const call = as(t.app, pending);
    for (const [method, url] of [
      ['GET', '/api/user'],
      ['GET', '/api/auth/current-user'],
      ['GET', '/api/admin/check'],
      ['GET', '/api/user-organizations'],
      ['GET', '/api/xero/connection'],
      ['GET', '/api/auth/mfa'],
      ['POST', '/api/auth/mfa/setup'],
      ['POST', '/api/auth/mfa/disable'],
    ] as const) {
      const res = await call(method, url, method === 'POST' ? { password: GOOD } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
    }
    // It expires in minutes, not hours.
    const [row] = await t.database.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sha256(pending.split('=')[1] ?? '')));
    expect(row?.mfaPending).toBe(true);
    expect((row?.expiresAt.getTime() ?? 0) - Date.now()).toBeLessThanOrEqual(PENDING_SESSION_MS);

    await forgetUsedSteps(t, userId);
    const verified = await call('POST', '/api/auth/mfa/verify', { code: await codeFor(secret) });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ username: 'mfa.pending' });
    const session = sessionCookie(verified);
    expect(session).not.toBe(pending);
    expect((await as(t.app, session)('GET', '/api/user')).statusCode).toBe(200);
    // The pending id was not promoted.
    expect((await call('GET', '/api/user')).statusCode).toBe(401);
    expect((await call('POST', '/api/auth/mfa/verify', { code: '123456' })).statusCode).toBe(401);
    expect(await auditActions(t, userId)).toEqual(
      expect.arrayContaining(['user.mfa.challenge:success', 'user.mfa.verify:success']),
    );
    // The finished sign-in is one line naming both steps, written once the whole session exists.
    const lines = await t.database.db.select().from(auditLog).where(eq(auditLog.userId, userId));
    const twoStep = lines.filter(
      (r) =>
        r.action === 'user.login' && (r.detail as { method?: string } | null)?.method === 'password+totp',
    );
    expect(twoStep.map((r) => r.result)).toEqual(['success']);
  });

  it('refuses a wrong code and a replayed one at the second step', async () => {
    const { cookie } = await register(t.app, 'mfa.replay');
    const { secret, userId } = await setUp(t, cookie);
    await forgetUsedSteps(t, userId);

    const first = as(t.app, sessionCookie(await login(t.app, 'mfa.replay', GOOD)));
    const code = await codeFor(secret);
    const wrong = await first('POST', '/api/auth/mfa/verify', {
      code: code === '999999' ? '999998' : '999999',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe(MFA_TEXTS.wrongCode);
    expect((await first('POST', '/api/auth/mfa/verify', { code: 'not a code' })).json().message).toBe(
      MFA_TEXTS.wrongCode,
    );
    expect((await first('POST', '/api/auth/mfa/verify', { code })).statusCode).toBe(200);

    // The same code, seconds later, in another sign-in: refused.
    const second = as(t.app, sessionCookie(await login(t.app, 'mfa.replay', GOOD)));
    const replay = await second('POST', '/api/auth/mfa/verify', { code });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().message).toBe(MFA_TEXTS.usedCode);
    // So is an older one (a step back) once a later step was used.
    expect(
      (await second('POST', '/api/auth/mfa/verify', { code: await codeFor(secret, -1) })).statusCode,
    ).toBe(400);
    // The next step's code is fine.
    expect(
      (await second('POST', '/api/auth/mfa/verify', { code: await codeFor(secret, 1) })).statusCode,
    ).toBe(200);
    expect(await auditActions(t, userId)).toContain('user.mfa.verify:failure');
  });

  it('accepts each recovery code once, in any case and with or without its dash', async () => {
    const { cookie } = await register(t.app, 'mfa.recovery');
    const { recoveryCodes } = await setUp(t, cookie);
    const code = recoveryCodes[3] ?? '';

    const first = as(t.app, sessionCookie(await login(t.app, 'mfa.recovery', GOOD)));
    const ok = await first('POST', '/api/auth/mfa/verify', {
      code: ` ${code.toUpperCase().replace('-', ' ')} `,
    });
    expect(ok.statusCode).toBe(200);
    expect((await as(t.app, sessionCookie(ok))('GET', '/api/auth/mfa')).json()).toMatchObject({
      recoveryCodesLeft: 9,
    });

    const second = as(t.app, sessionCookie(await login(t.app, 'mfa.recovery', GOOD)));
    const reused = await second('POST', '/api/auth/mfa/verify', { code });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().message).toBe(MFA_TEXTS.wrongCode);
    expect((await second('POST', '/api/auth/mfa/verify', { code: recoveryCodes[4] })).statusCode).toBe(200);
  });

  it('limits code guessing per account, even for a right code once over the limit', async () => {
    const { cookie } = await register(t.app, 'mfa.limit');
    const { secret, userId } = await setUp(t, cookie);
    await forgetUsedSteps(t, userId);
    const call = as(t.app, sessionCookie(await login(t.app, 'mfa.limit', GOOD)));
    const right = await codeFor(secret);
    const wrong = right === '111111' ? '111112' : '111111';
    const max = MFA_LIMITS[0].max;
    const attempts = await Promise.all(
      Array.from({ length: max + 3 }, () => call('POST', '/api/auth/mfa/verify', { code: wrong })),
    );
    // Parallel guesses cannot slip past the limit together.
    expect(attempts.filter((r) => r.statusCode === 400)).toHaveLength(max);
    expect(attempts.filter((r) => r.statusCode === 429)).toHaveLength(3);
    const blocked = await call('POST', '/api/auth/mfa/verify', { code: right });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe('Too many codes tried. Try again in 15 minutes.');
  });

  it('turns off with the password or a code, not with a wrong one', async () => {
    const { cookie } = await register(t.app, 'mfa.disable');
    const { secret, cookie: session, userId } = await setUp(t, cookie);
    const call = as(t.app, session);
    expect((await call('POST', '/api/auth/mfa/disable', {})).json().message).toBe(MFA_TEXTS.disableProof);
    expect((await call('POST', '/api/auth/mfa/disable', { code: '123456', password: GOOD })).statusCode).toBe(
      400,
    );
    const wrongPassword = await call('POST', '/api/auth/mfa/disable', { password: 'Not-The-Password-1' });
    expect(wrongPassword.statusCode).toBe(400);
    expect(wrongPassword.json().message).toBe(MFA_TEXTS.wrongPassword);
    expect((await call('POST', '/api/auth/mfa/disable', { password: GOOD })).json()).toEqual({
      enabled: false,
    });
    expect((await login(t.app, 'mfa.disable', GOOD)).json()).toMatchObject({ username: 'mfa.disable' });
    const [row] = await t.database.db.select().from(users).where(eq(users.id, userId));
    expect(row).toMatchObject({ mfaEnabled: false, mfaSecretEnc: null, mfaRecoveryCodes: [] });
    expect((await call('POST', '/api/auth/mfa/disable', { password: GOOD })).statusCode).toBe(409);

    // Again, turned off with a code this time.
    const again = await setUp(t, session);
    await forgetUsedSteps(t, again.userId);
    expect(
      (await as(t.app, again.cookie)('POST', '/api/auth/mfa/disable', { code: await codeFor(again.secret) }))
        .statusCode,
    ).toBe(200);
    expect(secret).not.toBe(again.secret);
    expect(await auditActions(t, userId)).toEqual(
      expect.arrayContaining(['user.mfa.disable:failure', 'user.mfa.disable:success']),
    );
  });

  it('replaces the recovery codes when asked with a code', async () => {
    const { cookie } = await register(t.app, 'mfa.newcodes');
    const { secret, cookie: session, userId, recoveryCodes } = await setUp(t, cookie);
    await forgetUsedSteps(t, userId);
    const res = await as(t.app, session)('POST', '/api/auth/mfa/recovery-codes', {
      code: await codeFor(secret),
    });
    expect(res.statusCode).toBe(200);
    const fresh = (res.json() as { recoveryCodes: string[] }).recoveryCodes;
    expect(fresh).toHaveLength(10);
    const pending = as(t.app, sessionCookie(await login(t.app, 'mfa.newcodes', GOOD)));
    expect((await pending('POST', '/api/auth/mfa/verify', { code: recoveryCodes[0] })).statusCode).toBe(400);
    expect((await pending('POST', '/api/auth/mfa/verify', { code: fresh[0] })).statusCode).toBe(200);
  });

  it('is not offered to an account without a password (Sign in with Xero only)', async () => {
    const [user] = await t.database.db
      .insert(users)
      .values({ username: 'xero.only', passwordHash: null, xeroUserId: 'xero-user-mfa' })
      .returning();
    const token = randomToken(32);
    await t.database.db
      .insert(sessions)
      .values({ id: sha256(token), userId: user?.id ?? 0, expiresAt: new Date(Date.now() + 60_000) });
    const call = as(t.app, `ll_session=${token}`);
    expect((await call('GET', '/api/auth/mfa')).json()).toMatchObject({ available: false, enabled: false });
    const res = await call('POST', '/api/auth/mfa/setup');
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe(MFA_TEXTS.notAvailable);
  });

  it('answers signed-out callers with 401', async () => {
    for (const url of [
      '/api/auth/mfa/setup',
      '/api/auth/mfa/enable',
      '/api/auth/mfa/verify',
      '/api/auth/mfa/disable',
      '/api/auth/mfa/recovery-codes',
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: { origin: 'http://localhost:5000' },
        payload: { code: '123456' },
      });
      expect(res.statusCode, url).toBe(401);
    }
  });
});

describe('REQUIRE_MFA_FOR_ADMINS=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    // buildApp does not pass its config to the auth routes yet; they read the same variable from the environment.
    t = await createTestApp({ env: { REQUIRE_MFA_FOR_ADMINS: 'true' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends an administrator signing in with a password to set it up before anything else works', async () => {
    // The first user is an administrator: registration already asks for the set-up.
    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/register',
      headers: { origin: 'http://localhost:5000' },
      payload: { username: 'forced.admin', password: GOOD },
    });
    expect(reg.statusCode).toBe(201);
    expect(reg.json()).toEqual({ mfaSetupRequired: true });

    const res = await login(t.app, 'forced.admin', GOOD);
    expect(res.json()).toEqual({ mfaSetupRequired: true });
    const pending = as(t.app, sessionCookie(res));
    for (const [method, url] of [
      ['GET', '/api/user'],
      ['GET', '/api/admin/check'],
      ['GET', '/api/admin/users'],
      ['GET', '/api/auth/mfa'],
      ['POST', '/api/auth/mfa/verify'],
    ] as const) {
      expect(
        (await pending(method, url, method === 'POST' ? { code: '123456' } : undefined)).statusCode,
        url,
      ).toBe(401);
    }

    const setup = await pending('POST', '/api/auth/mfa/setup');
    expect(setup.statusCode).toBe(200);
    const { secret } = setup.json() as { secret: string };
    const enabled = await pending('POST', '/api/auth/mfa/enable', { code: await codeFor(secret) });
    expect(enabled.statusCode).toBe(200);
    const session = as(t.app, sessionCookie(enabled));
    expect((await session('GET', '/api/admin/check')).json()).toEqual({ isAdmin: true });
    expect((await session('GET', '/api/auth/mfa')).json()).toMatchObject({ enabled: true, required: true });

    // It cannot be turned off while it is compulsory.
    const off = await session('POST', '/api/auth/mfa/disable', { password: GOOD });
    expect(off.statusCode).toBe(403);
    expect(off.json().message).toBe(MFA_TEXTS.adminMustKeep);
    // From now on a sign-in asks for the code.
    expect((await login(t.app, 'forced.admin', GOOD)).json()).toEqual({ mfaRequired: true });
  });

  it('leaves ordinary users free to choose', async () => {
    const { cookie } = await register(t.app, 'ordinary.user');
    expect((await as(t.app, cookie)('GET', '/api/auth/mfa')).json()).toMatchObject({
      enabled: false,
      required: false,
    });
    expect((await login(t.app, 'ordinary.user', GOOD)).json()).toMatchObject({ username: 'ordinary.user' });
  });
});
