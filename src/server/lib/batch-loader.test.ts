import { describe, expect, it } from 'vitest';
import { createBatchLoader } from './batch-loader';

describe('batch loader', () => {
  it('answers keys that arrive together with one call, each with its own value, equal keys asked once', async () => {
    const calls: string[][] = [];
    const loader = createBatchLoader<string, string>({
      maxInFlight: 1,
      maxBatch: 100,
      identify: (key) => key,
      run: async (keys) => {
        calls.push(keys);
        return keys.map((k) => `value of ${k}`);
      },
    });
    const answers = await Promise.all(['a', 'b', 'a', 'c'].map((k) => loader.load(k)));
    expect(answers).toEqual(['value of a', 'value of b', 'value of a', 'value of c']);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });

  it('queues what arrives while a call is running into the next call, never more than maxInFlight at once', async () => {
    let running = 0;
    let most = 0;
    const batches: number[][] = [];
    const loader = createBatchLoader<number, number>({
      maxInFlight: 2,
      maxBatch: 3,
      identify: String,
      run: async (keys) => {
        running += 1;
        most = Math.max(most, running);
        batches.push(keys);
        await new Promise((resolve) => setTimeout(resolve, 10));
        running -= 1;
        return keys.map((k) => k * 2);
      },
    });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => loader.load(i)));
    expect(answers).toEqual(Array.from({ length: 10 }, (_, i) => i * 2));
    expect(most).toBeLessThanOrEqual(2);
    expect(batches.every((b) => b.length <= 3)).toBe(true);
    expect(batches.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('fails every request of a failed call, and the next call runs afresh', async () => {
    let fail = true;
    const loader = createBatchLoader<string, string>({
      maxInFlight: 1,
      maxBatch: 10,
      identify: (key) => key,
      run: async (keys) => {
        if (fail) throw new Error('database unavailable');
        return keys;
      },
    });
    const failed = await Promise.allSettled([loader.load('a'), loader.load('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await loader.load('c')).toBe('c');
  });
});
