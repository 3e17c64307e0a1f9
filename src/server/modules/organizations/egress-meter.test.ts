import { describe, expect, it } from 'vitest';
import { createEgressMeter, egressMonthOf } from './egress-meter';

function fakeStore() {
  const writes: Array<{ month: string; totals: Record<string, number> }> = [];
  return {
    writes,
    store: {
      async addEgress(month: string, bytesByTenant: ReadonlyMap<string, number>) {
        writes.push({ month, totals: Object.fromEntries(bytesByTenant) });
      },
    },
  };
}
const log = { warn: () => undefined };

describe('egress meter (issue 19: data downloaded from Xero, per organisation and month)', () => {
  it('adds up the answers of each organisation and writes them once per flush', async () => {
    const { store, writes } = fakeStore();
    const meter = createEgressMeter({
      store,
      log,
      flushMs: 60_000,
      now: () => new Date('2026-11-24T10:00:00Z'),
    });
    meter.record('tenant-a', 1_000);
    meter.record('tenant-a', 2_500);
    meter.record('tenant-b', 40);
    meter.record('tenant-b', 0);
    await meter.flush();
    expect(writes).toEqual([{ month: '2026-11', totals: { 'tenant-a': 3_500, 'tenant-b': 40 } }]);
    await meter.flush();
    expect(writes).toHaveLength(1);
  });

  it('counts what came before the month ended in the old month', async () => {
    const { store, writes } = fakeStore();
    let now = new Date('2026-11-30T23:59:59Z');
    const meter = createEgressMeter({ store, log, flushMs: 60_000, now: () => now });
    meter.record('tenant-a', 700);
    now = new Date('2026-12-01T00:00:01Z');
    meter.record('tenant-a', 300);
    await meter.flush();
    expect(writes).toEqual([
      { month: '2026-11', totals: { 'tenant-a': 700 } },
      { month: '2026-12', totals: { 'tenant-a': 300 } },
    ]);
  });

  it('keeps counting when a write fails, and says so in the log', async () => {
    const warned: string[] = [];
    const meter = createEgressMeter({
      store: {
        addEgress: async () => {
          throw new Error('database gone');
        },
      },
      log: { warn: (_o, m) => warned.push(m) },
      flushMs: 60_000,
    });
    meter.record('tenant-a', 10);
    await meter.flush();
    expect(warned).toEqual(['Xero egress could not be recorded']);
  });

  it('names months in UTC, as Xero counts them', () => {
    expect(egressMonthOf(new Date('2026-03-31T23:30:00-01:00'))).toBe('2026-04');
  });
});
