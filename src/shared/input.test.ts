import { describe, expect, it } from 'vitest';
import { isXeroId, refreshFlagSchema, xeroIdSchema } from './input';

describe('refreshFlagSchema', () => {
  it('reads true and 1 as a refresh, false, 0 and none as a cached read', () => {
    expect(['true', '1'].map((v) => refreshFlagSchema.parse(v))).toEqual([true, true]);
    expect(['false', '0', undefined].map((v) => refreshFlagSchema.parse(v))).toEqual([false, false, false]);
  });

  it('refuses anything else', () => {
    expect(refreshFlagSchema.safeParse('yes').success).toBe(false);
  });
});

describe('xeroIdSchema', () => {
  it('takes a GUID and refuses anything else, naming what it is', () => {
    expect(isXeroId('0d5f1b6e-3c1a-4b7e-9e2a-1f2d3c4b5a69')).toBe(true);
    const refused = xeroIdSchema('invoice').safeParse('INV-001');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('Invalid invoice ID');
  });
});
