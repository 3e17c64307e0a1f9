import type { AdminOrganization, AdminUser, AuditQuery, FeatureTogglePatch } from '../../../shared/admin';
import { getAuditTargetLabel } from '../../../shared/admin';
import { AppError } from '../../lib/app-error';
import { describeAuditLine } from '../audit/actions';
import type { AuditActor, AuditLog } from '../audit/audit';
import type { AuditNames } from '../audit/describe';
import type { UsersRepository } from '../auth/auth.repository';
import type { LoginLimiter } from '../auth/login-limiter';
import type { AdminRepository } from './admin.repository';

export const LAST_ADMIN_MESSAGE =
  'At least one administrator must remain. Make another user an administrator first.';

type UserRow = NonNullable<Awaited<ReturnType<UsersRepository['findById']>>>;
type OrganizationRow = Awaited<ReturnType<AdminRepository['listOrganizations']>>[number];

const toAdminUser = (u: UserRow): AdminUser => ({
  id: u.id,
  username: u.username,
  email: u.email,
  isAdmin: u.isAdmin,
  isXeroUser: u.xeroUserId !== null,
});

const toAdminOrganization = (o: OrganizationRow): AdminOrganization => ({
  id: o.id,
  tenantName: o.tenantName,
  featurePayInvoices: o.featurePayInvoices,
  featureAddInvoices: o.featureAddInvoices,
  featureCisBills: o.featureCisBills,
  featureStockJournal: o.featureStockJournal,
});

type AuditRow = Awaited<ReturnType<AdminRepository['listAudit']>>[number];
type AuditNameRows = Awaited<ReturnType<AdminRepository['findAuditNames']>>;

/** The ids and codes a line's detail holds (a few levels deep): what its describer may ask the names of. */
function gatherIds(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 3 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    if (value.length > 0 && value.length <= 64) into.add(value);
    return;
  }
  if (Array.isArray(value)) for (const item of value) gatherIds(item, into, depth + 1);
  else if (typeof value === 'object')
    for (const item of Object.values(value)) gatherIds(item, into, depth + 1);
}

const sameId = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The names an organisation's lines may use, from what the repository found. */
function namesFor(found: AuditNameRows, organizationId: number | null): AuditNames {
  const of = <T extends { organizationId: number; id: string }>(rows: T[], id: unknown) =>
    typeof id === 'string'
      ? rows.find((r) => r.organizationId === organizationId && sameId(r.id, id))
      : undefined;
  return {
    account: (id) => {
      const row = of(found.accounts, id);
      return row ? (row.code ? `${row.name} (${row.code})` : row.name) : null;
    },
    contact: (id) => of(found.contacts, id)?.name ?? null,
    taxRate: (code) => {
      const row = of(found.taxRates, code);
      return row ? `${row.name} (${Number(row.rate)}%)` : null;
    },
    contactGroup: (id) => of(found.groups, id)?.name ?? null,
  };
}

/** The activity log's filters as the repository takes them: a range of whole UTC days. */
function toAuditFilter(q: AuditQuery, limit: number) {
  return {
    action: q.action,
    userId: q.userId,
    organizationId: q.organizationId,
    from: q.from ? new Date(`${q.from}T00:00:00Z`) : undefined,
    to: q.to ? new Date(`${q.to}T23:59:59.999Z`) : undefined,
    limit,
  };
}

/**
 * The administrator's work of docs/product/shell.md §7: the organisations' feature switches, the users (their
 * details, the administrator flag, sign-in locks) and the activity log. Every change is written to the
 * activity log.
 */
export function createAdminService(deps: {
  admin: AdminRepository;
  users: UsersRepository;
  audit: AuditLog;
  limiter: LoginLimiter;
}) {
  const { admin, users, audit, limiter } = deps;

  async function getUser(userId: number): Promise<UserRow> {
    const target = await users.findById(userId);
    if (!target) throw new AppError('NOT_FOUND', `User with ID ${userId} not found`);
    return target;
  }

  return {
    async listOrganizations(): Promise<AdminOrganization[]> {
      return (await admin.listOrganizations()).map(toAdminOrganization);
    },

    async updateFeatures(
      actor: AuditActor,
      organizationId: number,
      patch: FeatureTogglePatch,
    ): Promise<AdminOrganization> {
      const updated = await admin.updateFeatures(organizationId, patch);
      if (!updated) throw new AppError('NOT_FOUND', `Organization with ID ${organizationId} not found`);
      await audit.recordFor(
        { ...actor, organizationId },
        { action: 'admin.features', target: updated.tenantName, result: 'success', detail: patch },
      );
      return toAdminOrganization(updated);
    },

    async listUsers(): Promise<Array<AdminUser & { signInLocked: boolean }>> {
      const rows = await admin.listUsers();
      const locked = await limiter.findLocked(rows.map((u) => u.username));
      return rows.map((u) => ({ ...toAdminUser(u), signInLocked: locked.has(u.username) }));
    },

    /** Lifts a sign-in lock (issue 16): the account's recent failed attempts are forgotten, from every address. */
    async unlockUser(actor: AuditActor, userId: number): Promise<void> {
      const target = await getUser(userId);
      const cleared = await limiter.unlock(target.username);
      await audit.recordFor(actor, {
        action: 'admin.unlock',
        target: target.username,
        result: 'success',
        detail: { userId, attemptsCleared: cleared },
      });
    },

    /** Changes a user's name, email or administrator flag; the last administrator stays one. */
    async changeUser(
      actor: AuditActor,
      userId: number,
      patch: { username?: string; email?: string | null; isAdmin?: boolean },
    ): Promise<AdminUser> {
      const target = await getUser(userId);
      if (patch.isAdmin === false && target.isAdmin && (await admin.countOtherAdmins(userId)) === 0) {
        throw new AppError('VALIDATION_ERROR', LAST_ADMIN_MESSAGE);
      }
      if (patch.username && patch.username.toLowerCase() !== target.username.toLowerCase()) {
        const clash = await users.findByUsername(patch.username);
        if (clash && clash.id !== userId) throw new AppError('CONFLICT', 'Username already exists');
      }
      const updated = await admin.updateUser(userId, patch);
      if (!updated) throw new AppError('NOT_FOUND', `User with ID ${userId} not found`);
      await audit.recordFor(actor, {
        action: patch.isAdmin === undefined ? 'admin.user.update' : 'admin.user.admin',
        target: updated.username,
        result: 'success',
        detail: {
          userId,
          changed: Object.keys(patch),
          ...(patch.isAdmin !== undefined ? { isAdmin: patch.isAdmin } : {}),
        },
      });
      return toAdminUser(updated);
    },

    /**
     * The activity log, newest first, filtered as the query asks, at most `limit` lines; each line with its
     * target as a person knows it and its description in words (issue 45 item 3), names read from Ledgerlink's
     * copy of Xero in one query per list, whatever the number of lines.
     */
    async listAudit(
      query: AuditQuery,
      limit: number,
    ): Promise<Array<AuditRow & { targetLabel: string | null; description: string }>> {
      const rows = await admin.listAudit(toAuditFilter(query, limit));
      const ids = new Set<string>();
      const orgIds = new Set<number>();
      for (const row of rows) {
        if (row.organizationId === null) continue;
        orgIds.add(row.organizationId);
        gatherIds(row.detail, ids);
      }
      // A CSV of 5,000 lines holds a few thousand distinct values at most; past this many the rest read unnamed.
      const found = await admin.findAuditNames([...orgIds], [...ids].slice(0, 10_000));
      const byOrg = new Map<number | null, AuditNames>();
      return rows.map((row) => {
        let names = byOrg.get(row.organizationId);
        if (!names) {
          names = namesFor(found, row.organizationId);
          byOrg.set(row.organizationId, names);
        }
        const targetLabel = getAuditTargetLabel(row);
        const description = describeAuditLine(
          {
            action: row.action,
            result: row.result,
            target: row.target,
            targetLabel,
            detail: row.detail ?? {},
            organizationName: row.organizationName,
            username: row.username,
          },
          names,
        );
        return { ...row, targetLabel, description };
      });
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
