import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { xeroWrites } from '../db/schema/index';
import { AppError } from '../lib/app-error';
import { OPEN_WRITE_STATES, type WriteKind } from './rules';
import type { Tx, WriteAudit, WriteRow } from './types';

/** How the message refusing a second writer names what the first one is doing ("being approved"). */
const DOCUMENT_VERBS: Record<WriteKind, string> = {
  'invoice.approve': 'approved',
  'invoice.create': 'created',
  payment: 'paid',
  'payment.delete': 'changed (a payment is being undone)',
  'cash.pending': 'given pending cash',
  'bill.create': 'created',
  'bill.update': 'edited',
  'bill.approve': 'approved',
  'bill.delete': 'deleted',
  'journal.create': 'posted',
};

/** "INV-2015 is being approved by carol; try again in a moment." */
export function describeBusyDocument(row: Pick<WriteRow, 'kind' | 'documentLabel' | 'audit'>): string {
  const who = (row.audit as WriteAudit | null)?.username ?? 'another user';
  const verb = DOCUMENT_VERBS[row.kind] ?? 'changed';
  return `${row.documentLabel ?? 'This document'} is being ${verb} by ${who}; try again in a moment.`;
}

/**
 * One writer per document: refuses (409, naming who is doing what) when a write on the document is open
 * under a key other than `ownKeys`. Call inside a transaction; the advisory lock is held until it ends, so
 * the check and the insert that follows are one step for every instance.
 */
export async function lockDocument(
  tx: Tx,
  organizationId: number,
  document: string,
  ownKeys: readonly string[],
) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${organizationId}:document:${document}`}))`);
  const [busy] = await tx
    .select()
    .from(xeroWrites)
    .where(
      and(
        eq(xeroWrites.organizationId, organizationId),
        eq(xeroWrites.document, document),
        inArray(xeroWrites.state, [...OPEN_WRITE_STATES]),
        ...(ownKeys.length > 0 ? [notInArray(xeroWrites.idempotencyKey, [...ownKeys])] : []),
      ),
    )
    .orderBy(xeroWrites.id)
    .limit(1);
  if (busy)
    throw new AppError('CONFLICT', describeBusyDocument(busy), undefined, {
      writeId: busy.id,
      writeState: 'busy',
    });
}
