import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose Xero calls these are (issue 47). A person's screen and a background read of many organisations (the
 * Today page's first open) share each organisation's 60 calls a minute and 5 in flight, and the app's 10,000 a
 * minute: the gate (xero-http/tenant-gate.ts, shared-gate.ts) lets a person's call go first and keeps some of
 * every limit free of background calls, so a screen is never starved by a practice-wide read.
 *
 * The priority travels with the work, not through every function's arguments: code run inside
 * `runInBackground` (and every promise it starts, a read carried on after its first page included) calls Xero
 * as `background`; everything else is a person's. A read that a person's request joins (the sync's lease: one
 * read for both) keeps the priority it was started with.
 */
export type XeroCallPriority = 'person' | 'background';

interface CallScope {
  priority: XeroCallPriority;
  /** No Xero call may start (the Today page answered from the cache): send refuses it and counts it. */
  cacheOnly: boolean;
  refused: number;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** The priority of a Xero call made now: a person's unless inside `runInBackground`. */
export function currentXeroPriority(): XeroCallPriority {
  return scopes.getStore()?.priority ?? 'person';
}

/** Runs `work` with its Xero calls behind every person's (the gate's background queue). */
export function runInBackground<T>(work: () => Promise<T>): Promise<T> {
  return scopes.run({ priority: 'background', cacheOnly: false, refused: 0 }, work);
}

/**
 * Runs `work` allowed no Xero call: each call it would make is refused before it leaves (XERO_UNAVAILABLE) and
 * counted, so the caller knows the answer was not all in the cache (`refused` > 0) and can have it read in the
 * background instead.
 */
export async function runCacheOnly<T>(work: () => Promise<T>): Promise<{ value: T; refused: number }> {
  const scope: CallScope = { priority: 'background', cacheOnly: true, refused: 0 };
  const value = await scopes.run(scope, work);
  return { value, refused: scope.refused };
}

/**
 * `work`'s answer from the cache alone, or null when it was not all there: a Xero call it would have made was
 * refused (or it said it lacked something, `noteNotInCache`), whether it then answered or failed for want of it.
 * Code written before the Today page may let a refused call's XERO_UNAVAILABLE escape (issue 42's credit-notes
 * check, asked of Xero when the month-end opens): that is "not in the cache", not a failure of the row.
 */
export async function readCacheOnly<T>(work: () => Promise<T>): Promise<T | null> {
  const scope: CallScope = { priority: 'background', cacheOnly: true, refused: 0 };
  try {
    const value = await scopes.run(scope, work);
    return scope.refused > 0 ? null : value;
  } catch (error) {
    if (scope.refused > 0) return null;
    throw error;
  }
}

/**
 * Whether the call about to be made must be refused (inside `runCacheOnly`); counts it when so. Called by the
 * one HTTP path to Xero (xero-http/http.ts) before anything leaves.
 */
export function refuseIfCacheOnly(): boolean {
  const scope = scopes.getStore();
  if (!scope?.cacheOnly) return false;
  scope.refused += 1;
  return true;
}

/** Whether the work running now may call Xero at all (false inside `runCacheOnly`). */
export function isCacheOnly(): boolean {
  return scopes.getStore()?.cacheOnly === true;
}

/**
 * Inside `runCacheOnly`: something the answer needs is not in the cache (and was not asked of Xero), so the
 * answer is not whole; counted as a refused call.
 */
export function noteNotInCache(): void {
  const scope = scopes.getStore();
  if (scope?.cacheOnly) scope.refused += 1;
}
