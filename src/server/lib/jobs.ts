import type { FastifyBaseLogger } from 'fastify';

/** A background job: what runs, how often, and whether it also runs once when the app is ready. */
export interface Job {
  /** Named in the warning logged when a run fails. */
  name: string;
  everyMs: number;
  /** Run once at start, before the first interval has passed. */
  runAtStart?: boolean;
  run: () => Promise<void> | void;
}

export interface Jobs {
  /** Starts every job's timer (and the runs asked for at start). Idempotent. */
  start(): void;
  /** Stops every timer; a run under way finishes on its own. */
  stop(): void;
}

/**
 * The app's background jobs in one place (src/server/wiring.ts): each on its own timer that keeps no process
 * alive, one run of a job at a time (a tick that finds the last run still going is skipped), a failed run
 * logged with the job's name and tried again at the next tick.
 */
export function createJobs(jobs: Job[], log: FastifyBaseLogger): Jobs {
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<string>();
  const runOnce = (job: Job) => {
    if (running.has(job.name)) return;
    running.add(job.name);
    void (async () => job.run())()
      .catch((error: unknown) => log.warn({ err: error, job: job.name }, `${job.name} failed`))
      .finally(() => running.delete(job.name));
  };
  return {
    start() {
      if (timers.length > 0) return;
      for (const job of jobs) {
        const timer = setInterval(() => runOnce(job), job.everyMs);
        timer.unref();
        timers.push(timer);
        if (job.runAtStart) runOnce(job);
      }
    },
    stop() {
      for (const timer of timers.splice(0)) clearInterval(timer);
    },
  };
}
