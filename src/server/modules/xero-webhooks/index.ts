import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { registerXeroWebhookRoutes } from './webhooks.routes';

/** Webhook deliveries left unapplied, gaps given up on and old live events are looked at this often. */
const WEBHOOK_SWEEP_MS = 30_000;
/** Applied webhook deliveries are purged at most this often (by the sweep). */
const WEBHOOK_PURGE_MS = 15 * 60_000;

/**
 * Xero's webhooks' entry (issue 46; docs/decisions/018-webhooks.md): the signed deliveries in, and the sweep that
 * applies what was left, gives up on old gaps and purges what was applied. Without XERO_WEBHOOK_KEY the route
 * answers not found and the sweep only purges. The processor and the health are shared parts (the sync reads them).
 */
export function xeroWebhooksModule(parts: SharedParts) {
  const { webhookKey, webhooks, webhookHealth, live, log } = parts;
  let lastWebhookPurge = 0;
  return {
    register(app) {
      registerXeroWebhookRoutes(app, { webhookKey, processor: webhooks, health: webhookHealth });
    },
    jobs: [
      {
        name: 'webhook sweep',
        everyMs: WEBHOOK_SWEEP_MS,
        run: () => {
          if (webhookKey) void webhooks.drain();
          if (webhookKey)
            void webhookHealth
              .giveUpOldGaps()
              .catch((error: unknown) => log.warn({ err: error }, 'checking webhook gaps failed'));
          void live
            .purgeOld()
            .catch((error: unknown) => log.warn({ err: error }, 'purging old live events failed'));
          if (Date.now() - lastWebhookPurge > WEBHOOK_PURGE_MS) {
            lastWebhookPurge = Date.now();
            void webhooks
              .purgeProcessed()
              .catch((error: unknown) => log.warn({ err: error }, 'purging processed webhook events failed'));
          }
        },
      },
    ],
  } satisfies ModuleEntry;
}
