import {
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  inArray,
  lte,
  ne,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { Db } from '../../db/client';
import { announceLocalChange } from '../../db/local-notices';
import {
  auditLog,
  organizations,
  users,
  xeroAccounts,
  xeroContactGroups,
  xeroContacts,
  xeroInvoices,
  xeroTaxRates,
} from '../../db/schema/index';

export interface AuditFilter {
  action?: string | undefined;
  userId?: number | undefined;
  organizationId?: number | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  limit: number;
}

export function createAdminRepository(db: Db) {
  return {
    listOrganizations() {
      return db
        .select()
        .from(organizations)
        .orderBy(asc(sql`lower(coalesce(${organizations.tenantName}, ''))`), asc(organizations.id));
    },
    async updateFeatures(
      organizationId: number,
      flags: Partial<
        Record<
          'featurePayInvoices' | 'featureAddInvoices' | 'featureCisBills' | 'featureStockJournal',
          boolean
        >
      >,
    ) {
      const rows = await db
        .update(organizations)
        .set({ ...flags, updatedAt: new Date() })
        .where(eq(organizations.id, organizationId))
        .returning();
      announceLocalChange(db, `o:${organizationId}`);
      return rows[0] ?? null;
    },
    listUsers() {
      return db
        .select()
        .from(users)
        .orderBy(asc(sql`lower(${users.username})`));
    },
    async countOtherAdmins(userId: number): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.isAdmin, true), ne(users.id, userId)));
      return row?.n ?? 0;
    },
    async updateUser(userId: number, patch: { username?: string; email?: string | null; isAdmin?: boolean }) {
      const rows = await db
        .update(users)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(users.id, userId))
        .returning();
      announceLocalChange(db, `u:${userId}`);
      return rows[0] ?? null;
    },
    /**
     * What Ledgerlink's copy of Xero calls the ids an activity log page holds (issue 45 item 3): accounts (name
     * and code), contacts, VAT rates (by tax type) and contact groups of the organisations named, looked up by
     * the ids and codes gathered from the lines. Never a call to Xero.
     */
    async findAuditNames(organizationIds: number[], ids: string[]) {
      const none = { accounts: [], contacts: [], taxRates: [], groups: [] };
      if (organizationIds.length === 0 || ids.length === 0) return none;
      const [accounts, contacts, taxRates, groups] = await Promise.all([
        db
          .select({
            organizationId: xeroAccounts.organizationId,
            id: xeroAccounts.accountId,
            code: xeroAccounts.code,
            name: xeroAccounts.name,
          })
          .from(xeroAccounts)
          .where(
            and(inArray(xeroAccounts.organizationId, organizationIds), inArray(xeroAccounts.accountId, ids)),
          ),
        db
          .select({
            organizationId: xeroContacts.organizationId,
            id: xeroContacts.contactId,
            name: xeroContacts.name,
          })
          .from(xeroContacts)
          .where(
            and(inArray(xeroContacts.organizationId, organizationIds), inArray(xeroContacts.contactId, ids)),
          ),
        db
          .select({
            organizationId: xeroTaxRates.organizationId,
            id: xeroTaxRates.taxType,
            name: xeroTaxRates.name,
            rate: xeroTaxRates.rate,
          })
          .from(xeroTaxRates)
          .where(
            and(inArray(xeroTaxRates.organizationId, organizationIds), inArray(xeroTaxRates.taxType, ids)),
          ),
        db
          .select({
            organizationId: xeroContactGroups.organizationId,
            id: xeroContactGroups.groupId,
            name: xeroContactGroups.name,
          })
          .from(xeroContactGroups)
          .where(
            and(
              inArray(xeroContactGroups.organizationId, organizationIds),
              inArray(xeroContactGroups.groupId, ids),
            ),
          ),
      ]);
      return { accounts, contacts, taxRates, groups };
    },
    listAudit(query: AuditFilter) {
      const filters: SQL[] = [];
      if (query.action) filters.push(sql`${auditLog.action} like ${`${query.action}%`}`);
      if (query.userId) filters.push(eq(auditLog.userId, query.userId));
      if (query.organizationId) filters.push(eq(auditLog.organizationId, query.organizationId));
      if (query.from) filters.push(gte(auditLog.at, query.from));
      if (query.to) filters.push(lte(auditLog.at, query.to));
      // The organisation's name and, for a line about an invoice, its number as the cache holds it (issue 33
      // item 8): the log names what a person knows, never with a call to Xero.
      return db
        .select({
          ...getTableColumns(auditLog),
          organizationName: organizations.tenantName,
          cachedInvoiceNumber: xeroInvoices.invoiceNumber,
        })
        .from(auditLog)
        .leftJoin(organizations, eq(organizations.id, auditLog.organizationId))
        .leftJoin(
          xeroInvoices,
          and(
            eq(xeroInvoices.organizationId, auditLog.organizationId),
            eq(xeroInvoices.invoiceId, auditLog.target),
          ),
        )
        .where(filters.length > 0 ? and(...filters) : undefined)
        .orderBy(desc(auditLog.at), desc(auditLog.id))
        .limit(query.limit);
    },
  };
}
export type AdminRepository = ReturnType<typeof createAdminRepository>;
