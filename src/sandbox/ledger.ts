/**
 * The call ledger: every request counted per tenant, method and endpoint (with the bytes of its answers, as
 * Xero's egress report counts them), identity calls counted
 * separately, every applied write listed, and every limit violation counted. Kept in memory; zeroed by
 * a reset (or DELETE /__sandbox/ledger).
 */
export type WriteKind = 'invoice' | 'bill' | 'payment' | 'journal';

export interface LedgerWrite {
  at: string;
  tenantId: string;
  tenantName: string;
  kind: WriteKind;
  action: 'create' | 'update' | 'delete' | 'void' | 'approve' | 'post';
  id: string;
  /** Short description: invoice number, amount, status… */
  summary: Record<string, string | number | boolean | null>;
}

export interface LedgerSnapshot {
  since: string;
  /**
   * One row per tenant × method × endpoint (endpoint is the route pattern, e.g. "/api.xro/2.0/Invoices/:id"),
   * with the bytes of the answer bodies sent (egress).
   */
  calls: {
    tenantId: string;
    tenantName: string;
    method: string;
    endpoint: string;
    count: number;
    bytes: number;
  }[];
  totals: {
    all: number;
    byTenant: Record<string, number>;
    rejected429: number;
    bytes: number;
    bytesByTenant: Record<string, number>;
  };
  identity: Record<string, number>;
  token: { authorizationCode: number; refresh: number; refreshFailed: number; failed: number };
  /** Refresh-token grant requests (successful or not). */
  refreshCount: number;
  writes: LedgerWrite[];
  violations: { minute: number; concurrent: number; day: number; appMinute: number };
  faults: { latency: number; answerDelay: number; error: number; burst429: number; dropped: number };
}

export class Ledger {
  private since = new Date();
  private calls = new Map<
    string,
    { tenantId: string; tenantName: string; method: string; endpoint: string; count: number; bytes: number }
  >();
  private identity: Record<string, number> = {};
  private token = { authorizationCode: 0, refresh: 0, refreshFailed: 0, failed: 0 };
  private refreshCount = 0;
  private writes: LedgerWrite[] = [];
  private rejected429 = 0;
  private violations = { minute: 0, concurrent: 0, day: 0, appMinute: 0 };
  private faults = { latency: 0, answerDelay: 0, error: 0, burst429: 0, dropped: 0 };

  constructor(private readonly now: () => number) {
    this.since = new Date(now());
  }

  countCall(tenantId: string, tenantName: string, method: string, endpoint: string): void {
    const key = `${tenantId} ${method} ${endpoint}`;
    const row = this.calls.get(key);
    if (row) row.count++;
    else this.calls.set(key, { tenantId, tenantName, method, endpoint, count: 1, bytes: 0 });
  }

  /** The bytes of an answer body sent for a call counted by countCall (egress). */
  countBytes(tenantId: string, method: string, endpoint: string, bytes: number): void {
    const row = this.calls.get(`${tenantId} ${method} ${endpoint}`);
    if (row) row.bytes += bytes;
  }

  countIdentity(kind: string): void {
    this.identity[kind] = (this.identity[kind] ?? 0) + 1;
  }

  countToken(kind: 'authorizationCode' | 'refresh' | 'refreshFailed' | 'failed'): void {
    this.token[kind]++;
    if (kind === 'refresh' || kind === 'refreshFailed') this.refreshCount++;
  }

  countRejected(): void {
    this.rejected429++;
  }

  countViolation(kind: keyof Ledger['violations']): void {
    this.violations[kind]++;
  }

  countFault(kind: keyof Ledger['faults']): void {
    this.faults[kind]++;
  }

  recordWrite(write: Omit<LedgerWrite, 'at'>): void {
    this.writes.push({ at: new Date(this.now()).toISOString(), ...write });
  }

  snapshot(): LedgerSnapshot {
    const calls = [...this.calls.values()].map((c) => ({ ...c }));
    const byTenant: Record<string, number> = {};
    const bytesByTenant: Record<string, number> = {};
    for (const c of calls) {
      byTenant[c.tenantId] = (byTenant[c.tenantId] ?? 0) + c.count;
      bytesByTenant[c.tenantId] = (bytesByTenant[c.tenantId] ?? 0) + c.bytes;
    }
    return {
      since: this.since.toISOString(),
      calls,
      totals: {
        all: calls.reduce((s, c) => s + c.count, 0),
        byTenant,
        rejected429: this.rejected429,
        bytes: calls.reduce((s, c) => s + c.bytes, 0),
        bytesByTenant,
      },
      identity: { ...this.identity },
      token: { ...this.token },
      refreshCount: this.refreshCount,
      writes: this.writes.map((w) => ({ ...w, summary: { ...w.summary } })),
      violations: { ...this.violations },
      faults: { ...this.faults },
    };
  }

  clear(): void {
    this.since = new Date(this.now());
    this.calls.clear();
    this.identity = {};
    this.token = { authorizationCode: 0, refresh: 0, refreshFailed: 0, failed: 0 };
    this.refreshCount = 0;
    this.writes = [];
    this.rejected429 = 0;
    this.violations = { minute: 0, concurrent: 0, day: 0, appMinute: 0 };
    this.faults = { latency: 0, answerDelay: 0, error: 0, burst429: 0, dropped: 0 };
  }
}
