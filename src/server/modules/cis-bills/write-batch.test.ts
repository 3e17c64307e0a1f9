import { describe, expect, it, vi } from 'vitest';
import { createWriteBatch } from './write-batch';

describe('write batch', () => {
  it('sends once every expected write has handed over its element or settled without sending', async () => {
    const flush = vi.fn(async (entries: { key: string; element: number }[]) =>
      entries.map((e) => e.element * 10),
    );
    const batch = createWriteBatch<number, number>(3, flush);
    const a = batch.submit('a', 1);
    expect(flush).not.toHaveBeenCalled();
    batch.skip();
    const b = batch.submit('b', 2);
    expect(await Promise.all([a, b])).toEqual([10, 20]);
    expect(flush).toHaveBeenCalledTimes(1);
    expect(flush.mock.calls[0]?.[0]).toEqual([
      { key: 'a', element: 1 },
      { key: 'b', element: 2 },
    ]);
  });

  it('sends nothing when every write settled without sending', () => {
    const flush = vi.fn(async () => []);
    const batch = createWriteBatch<number, number>(2, flush);
    batch.skip();
    batch.skip();
    expect(flush).not.toHaveBeenCalled();
  });

  it('fails every element when the call fails or answers the wrong number of elements', async () => {
    const failing = createWriteBatch<number, number>(2, async () => {
      throw new Error('network');
    });
    const results = await Promise.allSettled([failing.submit('a', 1), failing.submit('b', 2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const short = createWriteBatch<number, number>(2, async () => [1]);
    const shortResults = await Promise.allSettled([short.submit('a', 1), short.submit('b', 2)]);
    expect(shortResults.every((r) => r.status === 'rejected')).toBe(true);
  });
});
