import { and, asc, eq, inArray, isNull, lt, notInArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { createPreparedStatement, readJsonRow } from '../../db/prepared';
import { organizations, userOrganizations, xeroConnectionChecks, xeroTokens } from '../../db/schema/index';
import type { XeroTenantConnection } from '../../xero/xero-port';

export type OrganizationRow = typeof organizations.$inferSelect;

/**
 * The columns of an organisation that meter Xero's answers (calls left this minute and today, bytes downloaded
 * this month), rewritten after nearly every Xero call. They say nothing about who may do what, so they are not
 * kept with a request's principal and their updates announce no change (migration 0020, decision 032): read
 * them from the database (`listForUser`), never from a request's context.
 */
export const ORGANIZATION_METERS = [
  'rateMinuteRemaining',
  'rateDayRemaining',
  'rateUpdatedAt',
  'egressMonth',
  'egressBytes',
] as const;

/** An organisation as a request's principal holds it: everything but its meters. */
export type OrganizationAccessRow = Omit<OrganizationRow, (typeof ORGANIZATION_METERS)[number]>;
export type MembershipRow = typeof userOrganizations.$inferSelect;

/** A user's organisations with their memberships, by name: the organisation list and switcher read it often. */
const LIST_FOR_USER_SQL = `select row_to_json(o)::text as org, row_to_json(uo)::text as membership
from user_organizations uo join organizations o on o.id = uo.organization_id
where uo.user_id = $1::int order by o.tenant_name asc`;

export function createOrganizationsRepository(database: Database) {
  const db = database.db;
  // Planned once, and one JSON column per row instead of forty for PGlite to decode (src/server/db/prepared.ts).
  const listForUserStatement = createPreparedStatement(database, LIST_FOR_USER_SQL);
  return {
    /**
     * Records what Xero's GET /connections says this user has connected: organisations are created or
     * renamed, the user is linked to each, and links Xero no longer lists are marked not connected with
     * `missing` as the reason (issue 45 item 1: 'not-included' after a consent that left them out, 'removed'
     * when Xero stopped listing them). After a consent (`consented`) each organisation in it was connected now:
     * its "Last connected" moves. The user keeps (or gets) exactly one active connected organisation.
     * Answers the organisations listed and the memberships this call turned from connected to not.
     *
     * A check's list (`readAt`: when it was asked of Xero) may be older than a change recorded while it was on its
     * way: the connections watch and a person's check of the same user run side by side (issue 45). Such a list
     * changes no membership that changed after `readAt`: it neither brings back one dropped since (another check's
     * newer list no longer had it) nor drops one connected or chosen since (a consent, an activation). The next
     * check, with a newer list, settles it.
     */
    async syncConnections(
      userId: number,
      connections: XeroTenantConnection[],
      options: { missing?: 'removed' | 'not-included'; consented?: boolean; readAt?: Date } = {},
    ): Promise<{ orgs: OrganizationRow[]; dropped: OrganizationRow[] }> {
      const missing = options.missing ?? 'removed';
      const readAt = options.readAt;
      const synced = await db.transaction(async (tx) => {
        const now = new Date();
        const orgs: OrganizationRow[] = [];
        for (const c of connections) {
          const [org] = await tx
            .insert(organizations)
            .values({ tenantId: c.tenantId, tenantName: c.tenantName })
            .onConflictDoUpdate({
              target: organizations.tenantId,
              set: { tenantName: c.tenantName, updatedAt: now },
            })
            .returning();
          if (!org) continue;
          const connectedNow = {
            connectionId: c.connectionId,
            connected: true,
            disconnectedReason: null,
            disconnectedAt: null,
            ...(options.consented ? { lastAccessed: now } : {}),
          };
          const [applied] = await tx
            .insert(userOrganizations)
            .values({ userId, organizationId: org.id, ...connectedNow })
            .onConflictDoUpdate({
              target: [userOrganizations.userId, userOrganizations.organizationId],
              set: connectedNow,
              ...(readAt
                ? {
                    setWhere: or(
                      isNull(userOrganizations.disconnectedAt),
                      lt(userOrganizations.disconnectedAt, readAt),
                    ),
                  }
                : {}),
            })
            .returning({ organizationId: userOrganizations.organizationId });
          if (applied) orgs.push(org);
        }
        const keep = orgs.map((o) => o.id);
        const dropped = await tx
          .update(userOrganizations)
          .set({ connected: false, isActive: false, disconnectedReason: missing, disconnectedAt: now })
          .where(
            and(
              eq(userOrganizations.userId, userId),
              eq(userOrganizations.connected, true),
              keep.length > 0 ? notInArray(userOrganizations.organizationId, keep) : sql`true`,
              readAt
                ? or(isNull(userOrganizations.lastAccessed), lt(userOrganizations.lastAccessed, readAt))
                : sql`true`,
            ),
          )
          .returning({ organizationId: userOrganizations.organizationId });
        const active = await tx
          .select()
          .from(userOrganizations)
          .where(
            and(
              eq(userOrganizations.userId, userId),
              eq(userOrganizations.isActive, true),
              eq(userOrganizations.connected, true),
            ),
          );
        if (active.length === 0 && orgs.length > 0) {
          const first = [...orgs].sort((a, b) => (a.tenantName ?? '').localeCompare(b.tenantName ?? ''))[0];
          if (first) {
            await tx
              .update(userOrganizations)
              .set({ isActive: true, lastAccessed: now })
              .where(
                and(eq(userOrganizations.userId, userId), eq(userOrganizations.organizationId, first.id)),
              );
          }
        }
        const droppedIds = dropped.map((d) => d.organizationId);
        const droppedOrgs =
          droppedIds.length > 0
            ? await tx.select().from(organizations).where(inArray(organizations.id, droppedIds))
            : [];
        return { orgs, dropped: droppedOrgs };
      });
      announceLocalChange(db, `u:${userId}`, ...synced.orgs.map((org) => `o:${org.id}`));
      return synced;
    },

    async listForUser(userId: number): Promise<Array<{ org: OrganizationRow; membership: MembershipRow }>> {
      const rows = await listForUserStatement.run([userId]);
      return rows.map((row) => ({
        org: readJsonRow(organizations, JSON.parse(String(row.org)) as Record<string, unknown>),
        membership: readJsonRow(
          userOrganizations,
          JSON.parse(String(row.membership)) as Record<string, unknown>,
        ),
      }));
    },

    async findMembership(userId: number, organizationId: number) {
      const rows = await db
        .select({ org: organizations, membership: userOrganizations })
        .from(userOrganizations)
        .innerJoin(organizations, eq(organizations.id, userOrganizations.organizationId))
        .where(
          and(eq(userOrganizations.userId, userId), eq(userOrganizations.organizationId, organizationId)),
        )
        .limit(1);
      return rows[0] ?? null;
    },

    async findActive(userId: number) {
      const rows = await db
        .select({ org: organizations, membership: userOrganizations })
        .from(userOrganizations)
        .innerJoin(organizations, eq(organizations.id, userOrganizations.organizationId))
        .where(and(eq(userOrganizations.userId, userId), eq(userOrganizations.isActive, true)))
        .limit(1);
      return rows[0] ?? null;
    },

    async setActive(userId: number, organizationId: number): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .update(userOrganizations)
          .set({ isActive: false })
          .where(and(eq(userOrganizations.userId, userId), eq(userOrganizations.isActive, true)));
        await tx
          .update(userOrganizations)
          .set({ isActive: true, lastAccessed: new Date() })
          .where(
            and(eq(userOrganizations.userId, userId), eq(userOrganizations.organizationId, organizationId)),
          );
      });
      announceLocalChange(db, `u:${userId}`);
    },

    /** Disconnect on a card (issue 33 item 4): not connected, with the reason recorded (issue 45 item 1). */
    async markDisconnected(userId: number, organizationIds?: number[]): Promise<void> {
      await db
        .update(userOrganizations)
        .set({
          connected: false,
          isActive: false,
          disconnectedReason: 'disconnected',
          disconnectedAt: new Date(),
        })
        .where(
          and(
            eq(userOrganizations.userId, userId),
            organizationIds
              ? inArray(userOrganizations.organizationId, organizationIds.length > 0 ? organizationIds : [-1])
              : sql`true`,
          ),
        );
      announceLocalChange(db, `u:${userId}`);
    },

    /** A consent left out the organisation the user asked to connect (issue 45 item 1): said on its card. */
    async markNotIncluded(userId: number, organizationId: number): Promise<void> {
      await db
        .update(userOrganizations)
        .set({
          connected: false,
          isActive: false,
          disconnectedReason: 'not-included',
          disconnectedAt: new Date(),
        })
        .where(
          and(eq(userOrganizations.userId, userId), eq(userOrganizations.organizationId, organizationId)),
        );
      announceLocalChange(db, `u:${userId}`);
    },

    async updateRateLimits(
      tenantId: string,
      limits: { minuteRemaining: number | null; dayRemaining: number | null },
    ): Promise<void> {
      await db
        .update(organizations)
        .set({
          ...(limits.minuteRemaining !== null ? { rateMinuteRemaining: limits.minuteRemaining } : {}),
          ...(limits.dayRemaining !== null ? { rateDayRemaining: limits.dayRemaining } : {}),
          rateUpdatedAt: new Date(),
        })
        .where(eq(organizations.tenantId, tenantId));
    },

    /** Adds each tenant's bytes to its total for `month`; a row last counted in another month starts again. */
    async addEgress(month: string, bytesByTenant: ReadonlyMap<string, number>): Promise<void> {
      for (const [tenantId, bytes] of bytesByTenant) {
        await db
          .update(organizations)
          .set({
            egressBytes: sql`CASE WHEN ${organizations.egressMonth} = ${month} THEN ${organizations.egressBytes} + ${bytes} ELSE ${bytes} END`,
            egressMonth: month,
          })
          .where(eq(organizations.tenantId, tenantId));
      }
    },

    /**
     * The users whose Xero connections the watch reads now (issue 45 item 2), claimed so that no other instance
     * reads them this round: a working token, a connected organisation, someone signed in (a session seen after
     * `seenAfter`), and not read since `dueBefore`. At most `limit`, the longest unread first.
     */
    async claimConnectionChecks(options: {
      dueBefore: Date;
      seenAfter: Date;
      limit: number;
    }): Promise<number[]> {
      const due = options.dueBefore.toISOString();
      const seen = options.seenAfter.toISOString();
      const candidates = await db
        .select({ userId: xeroTokens.userId })
        .from(xeroTokens)
        .leftJoin(xeroConnectionChecks, eq(xeroConnectionChecks.userId, xeroTokens.userId))
        .where(
          and(
            eq(xeroTokens.status, 'active'),
            or(isNull(xeroConnectionChecks.checkedAt), lt(xeroConnectionChecks.checkedAt, new Date(due))),
            sql`exists (select 1 from sessions s where s.user_id = ${xeroTokens.userId} and s.expires_at > now()
              and s.last_seen_at > ${seen}::timestamptz and not s.mfa_pending)`,
            sql`exists (select 1 from user_organizations uo where uo.user_id = ${xeroTokens.userId} and uo.connected)`,
          ),
        )
        .orderBy(sql`${xeroConnectionChecks.checkedAt} asc nulls first`, asc(xeroTokens.userId))
        .limit(options.limit);
      if (candidates.length === 0) return [];
      const now = new Date();
      // The claim: a row another instance moved past `dueBefore` meanwhile is not updated, so not returned.
      const claimed = await db
        .insert(xeroConnectionChecks)
        .values(candidates.map((c) => ({ userId: c.userId, checkedAt: now })))
        .onConflictDoUpdate({
          target: xeroConnectionChecks.userId,
          set: { checkedAt: now },
          setWhere: lt(xeroConnectionChecks.checkedAt, new Date(due)),
        })
        .returning({ userId: xeroConnectionChecks.userId });
      return claimed.map((c) => c.userId);
    },

    async findById(organizationId: number) {
      const rows = await db.select().from(organizations).where(eq(organizations.id, organizationId)).limit(1);
      return rows[0] ?? null;
    },
  };
}
export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
