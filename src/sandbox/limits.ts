/**
 * Xero's per-tenant limits (docs/xero-api.md §6): calls in the last minute, calls in flight, calls in the
 * last 24 hours, plus the app-wide minute limit. Rolling windows, kept in memory.
 */
import type { RuntimeSettings } from './runtime';

export type LimitProblem = 'minute' | 'concurrent' | 'day' | 'appminute';

export interface LimitDecision {
  ok: boolean;
  problem?: LimitProblem;
  retryAfterSeconds?: number;
}

class Window {
  private stamps: number[] = [];
  private head = 0;

  constructor(private readonly spanMs: number) {}

  prune(now: number): void {
    while (this.head < this.stamps.length && (this.stamps[this.head] ?? 0) <= now - this.spanMs) this.head++;
    if (this.head > 1024 && this.head * 2 > this.stamps.length) {
      this.stamps = this.stamps.slice(this.head);
      this.head = 0;
    }
  }

  count(now: number): number {
    this.prune(now);
    return this.stamps.length - this.head;
  }

  add(now: number): void {
    this.stamps.push(now);
  }

  /** Seconds until the oldest call leaves the window. */
  retryAfter(now: number): number {
    this.prune(now);
    const oldest = this.stamps[this.head] ?? now;
    return Math.max(1, Math.ceil((oldest + this.spanMs - now) / 1000));
  }
}

export class RateLimits {
  private minute = new Map<string, Window>();
  private day = new Map<string, Window>();
  private app = new Map<string, Window>();
  private inFlight = new Map<string, number>();

  constructor(private readonly settings: () => RuntimeSettings) {}

  private win(map: Map<string, Window>, key: string, span: number): Window {
    let w = map.get(key);
    if (!w) {
      w = new Window(span);
      map.set(key, w);
    }
    return w;
  }

  /** Check and, when allowed, count the call and mark it in flight. */
  acquire(tenantId: string, clientId: string, now: number): LimitDecision {
    const s = this.settings();
    const minute = this.win(this.minute, tenantId, 60_000);
    const day = this.win(this.day, tenantId, 86_400_000);
    const app = this.win(this.app, clientId, 60_000);
    if ((this.inFlight.get(tenantId) ?? 0) >= s.concurrentLimit) return { ok: false, problem: 'concurrent' };
    if (minute.count(now) >= s.minuteLimit)
      return { ok: false, problem: 'minute', retryAfterSeconds: minute.retryAfter(now) };
    if (day.count(now) >= s.dailyLimit)
      return { ok: false, problem: 'day', retryAfterSeconds: day.retryAfter(now) };
    if (app.count(now) >= s.appMinuteLimit)
      return { ok: false, problem: 'appminute', retryAfterSeconds: app.retryAfter(now) };
    minute.add(now);
    day.add(now);
    app.add(now);
    this.inFlight.set(tenantId, (this.inFlight.get(tenantId) ?? 0) + 1);
    return { ok: true };
  }

  release(tenantId: string): void {
    this.inFlight.set(tenantId, Math.max(0, (this.inFlight.get(tenantId) ?? 1) - 1));
  }

  headers(tenantId: string, clientId: string, now: number): Record<string, string> {
    const s = this.settings();
    return {
      'x-minlimit-remaining': String(
        Math.max(0, s.minuteLimit - this.win(this.minute, tenantId, 60_000).count(now)),
      ),
      'x-daylimit-remaining': String(
        Math.max(0, s.dailyLimit - this.win(this.day, tenantId, 86_400_000).count(now)),
      ),
      'x-appminlimit-remaining': String(
        Math.max(0, s.appMinuteLimit - this.win(this.app, clientId, 60_000).count(now)),
      ),
    };
  }

  clear(): void {
    this.minute.clear();
    this.day.clear();
    this.app.clear();
    this.inFlight.clear();
  }
}
