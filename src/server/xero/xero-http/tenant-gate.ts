import { AppError } from '../../lib/app-error';
import type { XeroCallPriority } from '../call-context';

/**
 * Keeps one Xero organisation's calls within Xero's limits: at most 5 in flight and 60 in any rolling
 * minute (a rolling window also satisfies Xero's per-minute count), a pause after a 429's Retry-After, and
 * a stop when the day's budget (X-DayLimit-Remaining) is spent; and, with the other organisations' gates, the
 * app's 10,000 calls a minute (`AppWindow`). Waiters are served first come, first served, a person's call
 * before any background read's (issue 47: the Today page's first open reads a hundred organisations), and a
 * background read never takes the last call in flight nor the last sixth of the minute, so a person's call
 * that arrives finds room at once.
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
  /** Calls of the whole app in any minute, every organisation together (Xero: 10,000). */
  appPerMinute?: number;
}

export const XERO_LIMITS: TenantGateOptions = {
  maxInFlight: 5,
  perMinute: 60,
  windowMs: 60_500,
  appPerMinute: 10_000,
};

/**
 * What background reads may use of each limit: one call in flight, a sixth of the organisation's minute and a
 * tenth of the app's are kept for people (issue 47). A limit of 1 keeps nothing back (it would stop them).
 */
export function backgroundShare(limit: number, keep: number): number {
  return limit <= 1 ? limit : Math.max(1, limit - Math.max(1, Math.round(limit / keep)));
}

/**
 * What the Xero client needs of a gate: this in-memory one (one instance, PGlite) or the one shared through
 * PostgreSQL (shared-gate.ts). `acquire` rejects with XERO_RATE_LIMITED while the day's budget is spent.
 */
export interface XeroGate {
  /** Resolves when a call may start; a `background` call waits behind every person's (default `person`). */
  acquire(priority?: XeroCallPriority): Promise<void>;
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

/**
 * The app-wide minute of one instance's gates (PGlite: one instance is the whole app): calls in flight and
 * answered in the window, every organisation together. A gate blocked by it wakes when its oldest call leaves.
 */
export class AppWindow {
  private readonly answered: number[] = [];
  private inFlight = 0;
  private readonly blocked = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly perMinute: number,
    private readonly windowMs: number,
  ) {}

  /** Calls counted now (in flight, or answered within the window). */
  used(now = Date.now()): number {
    while (this.answered.length > 0 && (this.answered[0] ?? 0) <= now - this.windowMs) this.answered.shift();
    return this.answered.length + this.inFlight;
  }

  start(): void {
    this.inFlight += 1;
  }

  finish(): void {
    this.inFlight -= 1;
    this.answered.push(Date.now());
    this.wakeAll();
  }

  /** `wake` is called once room may have come (a call answered elsewhere, or the oldest call left the window). */
  waitForRoom(wake: () => void): void {
    this.blocked.add(wake);
    if (this.timer || this.answered.length === 0) return;
    const at = (this.answered[0] ?? Date.now()) + this.windowMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.wakeAll();
      },
      Math.max(1, at - Date.now()),
    );
    this.timer.unref();
  }

  private wakeAll(): void {
    const woken = [...this.blocked];
    this.blocked.clear();
    for (const wake of woken) wake();
  }
}

export class TenantGate implements XeroGate {
  private inFlight = 0;
  /** When each answer of the last minute arrived. */
  private readonly starts: number[] = [];
  /** Waiting calls, people's first: every person's call is ahead of every background call. */
  private readonly waiters: Array<{ priority: XeroCallPriority; resolve: () => void }> = [];
  private pausedUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly app: AppWindow;
  /** One callback for the app window to wake this gate with (a set: registered once however often asked). */
  private readonly wake = () => this.pump();
  dayRemaining: number | null = null;
  /** After a daily-limit 429: no call starts before this time (ms since epoch). */
  dayBlockedUntil = 0;
  minuteRemaining: number | null = null;

  constructor(
    private readonly options: TenantGateOptions = XERO_LIMITS,
    app?: AppWindow,
  ) {
    this.app =
      app ?? new AppWindow(options.appPerMinute ?? XERO_LIMITS.appPerMinute ?? 10_000, options.windowMs);
  }

  /** Resolves when a call may start; the caller must call `release()` once it has its answer. */
  acquire(priority: XeroCallPriority = 'person'): Promise<void> {
    if (this.dayBlockedUntil > Date.now()) return Promise.reject(dayLimitError());
    return new Promise((resolve) => {
      const waiter = { priority, resolve };
      if (priority === 'person') {
        // After the people already waiting, before any background read.
        const firstBackground = this.waiters.findIndex((w) => w.priority === 'background');
        if (firstBackground < 0) this.waiters.push(waiter);
        else this.waiters.splice(firstBackground, 0, waiter);
      } else {
        this.waiters.push(waiter);
      }
      this.pump();
    });
  }

  release(): void {
    this.inFlight -= 1;
    this.starts.push(Date.now());
    this.app.finish();
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

  /** Whether the head waiter may start now, within the limits its priority may use. */
  private mayStart(priority: XeroCallPriority, now: number): boolean {
    const o = this.options;
    const background = priority === 'background';
    const inFlight = background ? backgroundShare(o.maxInFlight, o.maxInFlight) : o.maxInFlight;
    const minute = background ? backgroundShare(o.perMinute, 6) : o.perMinute;
    const app = background ? backgroundShare(this.app.perMinute, 10) : this.app.perMinute;
    return (
      this.inFlight < inFlight &&
      this.starts.length + this.inFlight < minute &&
      this.app.used(now) < app &&
      now >= this.pausedUntil
    );
  }

  private pump(): void {
    const now = Date.now();
    while (this.starts.length > 0 && (this.starts[0] ?? 0) <= now - this.options.windowMs)
      this.starts.shift();
    for (;;) {
      const head = this.waiters[0];
      if (!head || !this.mayStart(head.priority, now)) break;
      this.waiters.shift();
      this.inFlight += 1;
      this.app.start();
      head.resolve();
    }
    const head = this.waiters[0];
    if (!head) return;
    // The app's minute is full: wake when another gate's call is answered or its oldest call leaves.
    const appLimit =
      head.priority === 'background' ? backgroundShare(this.app.perMinute, 10) : this.app.perMinute;
    if (this.app.used(now) >= appLimit) this.app.waitForRoom(this.wake);
    if (this.timer) return;
    // Blocked by time rather than by calls in flight: wake up when the window or pause allows.
    const minute =
      head.priority === 'background' ? backgroundShare(this.options.perMinute, 6) : this.options.perMinute;
    const waitUntil = Math.max(
      this.pausedUntil,
      this.starts.length + this.inFlight >= minute && this.starts.length > 0
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
