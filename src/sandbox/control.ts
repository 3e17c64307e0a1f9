/**
 * Control endpoints under /__sandbox/ (loopback clients only, JSON): reset, faults, ledger,
 * auto-consent, clock and run-time settings, info. Tests and scripts drive the sandbox through these
 * (or through the same methods on the Sandbox object).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { faultConfigSchema, type FaultConfig } from './faults';
import type { LedgerSnapshot } from './ledger';
import type { InvoiceFacts, PersonBill, PersonPayment } from './person';
import type { CreditNoteFacts, PersonCreditNote } from './person-credit';
import type { AutoConsent, RuntimeSettings } from './runtime';
import type { WebhookConfig, WebhookStatus } from './webhooks';

export interface SandboxInfo {
  url: string;
  now: string;
  seed: number;
  scale: number;
  /** `kind`: a practice client's kind of business (SANDBOX_CLIENTS, issue 47). */
  orgs: { tenantId: string; name: string; invoiceCount: number; kind?: 'shop' | 'contractor' | 'services' }[];
  users: { userId: string; email: string; name: string; tenantIds: string[] }[];
  clients: string[];
  settings: RuntimeSettings;
}

/** The run-time controls (also reachable over HTTP under /__sandbox/). */
export interface SandboxControl {
  info(): SandboxInfo;
  reset(): Promise<void>;
  getFaults(): FaultConfig;
  setFaults(faults: FaultConfig): void;
  clearFaults(): void;
  /** Expire every access token issued so far (optionally one user's); returns how many. */
  expireTokens(email?: string): number;
  /**
   * Change a manual journal's status as a person would in Xero's own web app (e.g. post a draft), outside
   * any API client: not counted as an API call nor listed among the writes. Returns the new status.
   */
  setJournalStatus(journalId: string, status: 'POSTED' | 'DELETED' | 'VOIDED'): string;
  /** As a person in Xero's web app (not API calls; reported by webhook): pay, approve, void, edit an invoice. */
  payInvoice(invoiceId: string, payment: PersonPayment): InvoiceFacts & { paymentId: string };
  approveInvoice(invoiceId: string): InvoiceFacts;
  /** As a person in Xero's web app: enter a bill, CIS lines allowed (Xero then computes the CIS deduction). */
  enterBill(bill: PersonBill): InvoiceFacts & { cisDeduction: number | null };
  voidInvoice(invoiceId: string): InvoiceFacts;
  /** As a person in Xero's web app: remove a payment from its invoice or bill ("Remove and redo"). */
  removePayment(paymentId: string): InvoiceFacts;
  /** As a person in Xero's web app: enter a supplier credit note, allocate it to a bill, record a refund. */
  enterCreditNote(note: PersonCreditNote): CreditNoteFacts;
  allocateCreditNote(
    creditNoteId: string,
    allocation: { invoiceId: string; amount: number | string; date?: string | undefined },
  ): CreditNoteFacts & { bill: InvoiceFacts };
  refundCreditNote(
    creditNoteId: string,
    refund: { amount: number | string; date?: string | undefined; accountId?: string | undefined },
  ): CreditNoteFacts & { paymentId: string };
  editInvoice(
    invoiceId: string,
    changes: { reference?: string | undefined; dueDate?: string | undefined },
  ): InvoiceFacts;
  /** As a person in Xero's web app: change a contact's name or email address. */
  editContact(
    contactId: string,
    changes: { name?: string | undefined; email?: string | undefined },
  ): { contactId: string; name: string };
  /** The webhook subscription (never its key); set one (starts the intent-to-receive check) or remove it. */
  getWebhooks(): WebhookStatus;
  setWebhooks(config: WebhookConfig | null): void;
  /** Sends the queued webhook events now and waits for the answer (tests). */
  flushWebhooks(): Promise<void>;
  /** Revoke every grant (optionally one user's): refresh tokens, access tokens, connections; returns how many users. */
  revokeTokens(email?: string): number;
  /**
   * As a person in Xero's web app (Settings → Connected apps → Disconnect): remove the app's connection to
   * one organisation (optionally only one user's); tokens stay valid for the others. Returns how many.
   */
  disconnectTenant(tenantId: string, email?: string): number;
  ledger(): LedgerSnapshot;
  clearLedger(): void;
  getAutoConsent(): AutoConsent | null;
  setAutoConsent(consent: AutoConsent | null): void;
  now(): number;
  advanceClock(seconds: number): void;
  setClock(at: Date): void;
  setClockOffset(ms: number): void;
  getSettings(): RuntimeSettings;
  configure(settings: Partial<RuntimeSettings>): void;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function isLoopback(address: string | undefined): boolean {
  return Boolean(
    address && (LOOPBACK.has(address) || address.startsWith('127.') || address.startsWith('::ffff:127.')),
  );
}

const faultsBodySchema = faultConfigSchema
  .extend({
    /** Remove every fault first. */
    clear: z.boolean().optional(),
    /** Expire every access token issued so far (optionally only this user's). */
    expireTokens: z.union([z.boolean(), z.object({ email: z.string() })]).optional(),
    /** Revoke every grant (refresh + access tokens, connections), as if the user disconnected the app. */
    revokeTokens: z.union([z.boolean(), z.object({ email: z.string() })]).optional(),
  })
  .strict();

const autoConsentSchema = z.object({
  email: z.string().email().nullable(),
  tenants: z.union([z.literal('all'), z.array(z.string())]).default('all'),
});

const clockSchema = z
  .object({
    advanceSeconds: z.number().optional(),
    set: z.string().datetime({ offset: true }).optional(),
    reset: z.boolean().optional(),
  })
  .strict();

const settingsSchema = z
  .object({
    accessTokenTtlSeconds: z.number().int().positive(),
    refreshGraceSeconds: z.number().int().min(0),
    refreshTokenTtlSeconds: z.number().int().positive(),
    codeTtlSeconds: z.number().int().positive(),
    minuteLimit: z.number().int().positive(),
    concurrentLimit: z.number().int().positive(),
    dailyLimit: z.number().int().positive(),
    appMinuteLimit: z.number().int().positive(),
    idempotencyWindowSeconds: z.number().int().positive(),
  })
  .partial()
  .strict();

export function registerControlRoutes(app: FastifyInstance, control: SandboxControl): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isLoopback(request.socket.remoteAddress))
      return reply.status(404).type('text/plain').send('Not found');
    return undefined;
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    return reply.status(status).send({ error: error.message });
  });
  const parse = <T>(schema: z.ZodType<T>, body: unknown): T => {
    const result = schema.safeParse(body ?? {});
    if (!result.success) throw Object.assign(new Error(z.prettifyError(result.error)), { statusCode: 400 });
    return result.data;
  };

  app.get('/info', async () => control.info());

  app.post('/manual-journals/:id/status', async (request) => {
    const { status } = parse(
      z.object({ status: z.enum(['POSTED', 'DELETED', 'VOIDED']) }).strict(),
      request.body,
    );
    const id = (request.params as { id: string }).id;
    return { journalId: id, status: control.setJournalStatus(id, status) };
  });

  // Webhooks as Xero sends them, and changes made as a person in Xero's web app (src/sandbox/person.ts).
  const webhookSchema = z
    .object({
      url: z.url(),
      key: z.string().min(16).max(200),
      batchMs: z.number().int().min(0).max(60_000).optional(),
      retryBaseMs: z.number().int().min(10).max(60_000).optional(),
    })
    .strict();
  app.get('/webhooks', async () => control.getWebhooks());
  app.post('/webhooks', async (request) => {
    control.setWebhooks(parse(webhookSchema, request.body));
    return control.getWebhooks();
  });
  app.delete('/webhooks', async () => {
    control.setWebhooks(null);
    return control.getWebhooks();
  });
  app.post('/webhooks/flush', async () => {
    await control.flushWebhooks();
    return control.getWebhooks();
  });
  const idOf = (request: { params: unknown }) =>
    parse(z.object({ id: z.string().uuid() }), request.params).id;
  app.post('/invoices/:id/pay', async (request) => {
    const body = parse(
      z
        .object({
          // Pounds; more than 2 decimals is refused by payInvoice as Xero does.
          amount: z.union([z.number().positive(), z.string().max(15)]),
          accountId: z.string().uuid().optional(),
          date: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}$/)
            .optional(),
          reference: z.string().max(255).optional(),
        })
        .strict(),
      request.body,
    );
    return control.payInvoice(idOf(request), body);
  });
  app.post('/bills', async (request) => {
    const day = z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional();
    const body = parse(
      z
        .object({
          contactId: z.string().uuid(),
          date: day,
          dueDate: day,
          reference: z.string().max(255).optional(),
          lineAmountTypes: z.enum(['Exclusive', 'Inclusive', 'NoTax']).optional(),
          status: z.enum(['DRAFT', 'AUTHORISED']).optional(),
          lines: z
            .array(
              z
                .object({
                  description: z.string().min(1).max(4000),
                  quantity: z.number().positive().optional(),
                  unitAmount: z.union([z.number(), z.string().max(15)]),
                  accountCode: z.string().min(1).max(10),
                  taxType: z.string().max(50).optional(),
                })
                .strict(),
            )
            .min(1)
            .max(100),
        })
        .strict(),
      request.body,
    );
    return control.enterBill(body);
  });
  app.post('/invoices/:id/approve', async (request) => control.approveInvoice(idOf(request)));
  app.post('/invoices/:id/void', async (request) => control.voidInvoice(idOf(request)));
  app.post('/invoices/:id/edit', async (request) => {
    const body = parse(
      z
        .object({
          reference: z.string().max(255).optional(),
          dueDate: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}$/)
            .optional(),
        })
        .strict(),
      request.body,
    );
    return control.editInvoice(idOf(request), body);
  });
  const dayField = z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .optional();
  const amountField = z.union([z.number().positive(), z.string().max(15)]);
  app.post('/payments/:id/remove', async (request) => control.removePayment(idOf(request)));
  app.post('/credit-notes', async (request) => {
    const body = parse(
      z
        .object({
          contactId: z.string().uuid(),
          date: dayField,
          reference: z.string().max(255).optional(),
          lineAmountTypes: z.enum(['Exclusive', 'Inclusive', 'NoTax']).optional(),
          lines: z
            .array(
              z
                .object({
                  description: z.string().min(1).max(4000),
                  quantity: z.number().positive().optional(),
                  unitAmount: z.union([z.number(), z.string().max(15)]),
                  accountCode: z.string().min(1).max(10),
                  taxType: z.string().max(50).optional(),
                })
                .strict(),
            )
            .min(1)
            .max(100),
        })
        .strict(),
      request.body,
    );
    return control.enterCreditNote(body);
  });
  app.post('/credit-notes/:id/allocate', async (request) => {
    const body = parse(
      z.object({ invoiceId: z.string().uuid(), amount: amountField, date: dayField }).strict(),
      request.body,
    );
    return control.allocateCreditNote(idOf(request), body);
  });
  app.post('/credit-notes/:id/refund', async (request) => {
    const body = parse(
      z.object({ amount: amountField, date: dayField, accountId: z.string().uuid().optional() }).strict(),
      request.body,
    );
    return control.refundCreditNote(idOf(request), body);
  });
  app.post('/contacts/:id/edit', async (request) => {
    const body = parse(
      z
        .object({
          name: z.string().min(1).max(255).optional(),
          email: z.string().email().max(255).optional(),
        })
        .strict(),
      request.body,
    );
    return control.editContact(idOf(request), body);
  });

  app.post('/reset', async () => {
    await control.reset();
    return { ok: true, ...control.info() };
  });

  app.get('/faults', async () => control.getFaults());
  app.delete('/faults', async () => {
    control.clearFaults();
    return control.getFaults();
  });
  app.post('/faults', async (request) => {
    const { clear, expireTokens, revokeTokens, ...faults } = parse(faultsBodySchema, request.body);
    if (clear) control.clearFaults();
    control.setFaults(faults);
    const expired = expireTokens
      ? control.expireTokens(typeof expireTokens === 'object' ? expireTokens.email : undefined)
      : 0;
    const revoked = revokeTokens
      ? control.revokeTokens(typeof revokeTokens === 'object' ? revokeTokens.email : undefined)
      : 0;
    return { faults: control.getFaults(), expiredTokens: expired, revokedGrants: revoked };
  });

  app.post('/connections/disconnect', async (request) => {
    const { tenantId, email } = parse(
      z.object({ tenantId: z.string().min(1), email: z.string().optional() }).strict(),
      request.body,
    );
    return { disconnected: control.disconnectTenant(tenantId, email) };
  });

  app.get('/ledger', async () => control.ledger());
  app.delete('/ledger', async () => {
    control.clearLedger();
    return control.ledger();
  });

  app.get('/auto-consent', async () => ({ autoConsent: control.getAutoConsent() }));
  app.post('/auto-consent', async (request) => {
    const body = parse(autoConsentSchema, request.body);
    control.setAutoConsent(body.email ? { email: body.email, tenants: body.tenants } : null);
    return { autoConsent: control.getAutoConsent() };
  });
  app.delete('/auto-consent', async () => {
    control.setAutoConsent(null);
    return { autoConsent: null };
  });

  app.post('/clock', async (request) => {
    const body = parse(clockSchema, request.body);
    if (body.reset) control.setClockOffset(0);
    if (body.set) control.setClock(new Date(body.set));
    if (body.advanceSeconds) control.advanceClock(body.advanceSeconds);
    return { now: new Date(control.now()).toISOString() };
  });

  app.get('/config', async () => control.getSettings());
  app.post('/config', async (request) => {
    control.configure(parse(settingsSchema, request.body));
    return control.getSettings();
  });
}
