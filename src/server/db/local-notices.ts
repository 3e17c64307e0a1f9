import type { Db } from './client';

/**
 * A writer's word to its own instance (issue 32). Migration 0019's triggers announce every change to what a
 * request's principal is read from (a session, a user, their Xero token, a membership, an organisation's flags)
 * on a PostgreSQL channel, and every instance drops what it kept when the notice arrives. The instance that
 * wrote must not wait for that: it is told here, in process, the moment the write has committed, so the
 * person who made the change is refused (or served the change) on their very next request, without a round
 * trip to the database per write (decision 032).
 *
 * Keys are the notices' own: `s:<session hash>`, `u:<user id>`, `o:<organisation id>`. A writer announces
 * after its transaction commits: a read started before the commit would otherwise be kept with the old row.
 */
type Hearer = (key: string) => void;

const hearers = new WeakMap<Db, Set<Hearer>>();

/** Hears every change announced on `db` by this instance's writers; returns the way to stop. */
export function hearLocalChanges(db: Db, hear: Hearer): () => void {
  let set = hearers.get(db);
  if (!set) {
    set = new Set();
    hearers.set(db, set);
  }
  set.add(hear);
  return () => void set.delete(hear);
}

/** This instance just committed a change to what the keys name: whoever keeps it here forgets it now. */
export function announceLocalChange(db: Db, ...keys: string[]): void {
  const set = hearers.get(db);
  if (!set) return;
  for (const hear of set) for (const key of keys) hear(key);
}
