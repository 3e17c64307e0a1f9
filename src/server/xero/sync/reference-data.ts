import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { xeroAccounts, xeroContactGroups, xeroContacts, xeroTaxRates } from '../../db/schema/index';
import {
  xeroAccountsEnvelope,
  xeroContactGroupsEnvelope,
  xeroContactsEnvelope,
  xeroTaxRatesEnvelope,
} from '../xero-http/schemas';
import { PAGE_SIZE, type SyncContext, type SyncResult, type XeroSyncDeps } from './context';
import { toAccountRow, toContactRow } from './mappers';
import type { SyncState } from './sync-state';

/**
 * Keeps a contact as Xero sent it, unless the cache already holds a newer copy (a webhook's by-id read that
 * landed while a full sync was paging): the newest wins, whichever read stores last.
 */
export async function storeContact(db: Db, row: ReturnType<typeof toContactRow>): Promise<void> {
  await db
    .insert(xeroContacts)
    .values(row)
    .onConflictDoUpdate({
      target: [xeroContacts.organizationId, xeroContacts.contactId],
      set: row,
      setWhere: sql`${xeroContacts.updatedUtc} is null or excluded.updated_utc is null or excluded.updated_utc >= ${xeroContacts.updatedUtc}`,
    });
}

/**
 * Accounts, tax rates, contacts and contact groups: what Settings and the features pick from, read once and
 * again on request (accounts and contacts with If-Modified-Since).
 */
export function createReferenceData(
  { db, http }: Pick<XeroSyncDeps, 'db' | 'http'>,
  { readState, releaseLease, withLease }: SyncState,
) {
  return {
    /** Accounts (incremental with If-Modified-Since; bank, sales, cost and stock accounts all come from here). */
    syncAccounts(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'accounts', async () => {
        const state = await readState(ctx.organizationId, 'accounts');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'accounts', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const since = state?.highWater ? new Date(state.highWater.getTime() - 1000) : undefined;
        const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/Accounts',
          ...(since ? { ifModifiedSince: since } : {}),
          schema: xeroAccountsEnvelope,
        });
        let highWater = state?.highWater ?? null;
        let fetched = 0;
        if (status !== 304 && data) {
          const rows = data.Accounts.map((a) => toAccountRow(ctx.organizationId, a));
          fetched = rows.length;
          for (const row of rows) {
            await db
              .insert(xeroAccounts)
              .values(row)
              .onConflictDoUpdate({
                target: [xeroAccounts.organizationId, xeroAccounts.accountId],
                set: row,
              });
            if (row.updatedUtc && (!highWater || row.updatedUtc > highWater)) highWater = row.updatedUtc;
          }
        }
        await releaseLease(ctx.organizationId, 'accounts', { highWater, lastSyncAt: new Date() });
        return { calls: 1, fetched, full: !since };
      });
    },

    /** Tax rates (not paged, no If-Modified-Since in Xero): fetched once, again only on request. */
    syncTaxRates(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'tax-rates', async () => {
        const state = await readState(ctx.organizationId, 'tax-rates');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'tax-rates', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const { data } = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/TaxRates',
          schema: xeroTaxRatesEnvelope,
        });
        await db.transaction(async (tx) => {
          await tx.delete(xeroTaxRates).where(eq(xeroTaxRates.organizationId, ctx.organizationId));
          if (data.TaxRates.length > 0) {
            await tx.insert(xeroTaxRates).values(
              data.TaxRates.map((t) => ({
                organizationId: ctx.organizationId,
                taxType: t.TaxType,
                name: t.Name,
                rate: String(Number(t.EffectiveRate ?? t.DisplayTaxRate ?? 0).toFixed(4)),
                status: t.Status,
                canApplyToRevenue: t.CanApplyToRevenue ?? false,
                canApplyToExpenses: t.CanApplyToExpenses ?? false,
              })),
            );
          }
        });
        await releaseLease(ctx.organizationId, 'tax-rates', { lastSyncAt: new Date() });
        return { calls: 1, fetched: data.TaxRates.length, full: true };
      });
    },

    /** Contacts (paged, If-Modified-Since) and contact groups (one call). Group membership comes from each contact. */
    syncContacts(ctx: SyncContext, options: { force?: boolean } = {}): Promise<SyncResult> {
      return withLease(ctx, 'contacts', async () => {
        const state = await readState(ctx.organizationId, 'contacts');
        if (state?.lastSyncAt && !options.force) {
          await releaseLease(ctx.organizationId, 'contacts', {});
          return { calls: 0, fetched: 0, full: false };
        }
        const since = state?.highWater ? new Date(state.highWater.getTime() - 1000) : undefined;
        let calls = 0;
        let fetched = 0;
        let highWater = state?.highWater ?? null;
        for (let page = 1; ; page += 1) {
          const { data, status } = await http.send(ctx.userId, ctx.tenantId, {
            method: 'GET',
            path: '/api.xro/2.0/Contacts',
            query: { page, pageSize: PAGE_SIZE, includeArchived: true },
            ...(since ? { ifModifiedSince: since } : {}),
            schema: xeroContactsEnvelope,
          });
          calls += 1;
          if (status === 304 || !data) break;
          for (const c of data.Contacts) {
            const row = toContactRow(ctx.organizationId, c);
            await storeContact(db, row);
            if (row.updatedUtc && (!highWater || row.updatedUtc > highWater)) highWater = row.updatedUtc;
          }
          fetched += data.Contacts.length;
          if (
            data.Contacts.length < PAGE_SIZE ||
            (data.pagination?.pageCount != null && page >= data.pagination.pageCount)
          )
            break;
        }
        const groups = await http.send(ctx.userId, ctx.tenantId, {
          method: 'GET',
          path: '/api.xro/2.0/ContactGroups',
          schema: xeroContactGroupsEnvelope,
        });
        calls += 1;
        await db.transaction(async (tx) => {
          await tx.delete(xeroContactGroups).where(eq(xeroContactGroups.organizationId, ctx.organizationId));
          if (groups.data.ContactGroups.length > 0) {
            await tx.insert(xeroContactGroups).values(
              groups.data.ContactGroups.map((g) => ({
                organizationId: ctx.organizationId,
                groupId: g.ContactGroupID,
                name: g.Name,
                status: g.Status,
                contactIds: (g.Contacts ?? []).map((c) => c.ContactID),
              })),
            );
          }
        });
        await releaseLease(ctx.organizationId, 'contacts', { highWater, lastSyncAt: new Date() });
        return { calls, fetched, full: !since };
      });
    },
  };
}
