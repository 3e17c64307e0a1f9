import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CisContact } from '@/shared/cis-bills';
import { createCisCheckQueue } from './cis-check-queue';

const contact = (id: string): CisContact => ({
  id,
  name: id,
  isContractor: true,
  isSupplier: true,
  hasValidUTR: true,
  cisChecked: true,
});

describe('CIS check queue (issue 19)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gathers the ids of one window into one request, each once, in batches of at most 50', async () => {
    const send = vi.fn((ids: string[]) => Promise.resolve(ids.map(contact)));
    const onChecked = vi.fn();
    const queue = createCisCheckQueue({ send, onChecked, onFailed: vi.fn(), windowMs: 150 });
    const ids = Array.from({ length: 60 }, (_, i) => `c${i}`);
    const first = queue.request(ids.slice(0, 30));
    const second = queue.request(ids.slice(20));
    expect(send).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(150);
    await Promise.all([first, second]);
    expect(send.mock.calls.map(([sent]) => sent.length)).toEqual([50, 10]);
    expect(new Set(send.mock.calls.flatMap(([sent]) => sent))).toEqual(new Set(ids));
    expect(onChecked).toHaveBeenCalledTimes(2);
  });

  it('an id on its way is not asked again; immediate sends at once; a failure is reported', async () => {
    let fail = false;
    const send = vi.fn((ids: string[]) =>
      fail ? Promise.reject(new Error('Xero unavailable')) : Promise.resolve(ids.map(contact)),
    );
    const onFailed = vi.fn();
    const queue = createCisCheckQueue({ send, onChecked: vi.fn(), onFailed, windowMs: 150 });
    const picked = queue.request(['a'], { immediate: true });
    expect(send).toHaveBeenCalledWith(['a']);
    const again = queue.request(['a']);
    await Promise.all([picked, again]);
    expect(send).toHaveBeenCalledTimes(1);
    fail = true;
    await queue.request(['b'], { immediate: true });
    expect(onFailed).toHaveBeenCalledWith(['b'], expect.any(Error));
  });
});
