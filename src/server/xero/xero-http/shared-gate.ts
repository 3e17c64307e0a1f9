/**
 * Xero's limits kept by every instance together, through the PostgreSQL they share (docs/decisions/
 * 004-shared-xero-gate.md). Each call is a row of xero_gate_calls: it is inserted as `waiting` when the call
 * queues (ids give one order per organisation across instances), becomes `in_flight` when the gate grants
 * it, and `done` with the time of its answer. A grant is decided under one advisory lock, from the rows:
 * no earlier waiter of the organisation still queued, fewer than 5 in flight, fewer than 60 answered-or-in-
 * flight in the last minute, fewer than the day's budget started in the last 24 hours, fewer than the
 * app-wide minute limit, and no Retry-After pause or daily block (xero_gate_tenants). Times are the
 * database's clock, the one clock all instances share.
 *
 * Rows carry a lease renewed by their instance; when an instance dies its waiting rows stop holding the
 * queue and its in-flight rows count as answered at the lease's end. Instances wake each other with
 * NOTIFY on every grant and answer; a short poll covers a lost notification.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../../lib/app-error';
import type { XeroCallPriority } from '../call-context';
import { backgroundShare, dayLimitError, type TenantGateOptions, type XeroGate } from './tenant-gate';

export interface SharedGateOptions extends TenantGateOptions {
  /** Calls per organisation in any 24 hours (Xero: 5,000). */
  perDay: number;
  /** Calls of the whole app in any minute, all organisations together (Xero: 10,000). */
  appPerMinute: number;
  /** How long a row stays counted after its instance stops renewing it. */
  leaseMs: number;
  /** Longest wait before asking again when blocked by calls of other instances (notifications come first). */
  pollMs: number;
}

export const SHARED_XERO_LIMITS: SharedGateOptions = {
  maxInFlight: 5,
  perMinute: 60,
  windowMs: 60_500,
  perDay: 5_000,
  appPerMinute: 10_000,
  leaseMs: 30_000,
  pollMs: 250,
};

/** Any constant, the same for every instance (the migration lock is 7_263_011). */
const GATE_LOCK_ID = 7_263_012;
const CHANNEL = 'ledgerlink_xero_gate';

interface Waiter {
  id: number | undefined;
  priority: XeroCallPriority;
  resolve: () => void;
  reject: (error: Error) => void;
}

type Decision = { grant: true } | { grant: false; waitMs: number } | { grant: false; dayLimit: true };

export interface SharedGates {
  createGate(tenantId: string): XeroGate;
  /** Stops timers and the notification listener; rows still held expire with their lease. */
  close(): Promise<void>;
  instanceId: string;
}

interface Logger {
  warn(obj: unknown, msg: string): void;
}

export function createSharedGates(
  pool: pg.Pool,
  options: Partial<SharedGateOptions> = {},
  log?: Logger,
): SharedGates {
  const o: SharedGateOptions = { ...SHARED_XERO_LIMITS, ...options };
  const instanceId = randomUUID();
  const gates = new Map<string, SharedTenantGate>();
  let closed = false;
  let listener: pg.PoolClient | undefined;
  let listening: Promise<void> | undefined;

  const listen = () => {
    listening ??= (async () => {
      try {
        const client = await pool.connect();
        if (closed) {
          client.release();
          return;
        }
        client.on('notification', (message) => {
          if (message.payload) gates.get(message.payload)?.wake();
        });
        client.on('error', () => {
          // The poll keeps the gate moving; the next close releases nothing.
          listener = undefined;
        });
        await client.query(`LISTEN ${CHANNEL}`);
        listener = client;
      } catch (error) {
        log?.warn({ err: error }, 'xero gate: cannot listen for notifications; polling');
      }
    })();
    return listening;
  };

  // Renew the leases of this instance's rows; a dead instance's rows run out.
  const heartbeat = setInterval(
    () => {
      const ids = [...gates.values()].flatMap((g) => g.heldIds());
      if (ids.length === 0) return;
      void pool
        .query(
          `update xero_gate_calls set lease_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000) where id = any($1::bigint[]) and state <> 'done'`,
          [ids, o.leaseMs],
        )
        .catch((error: unknown) => log?.warn({ err: error }, 'xero gate: lease renewal failed'));
    },
    Math.max(1_000, Math.floor(o.leaseMs / 3)),
  );
  heartbeat.unref();
  // Forget calls that no longer count for anything (older than a day), and rows of instances long gone.
  const cleanup = setInterval(() => {
    void pool
      .query(
        `delete from xero_gate_calls where (state = 'done' and answered_at < clock_timestamp() - interval '25 hours') or (state <> 'done' and lease_until < clock_timestamp() - interval '1 hour')`,
      )
      .catch((error: unknown) => log?.warn({ err: error }, 'xero gate: cleanup of old calls failed'));
  }, 10 * 60_000);
  cleanup.unref();

  class SharedTenantGate implements XeroGate {
    private readonly waiters: Waiter[] = [];
    private readonly inFlight: number[] = [];
    private pumping = false;
    private again = false;
    private timer: NodeJS.Timeout | undefined;
    private localPausedUntil = 0;
    private localDayBlockedUntil = 0;
    dayRemaining: number | null = null;
    minuteRemaining: number | null = null;

    constructor(private readonly tenantId: string) {}

    get pending(): number {
      return this.waiters.length;
    }

    heldIds(): number[] {
      const ids = this.waiters.map((w) => w.id).filter((id): id is number => id !== undefined);
      return [...ids, ...this.inFlight];
    }

    acquire(priority: XeroCallPriority = 'person'): Promise<void> {
      if (this.localDayBlockedUntil > Date.now()) return Promise.reject(dayLimitError());
      void listen();
      return new Promise((resolve, reject) => {
        const waiter: Waiter = { id: undefined, priority, resolve, reject };
        // This instance asks about its people's calls first, as the database grants them (issue 47).
        const firstBackground = this.waiters.findIndex((w) => w.priority === 'background');
        if (priority === 'person' && firstBackground >= 0) this.waiters.splice(firstBackground, 0, waiter);
        else this.waiters.push(waiter);
        this.pump();
      });
    }

    release(): void {
      const id = this.inFlight.shift();
      if (id === undefined) return;
      void pool
        .query(
          `with done as (update xero_gate_calls set state = 'done', answered_at = clock_timestamp() where id = $1 returning tenant_id) select pg_notify('${CHANNEL}', tenant_id) from done`,
          [id],
        )
        .catch((error: unknown) =>
          log?.warn({ err: error }, 'xero gate: release not recorded; the lease will end it'),
        )
        .finally(() => this.pump());
    }

    pause(ms: number): void {
      this.localPausedUntil = Math.max(this.localPausedUntil, Date.now() + ms);
      void this.setTenant('paused_until', ms);
    }

    blockDay(ms: number): void {
      this.localDayBlockedUntil = Date.now() + ms;
      void this.setTenant('day_blocked_until', ms);
    }

    wake(): void {
      if (this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
      this.pump();
    }

    private async setTenant(column: 'paused_until' | 'day_blocked_until', ms: number): Promise<void> {
      try {
        await pool.query(
          `insert into xero_gate_tenants (tenant_id, ${column}) values ($1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
           on conflict (tenant_id) do update set ${column} = greatest(xero_gate_tenants.${column}, excluded.${column})`,
          [this.tenantId, ms],
        );
      } catch (error) {
        log?.warn({ err: error }, 'xero gate: pause not shared');
      }
    }

    /** One pump at a time per gate: queue new waiters, then grant the oldest until the gate says wait. */
    pump(): void {
      if (closed) return;
      if (this.pumping) {
        this.again = true;
        return;
      }
      this.pumping = true;
      void this.run()
        .catch((error: unknown) => {
          // The database failed us: the waiting calls fail rather than wait forever.
          const failure = new AppError(
            'XERO_UNAVAILABLE',
            'Xero could not be reached. Please try again.',
            error instanceof Error ? error.message : undefined,
          );
          for (const waiter of this.waiters.splice(0)) waiter.reject(failure);
        })
        .finally(() => {
          this.pumping = false;
          if (this.again) {
            this.again = false;
            this.pump();
          }
        });
    }

    private async run(): Promise<void> {
      for (;;) {
        this.again = false;
        await this.enqueueNew();
        // A person's call goes before this instance's background reads (issue 47), as the database orders them:
        // asking only for the oldest waiter left a person queued here behind a background read that the database
        // held back for that very person, and neither moved (http.test.ts, on PostgreSQL).
        const head =
          this.waiters.find((w) => w.priority === 'person' && w.id !== undefined) ?? this.waiters[0];
        if (!head?.id) return;
        // What this instance knows already: no need to ask the database.
        const now = Date.now();
        if (this.localPausedUntil > now) return this.sleep(this.localPausedUntil - now);
        if (this.inFlight.length >= o.maxInFlight) return;
        const decision = await this.decide(head.id, head.priority);
        if (decision.grant) {
          this.waiters.splice(this.waiters.indexOf(head), 1);
          this.inFlight.push(head.id);
          head.resolve();
          continue;
        }
        if ('dayLimit' in decision) {
          const ids = this.waiters.splice(0).map((w) => {
            w.reject(dayLimitError());
            return w.id;
          });
          await pool.query(`delete from xero_gate_calls where id = any($1::bigint[])`, [
            ids.filter((id) => id !== undefined),
          ]);
          return;
        }
        if (!this.again) return this.sleep(decision.waitMs);
      }
    }

    private sleep(ms: number): void {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.pump();
        },
        Math.max(1, ms),
      );
      this.timer.unref();
    }

    /** Gives every new waiter its row, in one statement so ids follow the local order. */
    private async enqueueNew(): Promise<void> {
      const fresh = this.waiters.filter((w) => w.id === undefined);
      if (fresh.length === 0) return;
      // One row per waiter, in the local order (ids follow it: `with ordinality`), each with its priority.
      const result = await pool.query<{ id: string; n: string }>(
        `insert into xero_gate_calls (tenant_id, instance_id, state, lease_until, priority)
         select $1, $2, 'waiting', clock_timestamp() + make_interval(secs => $4::double precision / 1000), p.priority
         from unnest($3::smallint[]) with ordinality as p(priority, n) order by p.n
         returning id`,
        [this.tenantId, instanceId, fresh.map((w) => (w.priority === 'background' ? 1 : 0)), o.leaseMs],
      );
      const ids = result.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
      fresh.forEach((waiter, i) => {
        waiter.id = ids[i];
      });
    }

    private async decide(id: number, priority: XeroCallPriority): Promise<Decision> {
      // A background read waits behind every waiting person's call of the organisation and leaves one call in
      // flight, a sixth of the minute and a tenth of the app's minute to people (issue 47, tenant-gate.ts).
      const background = priority === 'background';
      const maxInFlight = background ? backgroundShare(o.maxInFlight, o.maxInFlight) : o.maxInFlight;
      const perMinute = background ? backgroundShare(o.perMinute, 6) : o.perMinute;
      const appPerMinute = background ? backgroundShare(o.appPerMinute, 10) : o.appPerMinute;
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query('select pg_advisory_xact_lock($1)', [GATE_LOCK_ID]);
        // Rows of instances that stopped renewing them: in flight counts as answered at the lease's end.
        await client.query(
          `with expired as (update xero_gate_calls set state = 'done', answered_at = lease_until where tenant_id = $1 and state = 'in_flight' and lease_until < clock_timestamp() returning id)
           delete from xero_gate_calls where tenant_id = $1 and state = 'waiting' and lease_until < clock_timestamp()`,
          [this.tenantId],
        );
        const window = `make_interval(secs => ${Number(o.windowMs) / 1000})`;
        const { rows } = await client.query<{
          now_ms: string;
          ahead: string;
          in_flight: string;
          minute_done: string;
          minute_oldest_ms: string | null;
          day: string;
          app_minute: string;
          app_oldest_ms: string | null;
          paused_ms: string | null;
          day_blocked_ms: string | null;
        }>(
          `with c as (select clock_timestamp() as t)
           select
             (extract(epoch from c.t) * 1000)::bigint as now_ms,
             (select count(*) from xero_gate_calls where tenant_id = $1 and state = 'waiting' and id <> $2
                and (priority < $3 or (priority = $3 and id < $2))) as ahead,
             (select count(*) from xero_gate_calls where tenant_id = $1 and state = 'in_flight') as in_flight,
             (select count(*) from xero_gate_calls where tenant_id = $1 and state = 'done' and answered_at > c.t - ${window}) as minute_done,
             (select (extract(epoch from min(answered_at)) * 1000)::bigint from xero_gate_calls where tenant_id = $1 and state = 'done' and answered_at > c.t - ${window}) as minute_oldest_ms,
             (select count(*) from xero_gate_calls where tenant_id = $1 and state <> 'waiting' and started_at > c.t - interval '24 hours') as day,
             (select count(*) from xero_gate_calls where state = 'in_flight') + (select count(*) from xero_gate_calls where answered_at > c.t - ${window}) as app_minute,
             (select (extract(epoch from min(answered_at)) * 1000)::bigint from xero_gate_calls where answered_at > c.t - ${window}) as app_oldest_ms,
             (select (extract(epoch from paused_until) * 1000)::bigint from xero_gate_tenants where tenant_id = $1) as paused_ms,
             (select (extract(epoch from day_blocked_until) * 1000)::bigint from xero_gate_tenants where tenant_id = $1) as day_blocked_ms
           from c`,
          [this.tenantId, id, background ? 1 : 0],
        );
        const r = rows[0];
        if (!r) throw new Error('xero gate: no answer from the database');
        const now = Number(r.now_ms);
        const inFlight = Number(r.in_flight);
        const dayBlocked = Number(r.day_blocked_ms ?? 0);
        let decision: Decision;
        if (dayBlocked > now) {
          this.localDayBlockedUntil = Date.now() + (dayBlocked - now);
          decision = { grant: false, dayLimit: true };
        } else if (Number(r.paused_ms ?? 0) > now) {
          decision = { grant: false, waitMs: Number(r.paused_ms) - now };
        } else if (Number(r.ahead) > 0 || inFlight >= maxInFlight) {
          decision = { grant: false, waitMs: o.pollMs };
        } else if (Number(r.minute_done) + inFlight >= perMinute) {
          decision = {
            grant: false,
            waitMs: r.minute_oldest_ms ? Number(r.minute_oldest_ms) + o.windowMs - now : o.pollMs,
          };
        } else if (Number(r.day) >= o.perDay) {
          decision = { grant: false, dayLimit: true };
        } else if (Number(r.app_minute) >= appPerMinute) {
          decision = {
            grant: false,
            waitMs: r.app_oldest_ms
              ? Math.max(o.pollMs, Number(r.app_oldest_ms) + o.windowMs - now)
              : o.pollMs,
          };
        } else {
          await client.query(
            `update xero_gate_calls set state = 'in_flight', started_at = clock_timestamp(), lease_until = clock_timestamp() + make_interval(secs => $2::double precision / 1000) where id = $1`,
            [id, o.leaseMs],
          );
          await client.query(`select pg_notify('${CHANNEL}', $1)`, [this.tenantId]);
          decision = { grant: true };
        }
        await client.query('commit');
        return decision;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
  }

  return {
    instanceId,
    createGate(tenantId: string) {
      const gate = new SharedTenantGate(tenantId);
      gates.set(tenantId, gate);
      return gate;
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      clearInterval(cleanup);
      await listening;
      if (listener) {
        const client = listener;
        listener = undefined;
        await client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
}
