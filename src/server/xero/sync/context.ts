/** What every part of the sync shares: whom it works for, what it answers, what it is built from. */
import type { Db } from '../../db/client';
import type { XeroHttp } from '../xero-http/http';

/** The organisation a sync works for, and whose Xero token it uses. */
export interface SyncContext {
  organizationId: number;
  tenantId: string;
  userId: number;
}

export interface SyncResult {
  /** Xero calls this sync made (0 when another request or instance was already syncing it). */
  calls: number;
  fetched: number;
  full: boolean;
}

/**
 * How far the read of a whole view has got (issue 19): a first visit answers after the first page and reads the
 * rest in the background, so screens say "1,000 of 5,048" until `complete`. From the database, so every
 * instance says the same.
 */
export interface InvoiceSyncProgress {
  complete: boolean;
  /** Invoices stored so far by the read of the whole view (all of them once complete). */
  fetched: number;
  /** How many Xero said there are (its `pagination.itemCount`), or null until it says. */
  total: number | null;
}

/** What the sync is built from (wired in src/server/wiring.ts). */
export interface XeroSyncDeps {
  db: Db;
  http: XeroHttp;
  /**
   * Live updates (docs/decisions/018-webhooks.md, "Fallback"): may a standard refresh of a view last read
   * from Xero at `lastSyncAt` be answered from the cache, because Xero's webhooks keep it current? Without
   * it every refresh asks Xero (If-Modified-Since). `check` says whether a refresh asks or a payment's check of
   * one invoice (only a refresh's fallback is counted in the metrics).
   */
  mayUseCache?: (
    ctx: SyncContext,
    lastSyncAt: Date | null,
    check?: 'refresh' | 'payment',
  ) => Promise<boolean>;
  /** An incremental read found invoices changed in Xero since the view's last read (the earliest change). */
  onChangesRead?: (ctx: SyncContext, changedAt: Date) => void;
  /** A read carried on in the background failed after its first page (the next request carries it on). */
  onBackgroundError?: (ctx: SyncContext, error: unknown) => void;
}

export const ALL_STATUSES = 'DRAFT,SUBMITTED,AUTHORISED,PAID,VOIDED,DELETED';
export const PAGE_SIZE = 1000;
/**
 * Ids per read by id (`GET /Invoices?IDs=…`, `GET /Contacts?IDs=…`). Xero answers 404 "The resource you're looking
 * for cannot be found" to a URL longer than about 2,090 characters (reported: 53 ids fail where 52 pass,
 * XeroAPI/xero-node#404, XeroAPI/Xero-OpenAPI#534, XeroAPI/Xero-NetStandard#471; Xero's SDK maintainers advise
 * under 50). An id is 39 characters with its encoded comma: 40 of them and the rest of the query stay under
 * 2,000, as the sandbox requires (docs/xero-api.md §3).
 */
export const IDS_PER_CALL = 40;
/**
 * The first page of a first visit's read (issue 32): the screen's first answer waits for this many invoices to
 * be downloaded, checked and stored, not 1,000 (that was most of a large first visit's time after Xero's 400 ms);
 * the rest of the view is read at PAGE_SIZE from there. 250 answers a small business's list (Demo Shop's 221)
 * whole, in the one call it always took. A larger view costs one call more than pages of 1,000 alone unless
 * its size is 1–250 above a multiple of 1,000 (5,068 invoices: 6 calls either way; 4,850: 6 instead of 5),
 * once, on its first visit.
 */
export const FIRST_PAGE_SIZE = 250;
