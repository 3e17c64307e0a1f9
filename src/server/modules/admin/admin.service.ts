import type { AdminOrganization, AdminUser, AuditQuery, FeatureTogglePatch } from '../../../shared/admin';
import { AppError } from '../../lib/app-error';
import type { AuditActor, AuditLog } from '../audit/audit';
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

    /** The activity log, newest first, filtered as the query asks, at most `limit` lines. */
    listAudit(query: AuditQuery, limit: number) {
      return admin.listAudit(toAuditFilter(query, limit));
    },
  };
}
export type AdminService = ReturnType<typeof createAdminService>;
