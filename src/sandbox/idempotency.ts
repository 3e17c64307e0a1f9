/**
 * Idempotency-Key on POST/PUT/PATCH (docs/xero-api.md §3): the same key with the same request inside the
 * window replays the first answer (errors included); the same key with a different request is a 400.
 * A retry that arrives while the first call is still running waits for it and then replays.
 */
import { createHash } from 'node:crypto';

export interface StoredAnswer {
  status: number;
  contentType: string;
  body: string;
}

interface Entry {
  fingerprint: string;
  expiresMs: number;
  answer: StoredAnswer | null;
  done: Promise<void>;
  resolve: () => void;
}

export type IdempotencyLookup =
  | { kind: 'new'; complete: (answer: StoredAnswer) => void; abandon: () => void }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'mismatch' };

export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path.toLowerCase()}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

export class IdempotencyStore {
  private entries = new Map<string, Entry>();

  async lookup(
    scopeKey: string,
    fingerprint: string,
    now: number,
    windowMs: number,
  ): Promise<IdempotencyLookup> {
    for (const [k, e] of this.entries) if (e.expiresMs <= now && e.answer) this.entries.delete(k);
    let entry = this.entries.get(scopeKey);
    if (entry && entry.expiresMs <= now && entry.answer) {
      this.entries.delete(scopeKey);
      entry = undefined;
    }
    if (entry) {
      if (entry.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (!entry.answer) await entry.done;
      const settled = this.entries.get(scopeKey);
      if (settled?.answer && settled.fingerprint === fingerprint)
        return { kind: 'replay', answer: settled.answer };
      return this.lookup(scopeKey, fingerprint, now, windowMs);
    }
    let resolve: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    const created: Entry = { fingerprint, expiresMs: now + windowMs, answer: null, done, resolve };
    this.entries.set(scopeKey, created);
    return {
      kind: 'new',
      complete: (answer) => {
        created.answer = answer;
        created.resolve();
      },
      abandon: () => {
        if (this.entries.get(scopeKey) === created) this.entries.delete(scopeKey);
        created.resolve();
      },
    };
  }

  clear(): void {
    this.entries.clear();
  }
}
