/**
 * Fault injection for tests and demos: latency, a 500/503 rate (or the next N calls), 429 bursts with
 * or without Retry-After, "apply the write, then drop the connection" for the next N writes, and slow answers
 * to writes already applied.
 * Token faults (expire / revoke) act on the identity state at once and are not kept here.
 */
import { z } from 'zod';

export const faultConfigSchema = z
  .object({
    /** Added to every Accounting API and /connections answer. */
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    /** Fraction (0–1) of API calls answered with `errorStatus`. */
    errorRate: z.number().min(0).max(1).optional(),
    errorStatus: z.union([z.literal(500), z.literal(503)]).optional(),
    /** The next N API calls fail with `errorStatus` (deterministic alternative to errorRate). */
    failNext: z.number().int().min(0).optional(),
    /** The next N API calls get a 429. */
    rateLimitBurst: z
      .object({
        count: z.number().int().min(1),
        problem: z.enum(['minute', 'day', 'concurrent', 'appminute']).optional(),
        /** Seconds for Retry-After; null sends no Retry-After header. Default 1. */
        retryAfterSeconds: z.number().int().min(0).nullable().optional(),
      })
      .optional(),
    /** The next N writes (POST/PUT/PATCH/DELETE to the API) are applied, then the connection is dropped. */
    dropAfterWrite: z.number().int().min(0).optional(),
    /**
     * Writes are applied at once, then their answer waits this long (a slow answer, not a slow request): a
     * client that stops waiting, or dies, leaves a write Xero has.
     */
    answerDelayMs: z.number().int().min(0).max(120_000).optional(),
    /** Limit faults to paths matching this prefix (case-insensitive), e.g. "/api.xro/2.0/Payments". */
    pathPrefix: z.string().optional(),
  })
  .strict();

export type FaultConfig = z.infer<typeof faultConfigSchema>;

export class Faults {
  config: FaultConfig = {};

  constructor(
    initial: FaultConfig | undefined,
    private readonly random: () => number,
  ) {
    if (initial) this.config = { ...initial };
  }

  set(update: FaultConfig): void {
    this.config = { ...this.config, ...update };
  }

  clear(): void {
    this.config = {};
  }

  private applies(path: string): boolean {
    const prefix = this.config.pathPrefix;
    return !prefix || path.toLowerCase().startsWith(prefix.toLowerCase());
  }

  latency(path: string): number {
    return this.applies(path) ? (this.config.latencyMs ?? 0) : 0;
  }

  answerDelay(path: string): number {
    return this.applies(path) ? (this.config.answerDelayMs ?? 0) : 0;
  }

  /** The status to fail this call with, if any (consumes failNext). */
  takeError(path: string): 500 | 503 | null {
    if (!this.applies(path)) return null;
    const status = this.config.errorStatus ?? 500;
    if ((this.config.failNext ?? 0) > 0) {
      this.config.failNext = (this.config.failNext ?? 1) - 1;
      return status;
    }
    const rate = this.config.errorRate ?? 0;
    if (rate > 0 && this.random() < rate) return status;
    return null;
  }

  takeBurst(path: string): { problem: string; retryAfterSeconds: number | null } | null {
    const burst = this.config.rateLimitBurst;
    if (!burst || burst.count <= 0 || !this.applies(path)) return null;
    burst.count--;
    if (burst.count <= 0) delete this.config.rateLimitBurst;
    return {
      problem: burst.problem ?? 'minute',
      retryAfterSeconds: burst.retryAfterSeconds === undefined ? 1 : burst.retryAfterSeconds,
    };
  }

  takeDrop(path: string): boolean {
    if ((this.config.dropAfterWrite ?? 0) <= 0 || !this.applies(path)) return false;
    this.config.dropAfterWrite = (this.config.dropAfterWrite ?? 1) - 1;
    return true;
  }
}
