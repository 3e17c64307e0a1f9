import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../../test/xero';

interface OrgCard {
  organizationId: number;
  tenantId: string;
  tenantName: string;
  downloadedThisMonth?: { month: string; bytes: number } | null;
}

describe('data downloaded from Xero, on the organisation card (issue 19)', () => {
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;

  beforeAll(async () => {
    t = await createXeroTestApp();
    owner = await createConnectedUser(t, 'owner');
  });
  afterAll(() => t.close());

  it("counts the same bytes of Xero's answers as Xero's egress report does, per organisation and month", async () => {
    const cards = async () => (await owner.call('GET', '/api/user-organizations')).json() as OrgCard[];
    const shop = (await cards()).find((o) => o.tenantName === 'Demo Shop Ltd');
    if (!shop) throw new Error('Demo Shop Ltd is not connected');
    await enableFeatures(t, shop.organizationId);
    const before = shop.downloadedThisMonth?.bytes ?? 0;
    const buildersBefore =
      (await cards()).find((o) => o.tenantName === 'Demo Builders Ltd')?.downloadedThisMonth?.bytes ?? 0;
    t.sandbox.clearLedger();

    const list = await owner.call('GET', `/api/xero/invoices?org=${shop.organizationId}&refresh=true`);
    expect(list.statusCode).toBe(200);
    const sent = t.sandbox.ledger().totals.bytesByTenant[shop.tenantId] ?? 0;
    expect(sent).toBeGreaterThan(10_000);

    // The meter writes every few seconds: wait for the card to show it, as the user would.
    await vi.waitFor(
      async () => {
        const card = (await cards()).find((o) => o.organizationId === shop.organizationId);
        expect(card?.downloadedThisMonth?.bytes).toBe(before + sent);
      },
      { timeout: 20_000, interval: 500 },
    );
    const card = (await cards()).find((o) => o.organizationId === shop.organizationId);
    expect(card?.downloadedThisMonth?.month).toBe(new Date().toISOString().slice(0, 7));
    // Another organisation's card counts only its own answers.
    const builders = (await cards()).find((o) => o.tenantName === 'Demo Builders Ltd');
    expect(builders?.downloadedThisMonth?.bytes ?? 0).toBe(
      buildersBefore + (t.sandbox.ledger().totals.bytesByTenant[builders?.tenantId ?? ''] ?? 0),
    );
  });
});
