/**
 * The data Ledgerlink downloads from Xero, per organisation and month (issue 19: since March 2026 Xero bills
 * apps by egress — 10 GB a month on Core, 50 GB on Plus). The Xero client reports the size of each answer it
 * reads; the meter adds them up in memory and writes them to the organisation's row every few seconds (one
 * UPDATE per organisation, adding to this month's total), so a busy screen does not write once per call.
 * A process killed between two flushes loses at most those seconds of counting, never a write to Xero.
 */
export interface EgressStore {
  /** Adds `bytes` to each tenant's total for `month` (UTC 'YYYY-MM'), starting a new total in a new month. */
  addEgress(month: string, bytesByTenant: ReadonlyMap<string, number>): Promise<void>;
}

/** UTC 'YYYY-MM' of a moment: the month Xero's egress report counts it in. */
export function egressMonthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function createEgressMeter(deps: {
  store: EgressStore;
  log: { warn: (o: object, m: string) => void };
  flushMs?: number;
  now?: () => Date;
}) {
  const flushMs = deps.flushMs ?? 5_000;
  const now = deps.now ?? (() => new Date());
  let month = egressMonthOf(now());
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.size === 0) return writing;
    const batch = pending;
    const batchMonth = month;
    pending = new Map();
    // One write at a time, in order, so two flushes never race on one row.
    writing = writing
      .then(() => deps.store.addEgress(batchMonth, batch))
      .catch((err: unknown) => deps.log.warn({ err }, 'Xero egress could not be recorded'));
    return writing;
  }

  return {
    /** One answer of `bytes` read for an organisation (Xero tenant id). */
    record(tenantId: string, bytes: number): void {
      if (!(bytes > 0)) return;
      const current = egressMonthOf(now());
      if (current !== month) {
        // What was counted before midnight at the month's end belongs to the old month.
        void flush();
        month = current;
      }
      pending.set(tenantId, (pending.get(tenantId) ?? 0) + bytes);
      if (!timer) {
        timer = setTimeout(() => void flush(), flushMs);
        timer.unref();
      }
    },
    /** Writes what is counted now (on shutdown, and in tests). */
    flush,
  };
}
export type EgressMeter = ReturnType<typeof createEgressMeter>;
