import type { WebhookHealth } from '@/shared/webhook-health';

/** The organisation card's words for its live updates (plain, one sentence). */
export function describeWebhookHealth(health: WebhookHealth): string {
  if (health.state === 'live') return 'On: changes made in Xero show here within seconds.';
  switch (health.reason) {
    case 'no-key':
      return 'Live updates from Xero are off: changes made in Xero show on refresh.';
    case 'not-started':
      return 'Xero has not sent any updates yet; Ledgerlink is checking Xero on each refresh.';
    case 'gap':
    case 'silent':
      return "Xero's updates have stopped arriving; Ledgerlink is checking Xero on each refresh.";
    case 'connection-lost':
      return 'Off until Xero is reconnected.';
  }
}
