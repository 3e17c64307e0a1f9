/**
 * Webhooks as Xero sends them (developer.xero.com/documentation/webhooks/overview, …/configuring-your-server;
 * docs/decisions/018-webhooks.md): INVOICE and CONTACT events, batched into deliveries of
 * `{ events, firstEventSequence, lastEventSequence, entropy }`, signed with the webhook key
 * (`x-xero-signature`: base64 HMAC-SHA256 of the raw body), answered 200 within 5 s or retried with a
 * growing pause, for up to 24 hours, after which the webhook is disabled. Before any event is sent, the
 * receiver must pass the intent-to-receive check: 200 to a correctly signed empty delivery, 401 to an
 * incorrectly signed one. Events waiting while the receiver is not validated (or failing) are kept and sent
 * once it answers.
 */
import crypto from 'node:crypto';

export type WebhookCategory = 'INVOICE' | 'CONTACT';
export type WebhookEventType = 'CREATE' | 'UPDATE';

export interface WebhookConfig {
  /** Where Xero posts (the app's `/api/xero/webhooks`). */
  url: string;
  /** The signing key (Xero's developer portal shows it; here the caller chooses it). */
  key: string;
  /** How long events gather before a delivery; default 250 ms. */
  batchMs?: number;
  /** First retry pause; doubled each time up to a minute. Default 1000 ms. */
  retryBaseMs?: number;
}

export type WebhookState = 'off' | 'validating' | 'active' | 'failing' | 'disabled';

export interface WebhookStatus {
  url: string | null;
  state: WebhookState;
  /** Deliveries the receiver accepted (intent-to-receive checks not counted). */
  delivered: number;
  /** Attempts that failed (non-200, no answer within 5 s, refused connection). */
  failedAttempts: number;
  /** Events waiting to be sent. */
  queued: number;
  lastSequence: number;
  lastError: string | null;
}

interface QueuedEvent {
  resourceUrl: string;
  resourceId: string;
  eventDateUtc: string;
  eventType: WebhookEventType;
  eventCategory: WebhookCategory;
  tenantId: string;
  tenantType: 'ORGANISATION';
}

const TIMEOUT_MS = 5000;
const GIVE_UP_MS = 24 * 3_600_000;
const MAX_EVENTS_PER_DELIVERY = 100;

export class WebhookSender {
  private config: WebhookConfig | null = null;
  private state: WebhookState = 'off';
  private queue: QueuedEvent[] = [];
  private sequence = 0;
  private delivered = 0;
  private failedAttempts = 0;
  private lastError: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private busy: Promise<void> | null = null;
  private failingSince: number | null = null;
  private retryMs = 0;
  private generation = 0;

  constructor(
    private readonly apiUrl: () => string,
    private readonly now: () => number,
  ) {}

  /** Subscribes (or with null unsubscribes); a new subscription starts with the intent-to-receive check. */
  configure(config: WebhookConfig | null): void {
    this.generation += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.config = config ? { ...config } : null;
    this.state = config ? 'validating' : 'off';
    this.failingSince = null;
    this.retryMs = 0;
    this.lastError = null;
    this.delivered = 0;
    this.failedAttempts = 0;
    if (!config) this.queue = [];
    else this.schedule(0);
  }

  status(): WebhookStatus {
    return {
      url: this.config?.url ?? null,
      state: this.state,
      delivered: this.delivered,
      failedAttempts: this.failedAttempts,
      queued: this.queue.length,
      lastSequence: this.sequence,
      lastError: this.lastError,
    };
  }

  /**
   * A resource changed (through the API or "in Xero's web app"). Nothing happens without a subscription. The
   * event's time is the change's: the resource's UpdatedDateUTC after it (`atMs`), else now.
   */
  notify(
    tenantId: string,
    category: WebhookCategory,
    resourceId: string,
    eventType: WebhookEventType,
    atMs?: number,
  ): void {
    if (!this.config || this.state === 'disabled') return;
    const plural = category === 'INVOICE' ? 'Invoices' : 'Contacts';
    this.queue.push({
      resourceUrl: `${this.apiUrl()}/api.xro/2.0/${plural}/${resourceId}`,
      resourceId,
      eventDateUtc: new Date(atMs ?? this.now()).toISOString(),
      eventType,
      eventCategory: category,
      tenantId,
      tenantType: 'ORGANISATION',
    });
    if (this.state === 'active' && !this.timer && !this.busy) this.schedule(this.config.batchMs ?? 250);
  }

  /** Sends what is queued now (tests); resolves when the attempt is over. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.busy) await this.busy;
    await this.run();
  }

  close(): void {
    this.generation += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, ms);
    this.timer.unref();
  }

  private run(): Promise<void> {
    if (this.busy) return this.busy;
    this.busy = this.attempt().finally(() => {
      this.busy = null;
    });
    return this.busy;
  }

  private async post(config: WebhookConfig, body: string, signature: string): Promise<number> {
    const res = await fetch(config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-xero-signature': signature,
        'user-agent': 'Xero-Webhooks (sandbox)',
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  }

  private sign(body: string, key: string): string {
    return crypto.createHmac('sha256', key).update(body).digest('base64');
  }

  private async attempt(): Promise<void> {
    const config = this.config;
    const generation = this.generation;
    if (!config || this.state === 'off' || this.state === 'disabled') return;
    try {
      if (this.state === 'validating') {
        // Intent to receive: one correctly and one incorrectly signed empty delivery.
        const body = JSON.stringify({
          events: [],
          lastEventSequence: 0,
          firstEventSequence: 0,
          entropy: crypto.randomBytes(10).toString('base64url'),
        });
        const good = await this.post(config, body, this.sign(body, config.key));
        const bad = await this.post(config, body, this.sign(body, `${config.key}-not`));
        if (good !== 200 || bad !== 401)
          throw new Error(
            `intent to receive failed: ${good} to a correctly signed payload, ${bad} to an incorrectly signed one`,
          );
        if (generation !== this.generation) return;
        this.state = 'active';
      } else if (this.queue.length > 0) {
        const events = this.queue.slice(0, MAX_EVENTS_PER_DELIVERY);
        const first = this.sequence + 1;
        const body = JSON.stringify({
          events,
          firstEventSequence: first,
          lastEventSequence: first + events.length - 1,
          entropy: crypto.randomBytes(10).toString('base64url'),
        });
        const status = await this.post(config, body, this.sign(body, config.key));
        if (status !== 200) throw new Error(`delivery answered ${status}`);
        if (generation !== this.generation) return;
        this.sequence = first + events.length - 1;
        this.queue.splice(0, events.length);
        this.delivered += 1;
      }
      this.failingSince = null;
      this.retryMs = 0;
      this.lastError = null;
      if (this.state === 'failing') this.state = 'active';
      if (this.queue.length > 0) this.schedule(config.batchMs ?? 250);
    } catch (error) {
      if (generation !== this.generation) return;
      this.failedAttempts += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
      this.failingSince ??= this.now();
      if (this.state === 'active') this.state = 'failing';
      if (this.now() - this.failingSince > GIVE_UP_MS) {
        // Xero disables a webhook that has failed for a day; it must be re-enabled (configured again).
        this.state = 'disabled';
        return;
      }
      this.retryMs = this.retryMs === 0 ? (config.retryBaseMs ?? 1000) : Math.min(60_000, this.retryMs * 2);
      this.schedule(this.retryMs);
    }
  }
}
