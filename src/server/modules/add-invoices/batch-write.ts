import { AppError } from '../../lib/app-error';
import type { Batcher } from '../../xero/batcher';
import type { WriteLedger, WriteSpec } from '../../ledger/index';
import type { ElementResult } from '../../xero/xero-port';
import type { AddInvoicesContext } from './context';

/**
 * One item's ledger write, sent as an element of a batch call: the item joins the batch when the ledger
 * asks to send, and leaves it when the ledger answers without sending (a replay, a conflict), so the batch
 * never waits for an item that will not come. An element Xero refused fails this item alone.
 */
export async function executeInBatch<E, A>(
  ledger: WriteLedger,
  ctx: AddInvoicesContext,
  batch: Batcher<E, ElementResult<A>>,
  element: E,
  write: Pick<
    WriteSpec<A>,
    'kind' | 'targetId' | 'amountPence' | 'idempotencyKey' | 'request' | 'audit' | 'step' | 'lookedUp'
  > & { xeroIdOf: (answer: A) => string | null },
) {
  const { xeroIdOf, ...spec } = write;
  let joined = false;
  try {
    return await ledger.execute<A>({
      organizationId: ctx.organizationId,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      ...spec,
      send: async (key) => {
        joined = true;
        const answer = await batch.join(key, element);
        if (!answer.ok) throw new AppError('XERO_REJECTED', answer.error);
        return { xeroId: xeroIdOf(answer.value), response: answer.value };
      },
    });
  } finally {
    if (!joined) batch.leave();
  }
}
