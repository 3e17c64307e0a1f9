import type { Db } from '../../db/client';
import { auditLog } from '../../db/schema/index';
import type { AuditAction } from './actions';

export type { AuditAction };

export interface AuditRecord {
  userId?: number | null;
  username?: string | null;
  organizationId?: number | null;
  /** A registered action, with its describer beside the code that records it (src/server/modules/audit/actions.ts). */
  action: AuditAction;
  target?: string | null;
  result: 'success' | 'failure';
  detail?: Record<string, unknown>;
  ip?: string | null;
}

/** Who acted, for which organisation and from where: what a request's context (or a service's actor) carries. */
export interface AuditActor {
  userId: number;
  username: string;
  organizationId?: number | null | undefined;
  ip?: string | null | undefined;
}

/** Appends one line to the audit log. Never throws: a failed audit write must not fail the user's action. */
export function createAuditLog(db: Db, log: { warn: (obj: object, msg: string) => void }) {
  async function record(entry: AuditRecord): Promise<void> {
    try {
      await db.insert(auditLog).values({
        userId: entry.userId ?? null,
        username: entry.username ?? null,
        organizationId: entry.organizationId ?? null,
        action: entry.action,
        target: entry.target ?? null,
        result: entry.result,
        detail: entry.detail ?? null,
        ip: entry.ip ?? null,
      });
    } catch (error) {
      log.warn({ err: error, action: entry.action }, 'audit write failed');
    }
  }
  return {
    record,
    /** One line for what `actor` did: who, for which organisation and from where come from the actor. */
    recordFor(actor: AuditActor, entry: Omit<AuditRecord, 'userId' | 'username' | 'organizationId' | 'ip'>) {
      return record({
        userId: actor.userId,
        username: actor.username,
        organizationId: actor.organizationId ?? null,
        ip: actor.ip ?? null,
        ...entry,
      });
    },
  };
}
export type AuditLog = ReturnType<typeof createAuditLog>;
