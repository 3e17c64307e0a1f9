import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client';
import type { ModuleEntry } from '../../wiring/module-entry';
import { createAuditLog } from './audit';

/**
 * The activity log's entry (issue 46): the log every module writes to (issue 45 item 3). It has no routes of its
 * own (Admin's activity page reads it); src/server/wiring.ts builds it first and hands it to the shared parts.
 */
export function auditModule(db: Db, log: FastifyBaseLogger) {
  return { service: createAuditLog(db, log) } satisfies ModuleEntry;
}
