import { AppError } from '../../lib/app-error';

/**
 * Keeps one Xero organisation's calls within Xero's limits: at most 5 in flight and 60 in any rolling
 * minute (a rolling window also satisfies Xero's per-minute count), a pause after a 429's Retry-After, and
 * a stop when the day's budget (X-DayLimit-Remaining) is spent. Waiters are served first come, first served.
 *
 * A call counts in the minute from the moment its answer arrives, not from the moment it was started: Xero
 * counts a call when it receives it, which is somewhere in between, and a call that left late (a busy event
 * loop) would otherwise make Xero's window look shorter than ours. Calls in flight count too, so at most
 * 60 are ever answered-or-pending within any 60 seconds. (Found by the full-size stress suite.)
 */
export interface TenantGateOptions {
  maxInFlight: number;
  perMinute: number;
  /** Extra spacing on the minute window, for clock and network skew between us and Xero. */
  windowMs: number;
}

export const XERO_LIMITS: TenantGateOptions = { maxInFlight: 5, perMinute: 60, windowMs: 60_500 };

/**
 * What the Xero client needs of a gate: this in-memory one (one instance, PGlite) or the one shared through
 * PostgreSQL (shared-gate.ts). `acquire` rejects with XERO_RATE_LIMITED while the day's budget is spent.
 */
export interface XeroGate {
  acquire(): Promise<void>;
  release(): void;
  pause(ms: number): void;
  /** A daily-limit 429: no call starts for `ms`. */
  blockDay(ms: number): void;
  /** Calls of this instance waiting for a slot. */
  readonly pending: number;
  dayRemaining: number | null;
  minuteRemaining: number | null;
}

export function dayLimitError(): AppError {
  return new AppError(
    'XERO_RATE_LIMITED',
    "Xero's daily call limit for this organisation has been reached. Please try again tomorrow.",
  );
}

export class TenantGate implements XeroGate {
  private inFlight = 0;
  /** When each answer of the last minute arrived. */
  private readonly starts: number[] = [];
  private readonly waiters: Array<() => void> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  dayRemaining: number | null = null;
  /** After a daily-limit 429: no call starts before this time (ms since epoch). */
  dayBlockedUntil = 0;
  minuteRemaining: number | null = null;

  constructor(private readonly options: TenantGateOptions = XERO_LIMITS) {}

  /** Resolves when a call may start; the caller must call `release()` once it has its answer. */
  acquire(): Promise<void> {
    if (this.dayBlockedUntil > Date.now()) return Promise.reject(dayLimitError());
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.pump();
    });
  }

  release(): void {
    this.inFlight -= 1;
    this.starts.push(Date.now());
    this.pump();
  }

  /** Stop starting calls until `ms` from now (a 429's Retry-After). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
    this.pump();
  }

  blockDay(ms: number): void {
    this.dayBlockedUntil = Date.now() + ms;
  }

  get pending(): number {
    return this.waiters.length;
  }

  private pump(): void {
    const now = Date.now();
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.options.windowMs)
      this.starts.shift();
    while (
      this.waiters.length > 0 &&
      this.inFlight < this.options.maxInFlight &&
      this.starts.length + this.inFlight < this.options.perMinute &&
      now >= this.pausedUntil
    ) {
      const next = this.waiters.shift();
      this.inFlight += 1;
      next?.();
    }
    if (this.waiters.length === 0 || this.timer) return;
    // Blocked by time rather than by calls in flight: wake up when the window or pause allows.
    const waitUntil = Math.max(
      this.pausedUntil,
      this.starts.length + this.inFlight >= this.options.perMinute && this.starts.length > 0
        ? (this.starts[0] ?? now) + this.options.windowMs
        : 0,
    );
    if (waitUntil > now) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.pump();
      }, waitUntil - now);
      this.timer.unref();
    }
  }
}
