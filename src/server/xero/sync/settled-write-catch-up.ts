import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroInvoices } from '../../db/schema/index';
import type { LiveEvents } from '../../lib/live-events';
import { describeInvoiceChange } from '../webhooks/processor';
import type { WriteLedger, WriteRow } from '../../ledger/index';
import type { SyncContext } from './context';
import type { XeroSync } from './sync.service';

/** How long the catch-up keeps trying to read a settled write's changes before leaving them to a refresh. */
const GIVE_UP_MS = 24 * 60 * 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The Xero invoices (sales invoices and bills) a settled write changed, as the ledger describes it: its target
 * (the invoice a payment, an approval, a bill's edit or pending cash is on), what it created (a new invoice or
 * bill: its Xero id), or the invoice its request names (a payment's deletion). A journal changes none.
 */
export function invoicesOfWrite(row: WriteRow): string[] {
  const request = (row.request ?? {}) as { invoiceId?: unknown };
  const ids: unknown[] = [];
  if (row.kind === 'invoice.create' || row.kind === 'bill.create') ids.push(row.xeroId);
  else if (row.kind !== 'journal.create') ids.push(row.targetId, request.invoiceId);
  return [
    ...new Set(
      ids.filter((id): id is string => typeof id === 'string' && UUID.test(id)).map((id) => id.toLowerCase()),
    ),
  ];
}

interface Logger {
  warn(obj: object, msg: string): void;
}

/**
 * Puts the cache right after the ledger settles a write without the request that made it (issue 44): a look-up
 * after a crash or a lost answer, the reconciler finishing a step, an administrator's decision, a restore's
 * look-up. Those writes are flagged `views_due` in the transaction that settles them; here the invoices they
 * changed are read from Xero (one call per 40 ids and organisation, `GET /Invoices?IDs=…`, newest wins) and every
 * open screen of the organisation is told through the live events it already listens to, so the lists show
 * Xero's figures within seconds without webhooks and without anyone's refresh. Then the flags are cleared; a
 * read that fails (Xero down, no connected user) leaves them for the next pass. Runs after each reconcile pass
 * and whenever this instance settles such a write.
 */
export function createWriteCatchUp(deps: {
  db: Db;
  ledger: Pick<WriteLedger, 'listViewsDue' | 'clearViewsDue'>;
  sync: Pick<XeroSync, 'refreshInvoicesByIds'>;
  live: Pick<LiveEvents, 'publish'>;
  log?: Logger;
}) {
  const { db, ledger, sync, live } = deps;
  let running: Promise<number> | null = null;
  let again = false;

  async function cachedRows(organizationId: number, ids: readonly string[]) {
    if (ids.length === 0) return new Map<string, typeof xeroInvoices.$inferSelect>();
    const rows = await db
      .select()
      .from(xeroInvoices)
      .where(
        and(
          eq(xeroInvoices.organizationId, organizationId),
          inArray(sql`lower(${xeroInvoices.invoiceId})`, [...ids]),
        ),
      );
    return new Map(rows.map((r) => [r.invoiceId.toLowerCase(), r]));
  }

  /** One organisation's due writes: their invoices read into the cache, the screens told, the flags cleared. */
  async function catchUpOrganization(tenantId: string, writes: WriteRow[]): Promise<boolean> {
    const organizationId = writes[0]?.organizationId;
    if (organizationId === undefined) return true;
    const ids = [...new Set(writes.flatMap(invoicesOfWrite))];
    const before = await cachedRows(organizationId, ids);
    let read: Awaited<ReturnType<XeroSync['refreshInvoicesByIds']>>['rows'] = [];
    if (ids.length > 0) {
      // Asked as a user who made one of the writes (their Xero connection), the first that can ask.
      const users = [...new Set(writes.flatMap((w) => (w.userId === null ? [] : [w.userId])))];
      let lastError: unknown = new Error('no user left to ask Xero as');
      let done = false;
      for (const userId of users) {
        const ctx: SyncContext = { organizationId, tenantId, userId };
        try {
          read = (await sync.refreshInvoicesByIds(ctx, ids)).rows;
          done = true;
          break;
        } catch (error) {
          lastError = error;
        }
      }
      if (!done) {
        // A day of trying (nobody of the organisation connected, say): given up, the next refresh reads Xero.
        const stale = writes.filter(
          (w) => Date.now() - (w.completedAt ?? w.createdAt).getTime() > GIVE_UP_MS,
        );
        await ledger.clearViewsDue(stale.map((w) => w.id));
        deps.log?.warn(
          { err: lastError, organizationId, givenUp: stale.length },
          'settled writes could not be read into the cache yet; trying again at the next pass',
        );
        return false;
      }
    }
    const changes = read.map((row) => describeInvoiceChange(before.get(row.invoiceId.toLowerCase()), row));
    // Told even when nothing Xero holds changed (pending cash, a journal): the screens read their lists again.
    await live.publish(organizationId, 'invoices', { invoices: changes });
    await ledger.clearViewsDue(writes.map((w) => w.id));
    return true;
  }

  async function once(): Promise<number> {
    const due = await ledger.listViewsDue();
    const byOrganization = new Map<number, { tenantId: string; writes: WriteRow[] }>();
    for (const { write, tenantId } of due) {
      const group = byOrganization.get(write.organizationId) ?? { tenantId, writes: [] };
      group.writes.push(write);
      byOrganization.set(write.organizationId, group);
    }
    let caughtUp = 0;
    for (const { tenantId, writes } of byOrganization.values()) {
      try {
        if (await catchUpOrganization(tenantId, writes)) caughtUp += writes.length;
      } catch (error) {
        deps.log?.warn({ err: error }, 'catching the cache up with settled writes failed');
      }
    }
    return caughtUp;
  }

  return {
    /**
     * One pass over the writes whose views are due, one at a time per instance (a call during a pass queues one
     * more). Answers how many writes the cache caught up with.
     */
    run(): Promise<number> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        let total = 0;
        do {
          again = false;
          total += await once();
        } while (again);
        return total;
      })().finally(() => {
        running = null;
      });
      return running;
    },
  };
}
export type WriteCatchUp = ReturnType<typeof createWriteCatchUp>;
