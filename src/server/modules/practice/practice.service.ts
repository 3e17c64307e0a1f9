import { EventEmitter } from 'node:events';
import { getUkToday } from '../../../shared/dates';
import { sortTodayRows, type TodayConnectionState, type TodayRow } from '../../../shared/practice';
import type { WebhookHealth } from '../../../shared/webhook-health';
import { AppError } from '../../lib/app-error';
import { packBody, type CachedBody } from '../../lib/body-cache';
import { readCacheOnly } from '../../xero/call-context';
import type { RequestPrincipal, SessionUser } from '../auth/sessions';
import type { MembershipRow, OrganizationRow } from '../organizations/organizations.repository';
import type { RequestContext } from '../organizations/tenancy';
import type { ChangeNotices } from './change-notices';
import {
  computeFigures,
  missingReads,
  NO_FIGURES,
  resourcesOf,
  type FigureKey,
  type FigureSources,
  type OrgFigures,
} from './figures';
import type { PracticeRepository } from './practice.repository';
import { createPracticeReader, type ReadOutcome } from './reader';

/** Live updates of each organisation (decision 018) are read at most this often per user for the rows. */
const HEALTH_FRESH_MS = 10_000;
/** A request answers rows from the cache for this long at most; the rest are handed to the background reader. */
const INLINE_BUDGET_MS = 250;
/** A row whose read failed is tried again after this long (or at once when what it is made of changes). */
const FAILED_RETRY_MS = 60_000;
/** Users whose answer is kept serialised (the least recently asked go first). */
const MAX_KEPT_BODIES = 1_000;

/** One organisation's row as kept: the figures every user of it sees, and what they were computed from. */
interface KeptRow {
  figures: OrgFigures;
  /** Figures not read yet (a row shown while its read goes on). */
  pending: FigureKey[];
  needsReview: number;
  /** ready: whole; reading: published by the reader before the invoice list was whole; failed: `message`. */
  status: 'ready' | 'reading' | 'failed';
  message: string | null;
  /** change-notices.ts stampOf, taken before the figures were read: a change since makes them stale. */
  stamp: string;
  day: string;
  at: number;
}

interface KeptBody {
  body: CachedBody;
  version: number;
  day: string;
  until: number;
  tokenKey: string;
}

export interface PracticeDeps {
  repo: PracticeRepository;
  sources: FigureSources;
  notices: ChangeNotices;
  /** The user's organisations and memberships (organizations.repository.ts listForUser). */
  listMemberships(userId: number): Promise<Array<{ org: OrganizationRow; membership: MembershipRow }>>;
  /** Each organisation's live updates from Xero, by tenant id (webhooks/health.ts healthOf). */
  liveUpdates(tenantIds: readonly string[]): Promise<Map<string, WebhookHealth>>;
  /** Admin → Needs review's list (write-review.service.ts listForReview): each write's organisation. */
  listNeedsReview(): Promise<Array<{ organizationId: number }>>;
  log?: { warn: (o: object, m: string) => void };
  readConcurrency?: number;
}

function connectionOf(membership: MembershipRow, token: RequestPrincipal['xeroToken']): TodayConnectionState {
  if (!membership.connected) return 'not-connected';
  if (!token || token.status === 'reconnect_required' || !token.hasRefreshToken) return 'reconnect';
  return 'connected';
}

/**
 * The Today page (issue 47): every organisation a user keeps, one row each, answered from what Ledgerlink holds.
 * A row's figures are computed through each feature's own code (figures.ts) once and kept in memory until the
 * database announces a change to what they are made of (change-notices.ts, the same rule as decision 032), so a
 * warm page costs no Xero call and no query beyond its session; an organisation not yet read is read in the
 * background (reader.ts), its row shown as it comes. The answer to each user is kept serialised until anything
 * changes (`version`).
 */
export function createPracticeService(deps: PracticeDeps) {
  const { repo, sources, notices } = deps;
  const rows = new Map<number, KeptRow>();
  const bodies = new Map<number, KeptBody>();
  const building = new Map<string, Promise<CachedBody>>();
  const health = new Map<number, { at: number; byTenant: Map<string, WebhookHealth> }>();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  /** Moves with every change heard and every row the reader publishes: a kept body is good while it stands. */
  let version = 0;

  function changed(organizationIds: number[] | 'all', userId?: number): void {
    version++;
    changes.emit('change', { organizationIds, userId });
  }

  const reader = createPracticeReader({
    sources,
    repo,
    stampOf: (id) => notices.stampOf(id),
    concurrency: deps.readConcurrency,
    log: deps.log,
    publish: (id: number, outcome: ReadOutcome) => {
      const before = rows.get(id);
      const day = getUkToday();
      if (outcome.kind === 'failed') {
        rows.set(id, {
          figures: before?.figures ?? NO_FIGURES,
          pending: [],
          needsReview: before?.needsReview ?? 0,
          status: 'failed',
          message: outcome.message,
          stamp: outcome.stamp,
          day,
          at: Date.now(),
        });
      } else {
        rows.set(id, {
          figures: outcome.figures,
          pending: outcome.pending,
          needsReview: before?.needsReview ?? 0,
          status: outcome.complete ? 'ready' : 'reading',
          message: null,
          stamp: outcome.stamp,
          day,
          at: Date.now(),
        });
        // Needs review is counted as the row is kept (one query for the organisation).
        void countNeedsReview([id]).then((counts) => {
          const kept = rows.get(id);
          if (kept && kept.stamp === outcome.stamp) kept.needsReview = counts.get(id) ?? 0;
          changed([id]);
        });
      }
      changed([id]);
    },
    onStateChange: (id) => changed([id]),
  });

  notices.subscribe((change) => {
    if (change.kind === 'org') changed([change.id]);
    else if (change.kind === 'user') changed('all', change.id);
    else changed('all');
  });

  async function countNeedsReview(ids: readonly number[]): Promise<Map<number, number>> {
    const wanted = new Set(ids);
    const counts = new Map<number, number>();
    for (const w of await deps.listNeedsReview())
      if (wanted.has(w.organizationId)) counts.set(w.organizationId, (counts.get(w.organizationId) ?? 0) + 1);
    return counts;
  }

  /** Whether a kept row still holds (nothing it is made of changed, the same day, a failure not yet due again). */
  function isCurrent(id: number, kept: KeptRow | undefined, day: string): kept is KeptRow {
    if (!kept || !notices.on || kept.day !== day) return false;
    if (kept.stamp !== notices.stampOf(id)) return false;
    return kept.status !== 'failed' || Date.now() - kept.at < FAILED_RETRY_MS;
  }

  function contextOf(user: SessionUser, org: OrganizationRow): RequestContext {
    return {
      organizationId: org.id,
      tenantId: org.tenantId,
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      ip: '',
      organization: org,
    };
  }

  async function healthOf(userId: number, tenantIds: string[]) {
    const kept = health.get(userId);
    if (kept && Date.now() - kept.at < HEALTH_FRESH_MS && tenantIds.every((t) => kept.byTenant.has(t)))
      return kept;
    const fresh = { at: Date.now(), byTenant: await deps.liveUpdates(tenantIds) };
    health.set(userId, fresh);
    return fresh;
  }

  /**
   * Brings the rows of these connected organisations up to date: from the cache in this request while the time
   * allows and everything is in it, the rest handed to the background reader (which also reads what is not).
   */
  async function refreshRows(user: SessionUser, orgs: OrganizationRow[], day: string): Promise<void> {
    const stale = orgs.filter((o) => !reader.stateOf(o.id) && !isCurrent(o.id, rows.get(o.id), day));
    if (stale.length === 0) return;
    const states = await repo.findReadStates(
      stale.map((o) => o.id),
      [...new Set(stale.flatMap((o) => resourcesOf(o)))],
    );
    const review = await countNeedsReview(stale.map((o) => o.id));
    const started = Date.now();
    for (const org of stale) {
      const ctx = contextOf(user, org);
      if (
        Date.now() - started > INLINE_BUDGET_MS ||
        missingReads(org, states.get(org.id), false).length > 0
      ) {
        reader.enqueue(ctx);
        continue;
      }
      const stamp = notices.stampOf(org.id);
      const value = await readCacheOnly(() => computeFigures(sources, ctx, 'cache', day)).catch(
        (error: unknown) => {
          deps.log?.warn(
            { err: error, organizationId: org.id },
            'a Today row could not be read from the cache',
          );
          return null;
        },
      );
      if (!value) {
        reader.enqueue(ctx);
        continue;
      }
      rows.set(org.id, {
        figures: value,
        pending: [],
        needsReview: review.get(org.id) ?? 0,
        status: 'ready',
        message: null,
        stamp,
        day,
        at: Date.now(),
      });
    }
  }

  function toRow(
    org: OrganizationRow,
    membership: MembershipRow,
    user: SessionUser,
    token: RequestPrincipal['xeroToken'],
    liveUpdates: WebhookHealth | null,
  ): TodayRow {
    const connection = connectionOf(membership, token);
    const base = {
      organizationId: org.id,
      tenantName: org.tenantName,
      connection: { state: connection, liveUpdates: connection === 'connected' ? liveUpdates : null },
      canReview: user.isAdmin,
    };
    if (connection !== 'connected')
      return {
        ...base,
        ...NO_FIGURES,
        pending: [],
        status: connection === 'not-connected' ? 'not-connected' : 'failed',
        message:
          connection === 'not-connected'
            ? 'Not connected to Xero'
            : 'Xero asks to reconnect: the figures are read once it is.',
        needsReview: rows.get(org.id)?.needsReview ?? 0,
      };
    const kept = rows.get(org.id);
    const job = reader.stateOf(org.id);
    return {
      ...base,
      ...(kept?.figures ?? NO_FIGURES),
      pending: job ? (kept?.pending ?? []) : [],
      needsReview: kept?.needsReview ?? 0,
      status: job ?? kept?.status ?? 'waiting',
      message: job ? null : (kept?.message ?? null),
    };
  }

  function tokenKeyOf(token: RequestPrincipal['xeroToken']): string {
    return token ? `${token.status}:${token.hasRefreshToken}` : 'none';
  }

  /** The user's answer built now: their memberships, their rows brought up to date, sorted and serialised. */
  async function build(
    user: SessionUser,
    token: RequestPrincipal['xeroToken'],
    day: string,
    tokenKey: string,
  ): Promise<CachedBody> {
    const startedAt = version;
    const memberships = await deps.listMemberships(user.id);
    const connected = memberships
      .filter((m) => connectionOf(m.membership, token) === 'connected')
      .map((m) => m.org);
    await refreshRows(user, connected, day);
    const live = await healthOf(
      user.id,
      connected.map((o) => o.tenantId),
    );
    const list = sortTodayRows(
      memberships.map(({ org, membership }) =>
        toRow(org, membership, user, token, live.byTenant.get(org.tenantId) ?? null),
      ),
    );
    const body = await packBody(version, Buffer.from(JSON.stringify(list)));
    // Kept only when nothing changed while it was built (a change then would be missing from it).
    bodies.delete(user.id);
    if (notices.on && version === startedAt && reader.size === 0) {
      bodies.set(user.id, { body, version, day, until: live.at + HEALTH_FRESH_MS, tokenKey });
      if (bodies.size > MAX_KEPT_BODIES) bodies.delete(bodies.keys().next().value ?? user.id);
      if (health.size > MAX_KEPT_BODIES) health.delete(health.keys().next().value ?? user.id);
    }
    return body;
  }

  /** Requests arriving together share one build of the user's answer (one for the same state of things). */
  function buildOnce(
    user: SessionUser,
    token: RequestPrincipal['xeroToken'],
    day: string,
    tokenKey: string,
  ): Promise<CachedBody> {
    const key = `${user.id}:${version}:${day}:${tokenKey}`;
    const running = building.get(key);
    if (running) return running;
    const promise = build(user, token, day, tokenKey).finally(() => building.delete(key));
    building.set(key, promise);
    return promise;
  }

  return {
    /**
     * GET /api/practice/today for the signed-in user: their organisations' rows, in the order of what needs
     * doing first, serialised once and kept until anything it shows changes.
     */
    async getToday(principal: RequestPrincipal): Promise<CachedBody> {
      const user = principal.session?.user;
      if (!user || principal.session?.mfaPending) throw new AppError('UNAUTHENTICATED', 'Not authenticated');
      const day = getUkToday();
      const token = principal.xeroToken;
      const tokenKey = tokenKeyOf(token);
      const kept = bodies.get(user.id);
      if (kept && notices.on && kept.version === version && kept.day === day && kept.tokenKey === tokenKey) {
        if (kept.until > Date.now()) return kept.body;
        // Only the live-update health has aged: it is read again once, the answer as it stands meanwhile.
        void buildOnce(user, token, day, tokenKey).catch((error: unknown) =>
          deps.log?.warn({ err: error }, 'the Today page could not be built again'),
        );
        return kept.body;
      }
      return buildOnce(user, token, day, tokenKey);
    },

    /**
     * Calls `fn` with the organisations whose rows may have changed, for a user's open Today page (the page asks
     * for its rows again). A change to the user's own memberships or tokens names all of them.
     */
    subscribe(userId: number, fn: (organizationIds: number[] | 'all') => void): () => void {
      const listener = (event: { organizationIds: number[] | 'all'; userId?: number }) => {
        if (event.userId !== undefined && event.userId !== userId) return;
        fn(event.organizationIds);
      };
      changes.on('change', listener);
      return () => void changes.off('change', listener);
    },

    /** The organisations a user may see (an open stream's filter). */
    async listOrganizationIds(userId: number): Promise<Set<number>> {
      return new Set((await deps.listMemberships(userId)).map((m) => m.org.id));
    },

    /** Background reads going on or queued on this instance (tests, the bench). */
    get reading(): number {
      return reader.size;
    },

    async close(): Promise<void> {
      changes.removeAllListeners();
      await reader.close();
    },
  };
}
export type PracticeService = ReturnType<typeof createPracticeService>;
