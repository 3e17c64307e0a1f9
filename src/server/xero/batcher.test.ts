import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher';

/** Sends one batch of these items, joining in the order given (one item leaves without sending). */
async function sendOnce(order: string[], leaving: number) {
  const sent: Array<{ elements: string[]; batchKey: string }> = [];
  const batcher = createBatcher<string, string>(order.length + leaving, async (elements, batchKey) => {
    sent.push({ elements, batchKey });
    return elements.map((e) => `answer to ${e}`);
  });
  const answers = order.map((key) => batcher.join(key, `element ${key}`));
  for (let i = 0; i < leaving; i += 1) batcher.leave();
  return { answers: await Promise.all(answers), sent };
}

describe('the one batcher for batched Xero writes', () => {
  it('a retry of the same items sends the same body under the same key, whatever order the items joined in', async () => {
    const first = await sendOnce(['k:b', 'k:a', 'k:c'], 0);
    const retry = await sendOnce(['k:c', 'k:a', 'k:b'], 0);
    expect(first.sent).toHaveLength(1);
    expect(retry.sent).toEqual(first.sent);
    expect(first.sent[0]?.elements).toEqual(['element k:a', 'element k:b', 'element k:c']);
    // Each item gets its own element's answer back.
    expect(first.answers).toEqual([
      'answer to element k:b',
      'answer to element k:a',
      'answer to element k:c',
    ]);
  });

  it('waits for items that leave without sending, then sends the rest once; a batch all left sends nothing', async () => {
    const some = await sendOnce(['k:a'], 2);
    expect(some.sent.map((s) => s.elements)).toEqual([['element k:a']]);
    expect(some.sent[0]?.batchKey).not.toBe((await sendOnce(['k:a', 'k:b'], 0)).sent[0]?.batchKey);
    expect((await sendOnce([], 2)).sent).toEqual([]);
  });

  it("an answer with fewer or more elements than sent fails every item: none is taken as refused or given another's answer", async () => {
    for (const answer of [['only one'], ['one', 'two', 'three']]) {
      const batcher = createBatcher<string, string>(2, async () => answer);
      const results = await Promise.allSettled([batcher.join('a', 'x'), batcher.join('b', 'y')]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    }
  });

  it('a failed batch call fails every item of it', async () => {
    const batcher = createBatcher<string, string>(2, async () => {
      throw new Error('Xero unavailable');
    });
    const results = await Promise.allSettled([batcher.join('a', 'x'), batcher.join('b', 'y')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
