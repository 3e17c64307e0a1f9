/**
 * A connection lost on Xero's side, and a consent that leaves an organisation out (issue 45 items 1 and 2): noticed
 * with nobody acting, said in one wording, once in the log, once per organisation in the activity log.
 */
import { Writable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditLog, organizations, userOrganizations, xeroTokens } from '../../db/schema/index';
import { as } from '../../test/session';
import {
  connectXero,
  createConnectedUser,
  createXeroTestApp,
  oauthBindingCookie,
  type XeroTestApp,
} from '../../test/xero';
import { classifyRefusedRefresh, REFRESH_TOKEN_LIFETIME_MS } from '../../xero/xero-http/token-store';

const SHOP = 'Demo Shop Ltd';
const BUILDERS = 'Demo Builders Ltd';

describe('a connection lost on Xero’s side (issue 45 item 2)', () => {
  let t: XeroTestApp;
  const logs: string[] = [];
  const warnings = () =>
    logs
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40);

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await createXeroTestApp({ logger: { level: 'warn', stream } });
  });
  afterAll(() => t.close());

  const lostLines = async (userId: number) =>
    t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.userId, userId), eq(auditLog.action, 'xero.connection-lost')));

  it('notices a revoke made in Xero with nobody acting: one round of the watch, no Accounting API call', async () => {
    const user = await createConnectedUser(t, 'watched', { email: 'watched@example.com' });
    expect(await t.parts.watchConnections()).toBeGreaterThanOrEqual(1);
    expect((await user.call('GET', '/api/xero/connection')).json().connected).toBe(true);

    const before = t.sandbox.ledger();
    t.sandbox.revokeTokens('watched@example.com');
    // Nobody calls the app: the watch reads Xero's connections on its own (its next round, brought forward).
    await t.parts.watchConnections({ allDue: true });
    const after = t.sandbox.ledger();
    expect(after.totals.all - before.totals.all).toBe(0);
    expect((after.identity.connections ?? 0) - (before.identity.connections ?? 0)).toBeGreaterThan(0);

    const [token] = await t.database.db.select().from(xeroTokens).where(eq(xeroTokens.userId, user.user.id));
    expect(token).toMatchObject({ status: 'reconnect_required', lostReason: 'revoked' });
    expect((await user.call('GET', '/api/xero/connection')).json()).toEqual({
      connected: false,
      error: 'Token refresh failed',
      lostReason: 'revoked',
    });
    const cards = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      lostReason: string | null;
      liveUpdates: { state: string; reason?: string } | null;
    }>;
    expect(cards.map((c) => [c.tenantName, c.lostReason, c.liveUpdates?.reason])).toEqual([
      [BUILDERS, 'revoked', 'connection-lost'],
      [SHOP, 'revoked', 'connection-lost'],
    ]);

    // Said once, as a warning naming the organisations, and once per organisation in the activity log.
    await vi.waitFor(async () => expect(await lostLines(user.user.id)).toHaveLength(2));
    await t.parts.watchConnections({ allDue: true });
    await user.call('GET', '/api/xero/connection');
    const said = warnings().filter((w) => w.msg.startsWith('Xero access revoked'));
    expect(said.map((w) => w.msg)).toEqual([
      `Xero access revoked: ${BUILDERS} and ${SHOP} need reconnecting (user ${user.user.id})`,
    ]);
    expect(await lostLines(user.user.id)).toHaveLength(2);
  });

  it('watches only users signed in: a user whose sessions ended is not read', async () => {
    const user = await createConnectedUser(t, 'gone.home', { email: 'gonehome@example.com' });
    await user.call('POST', '/api/logout');
    const before = t.sandbox.ledger().identity.connections ?? 0;
    await t.parts.watchConnections({ allDue: true });
    expect(t.sandbox.ledger().identity.connections ?? 0).toBe(before);
  });

  it('a round that finds nothing changed in Xero writes nothing, so no kept page or principal is emptied', async () => {
    const user = await createConnectedUser(t, 'nothing.changed', { email: 'nothingchanged@example.com' });
    const rows = () =>
      t.database.db
        .select({ updatedAt: organizations.updatedAt, membership: userOrganizations })
        .from(userOrganizations)
        .innerJoin(organizations, eq(organizations.id, userOrganizations.organizationId))
        .where(eq(userOrganizations.userId, user.user.id));
    const before = await rows();
    expect(before.length).toBeGreaterThan(0);
    const read = t.sandbox.ledger().identity.connections ?? 0;
    await t.parts.watchConnections({ allDue: true });
    // Xero was asked (the round happened), and nothing Ledgerlink keeps was rewritten.
    expect(t.sandbox.ledger().identity.connections ?? 0).toBeGreaterThan(read);
    expect(await rows()).toEqual(before);
  });

  it('reads a user once a period, however often the watch runs', async () => {
    await createConnectedUser(t, 'once.a.round', { email: 'oncearound@example.com' });
    await t.parts.watchConnections();
    const before = t.sandbox.ledger().identity.connections ?? 0;
    expect(await t.parts.watchConnections()).toBe(0);
    expect(t.sandbox.ledger().identity.connections ?? 0).toBe(before);
  });

  it('notices an organisation removed in Xero: "removed", once, and the rest stays connected', async () => {
    const user = await createConnectedUser(t, 'removed.one', { email: 'removedone@example.com' });
    const shop = user.orgs.find((o) => o.tenantName === SHOP);
    t.sandbox.disconnectTenant(shop?.tenantId ?? '', 'removedone@example.com');
    // The watch and the page's own check race: one of them reports it.
    await Promise.all([
      user.call('POST', '/api/xero/connections/refresh'),
      t.parts.watchConnections({ allDue: true }),
      user.call('POST', '/api/xero/connections/refresh'),
    ]);
    const lines = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.userId, user.user.id), eq(auditLog.action, 'xero.disconnected-in-xero')));
    expect(lines.map((l) => l.target)).toEqual([SHOP]);
    const cards = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      connected: boolean;
      notConnectedReason: string | null;
    }>;
    expect(cards.map((c) => [c.tenantName, c.connected, c.notConnectedReason])).toEqual([
      [BUILDERS, true, null],
      [SHOP, false, 'removed'],
    ]);
    expect(
      warnings().filter((w) => w.msg.includes(`${SHOP} was disconnected from Ledgerlink in Xero`)),
    ).toHaveLength(1);

    // The last one removed too: the status says why nothing is connected.
    const builders = user.orgs.find((o) => o.tenantName === BUILDERS);
    t.sandbox.disconnectTenant(builders?.tenantId ?? '', 'removedone@example.com');
    await user.call('POST', '/api/xero/connections/refresh');
    expect((await user.call('GET', '/api/xero/connection')).json()).toEqual({
      connected: false,
      error: 'No connected organization. Connect an organization to continue.',
      lostReason: 'removed',
    });
  });

  it('tells an expired refresh token from a revoked one: 60 days unused is expired', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    expect(classifyRefusedRefresh(new Date(now.getTime() - REFRESH_TOKEN_LIFETIME_MS), now)).toBe('expired');
    expect(classifyRefusedRefresh(new Date(now.getTime() - REFRESH_TOKEN_LIFETIME_MS + 60_000), now)).toBe(
      'revoked',
    );
  });

  it('an unused refresh token past 60 days shows as expired, not revoked', async () => {
    const user = await createConnectedUser(t, 'sixty.days', { email: 'sixtydays@example.com' });
    // Xero's answer to a token that old is invalid_grant: the sandbox's to a revoked one is the same.
    t.sandbox.revokeTokens('sixtydays@example.com');
    const longAgo = new Date(Date.now() - REFRESH_TOKEN_LIFETIME_MS - 60_000);
    await t.database.db
      .update(xeroTokens)
      .set({ updatedAt: longAgo, refreshedAt: longAgo, expiresAt: new Date(Date.now() - 1000) })
      .where(eq(xeroTokens.userId, user.user.id));
    expect((await user.call('GET', '/api/xero/connection')).json()).toEqual({
      connected: false,
      error: 'Token refresh failed',
      lostReason: 'expired',
    });
    await vi.waitFor(() =>
      expect(warnings().some((w) => w.msg.startsWith('Xero connection expired:'))).toBe(true),
    );
  });
});

describe('a consent that leaves an organisation out (issue 45 item 1)', () => {
  let t: XeroTestApp;
  beforeAll(async () => {
    t = await createXeroTestApp();
  });
  afterAll(() => t.close());

  it('a reconnect after a revoke that ticks only Demo Shop says Demo Builders was not included, and moves "Last connected"', async () => {
    const user = await createConnectedUser(t, 'ticks.one', { email: 'ticksone@example.com' });
    const before = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      lastAccessed: string | null;
    }>;
    t.sandbox.revokeTokens('ticksone@example.com');
    await t.parts.watchConnections({ allDue: true });
    expect((await user.call('GET', '/api/xero/connection')).json().lostReason).toBe('revoked');

    const landed = await connectXero(t.app, t.sandbox, user.cookie, {
      email: 'ticksone@example.com',
      tenants: [SHOP],
    });
    const builders = user.orgs.find((o) => o.tenantName === BUILDERS);
    expect(landed).toBe(`/organizations?connected=true&not_included=${builders?.organizationId}`);
    const cards = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      connected: boolean;
      notConnectedReason: string | null;
      lastAccessed: string | null;
      lostReason: string | null;
    }>;
    expect(cards.map((c) => [c.tenantName, c.connected, c.notConnectedReason, c.lostReason])).toEqual([
      [BUILDERS, false, 'not-included', null],
      [SHOP, true, null, null],
    ]);
    const shopBefore = before.find((c) => c.tenantName === SHOP)?.lastAccessed ?? '';
    const shopAfter = cards.find((c) => c.tenantName === SHOP)?.lastAccessed ?? '';
    expect(Date.parse(shopAfter)).toBeGreaterThan(Date.parse(shopBefore));
    const [line] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.userId, user.user.id), eq(auditLog.action, 'xero.connect')))
      .orderBy(auditLog.id);
    expect(line).toBeDefined();
    const lines = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.userId, user.user.id))
      .orderBy(auditLog.id);
    expect(lines.at(-1)?.detail).toEqual({ organizations: [SHOP], notIncluded: [BUILDERS] });
  });

  it('Connect on a card whose organisation the consent leaves out does not say "connected"', async () => {
    const user = await createConnectedUser(t, 'card.connect', { email: 'cardconnect@example.com' });
    const builders = user.orgs.find((o) => o.tenantName === BUILDERS);
    const id = builders?.organizationId ?? 0;
    expect((await user.call('POST', '/api/xero/disconnect', { organizationId: id })).statusCode).toBe(200);

    // Connect on Demo Builders' card; at Xero's consent only Demo Shop stays ticked.
    const start = await user.call('GET', `/api/xero/connect?organizationId=${id}`);
    expect(start.statusCode, start.body).toBe(200);
    t.sandbox.setAutoConsent({ email: 'cardconnect@example.com', tenants: [SHOP] });
    const authorize = await fetch(start.json().url as string, { redirect: 'manual' });
    t.sandbox.setAutoConsent(null);
    const callback = new URL(authorize.headers.get('location') ?? '');
    const res = await t.app.inject({
      method: 'GET',
      url: `${callback.pathname}${callback.search}`,
      headers: { cookie: [user.cookie, oauthBindingCookie(start)].join('; ') },
    });
    expect(res.headers.location).toBe(`/organizations?not_included=${id}`);
    const cards = (await user.call('GET', '/api/user-organizations')).json() as Array<{
      tenantName: string;
      notConnectedReason: string | null;
    }>;
    expect(cards.find((c) => c.tenantName === BUILDERS)?.notConnectedReason).toBe('not-included');
  });

  it('refuses to start a connect naming another user’s organisation', async () => {
    const owner = await createConnectedUser(t, 'card.owner', { email: 'cardowner@example.com' });
    const stranger = await createConnectedUser(t, 'card.stranger', { email: 'cardstranger@example.com' });
    const mine = owner.orgs[0]?.organizationId ?? 0;
    const theirs = await as(t.app, stranger.cookie)('GET', `/api/xero/connect?organizationId=${mine + 1000}`);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().message).toBe(`Organization with ID ${mine + 1000} not found`);
    const bad = await as(t.app, stranger.cookie)('GET', '/api/xero/connect?organizationId=99999999999');
    expect(bad.statusCode).toBe(400);
  });
});

describe('the connections watch is one of the app’s background jobs (issue 45 item 2)', () => {
  let t: XeroTestApp;
  beforeAll(async () => {
    t = await createXeroTestApp({ env: { XERO_CONNECTIONS_CHECK_SECONDS: '1' } });
  });
  afterAll(() => t.close());

  it('finds a revoke on its own timer, nobody calling the app', async () => {
    const user = await createConnectedUser(t, 'timer.watched', { email: 'timerwatched@example.com' });
    t.sandbox.revokeTokens('timerwatched@example.com');
    await vi.waitFor(
      async () => {
        const [token] = await t.database.db
          .select()
          .from(xeroTokens)
          .where(eq(xeroTokens.userId, user.user.id));
        expect(token?.lostReason).toBe('revoked');
      },
      { timeout: 20_000, interval: 200 },
    );
  });
});
