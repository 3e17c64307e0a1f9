import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { createJobs } from './jobs';

function fakeLog() {
  const warnings: unknown[][] = [];
  return {
    log: { warn: (...args: unknown[]) => warnings.push(args) } as unknown as FastifyBaseLogger,
    warnings,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('background jobs (src/server/wiring.ts)', () => {
  it('runs each job on its interval, once at start when asked, and never again after stop', async () => {
    vi.useFakeTimers();
    const { log } = fakeLog();
    const runs = { sweep: 0, reconcile: 0 };
    const jobs = createJobs(
      [
        { name: 'sweep', everyMs: 1_000, run: () => void runs.sweep++ },
        { name: 'reconcile', everyMs: 5_000, runAtStart: true, run: () => void runs.reconcile++ },
      ],
      log,
    );
    jobs.start();
    jobs.start(); // a second start adds no timers
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toEqual({ sweep: 0, reconcile: 1 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toEqual({ sweep: 5, reconcile: 2 });
    jobs.stop();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(runs).toEqual({ sweep: 5, reconcile: 2 });
  });

  it('runs one pass of a job at a time: a tick that finds the last pass still going is skipped', async () => {
    vi.useFakeTimers();
    const { log } = fakeLog();
    let started = 0;
    let finish: () => void = () => undefined;
    const jobs = createJobs(
      [
        {
          name: 'reconcile',
          everyMs: 1_000,
          run: () => {
            started++;
            return new Promise<void>((resolve) => (finish = resolve));
          },
        },
      ],
      log,
    );
    jobs.start();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(started).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toBe(2);
    jobs.stop();
  });

  it('logs a failed pass with the job name and runs it again at the next tick', async () => {
    vi.useFakeTimers();
    const { log, warnings } = fakeLog();
    let calls = 0;
    const jobs = createJobs(
      [
        {
          name: 'reconcile',
          everyMs: 1_000,
          run: async () => {
            calls++;
            if (calls === 1) throw new Error('Xero unavailable');
          },
        },
      ],
      log,
    );
    jobs.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[1]).toBe('reconcile failed');
    jobs.stop();
  });
});
