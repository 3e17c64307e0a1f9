/**
 * The soak's settings (bench/soak.ts): how long, which schedule, the two organisations, Xero's shortened
 * idempotency window, webhooks on or off; and the seeded schedule every random choice of the month comes from.
 */
export const DAYS = Number(process.env.SOAK_DAYS ?? 30);
export const SEED = Number(process.env.SOAK_SEED ?? 1);
export const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';
/** An empty database on a PostgreSQL server already running (its pg_dump and pg_restore must match it). */
export const PG_URL = process.env.BENCH_PG_URL;
export const SHOP = 'Demo Shop Ltd';
export const BUILDERS = 'Demo Builders Ltd';
/**
 * Xero keeps an Idempotency-Key's answer for minutes; a month of days cannot wait that out, and moving the
 * sandbox's clock by days would put Xero's tokens in the app's future. So the sandbox's window is a few seconds
 * and every day (and the resends after the restore) starts after it; access tokens last five minutes, so the
 * month refreshes them as a real one does.
 */
export const IDEMPOTENCY_WINDOW_S = 3;
export const WEBHOOK_KEY = 'soak-webhook-key-0123456789abcdef0123456789abcdef';
/** `SOAK_WEBHOOKS=off`: no Xero webhooks at all, as a server behind NAT or on a laptop runs (issue 44). */
export const WEBHOOKS = process.env.SOAK_WEBHOOKS !== 'off';

// ── a seeded schedule ────────────────────────────────────────────────────────────────────────────────────
function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const random = mulberry32(SEED);
export const chance = (p: number) => random() < p;
export const pick = <T>(items: T[]): T => {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
};
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
