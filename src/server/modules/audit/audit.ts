import type { Db } from '../../db/client';
import { auditLog } from '../../db/schema/index.ts';

export interface AuditEntry {
  userId?: number | null;
  username?: string | null;
  organizationId?: number | null;
  action: string;
  target?: string | null;
  result: 'success' | 'failure';
  detail?: Record<string, unknown>;
  ip?: string | null;
}

/** Appends one line to the audit log. Never throws: a failed audit write must not fail the user's action. */
export function createAuditLog(db: Db, log: { warn: (obj: object, msg: string) => void }) {
  return {
    async record(entry: AuditEntry): Promise<void> {
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
    },
  };
}
export type AuditLog = ReturnType<typeof createAuditLog>;
