import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import { createPreparedStatement, readJsonRow } from '../../db/prepared';
import { organizations, userOrganizations } from '../../db/schema/index';
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
     * renamed, the user is linked to each, and links Xero no longer lists are marked disconnected.
     * The user keeps (or gets) exactly one active connected organisation.
     */
    async syncConnections(userId: number, connections: XeroTenantConnection[]): Promise<OrganizationRow[]> {
      const synced = await db.transaction(async (tx) => {
        const orgs: OrganizationRow[] = [];
        for (const c of connections) {
          const [org] = await tx
            .insert(organizations)
            .values({ tenantId: c.tenantId, tenantName: c.tenantName })
            .onConflictDoUpdate({
              target: organizations.tenantId,
              set: { tenantName: c.tenantName, updatedAt: new Date() },
            })
            .returning();
          if (!org) continue;
          orgs.push(org);
          await tx
            .insert(userOrganizations)
            .values({ userId, organizationId: org.id, connectionId: c.connectionId, connected: true })
            .onConflictDoUpdate({
              target: [userOrganizations.userId, userOrganizations.organizationId],
              set: { connectionId: c.connectionId, connected: true },
            });
        }
        const keep = orgs.map((o) => o.id);
        await tx
          .update(userOrganizations)
          .set({ connected: false, isActive: false })
          .where(
            and(
              eq(userOrganizations.userId, userId),
              keep.length > 0 ? notInArray(userOrganizations.organizationId, keep) : sql`true`,
            ),
          );
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
              .set({ isActive: true, lastAccessed: new Date() })
              .where(
                and(eq(userOrganizations.userId, userId), eq(userOrganizations.organizationId, first.id)),
              );
          }
        }
        return orgs;
      });
      announceLocalChange(db, `u:${userId}`, ...synced.map((org) => `o:${org.id}`));
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

    async markDisconnected(userId: number, organizationIds?: number[]): Promise<void> {
      await db
        .update(userOrganizations)
        .set({ connected: false, isActive: false })
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

    async findById(organizationId: number) {
      const rows = await db.select().from(organizations).where(eq(organizations.id, organizationId)).limit(1);
      return rows[0] ?? null;
    },
  };
}
export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
