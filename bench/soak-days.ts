/**
 * How one day of the soak's month runs (bench/soak.ts): Xero's faults for the day, the people's work, a person
 * at work in Xero's own app, an instance killed with SIGKILL on some days, and after a kill every list screen
 * compared with Xero (bench/soak-restarts.ts).
 */
import type { Sandbox } from '../src/sandbox/sandbox';
import { figures, problems } from './soak-figures';
import { liveInstances, startInstance } from './soak-instances';
import { tab } from './soak-people';
import { changedInXeroByPerson, compareListsWithXero, noteInFlight, SLOW_INVOICES } from './soak-restarts';
import { BUILDERS, chance, IDEMPOTENCY_WINDOW_S, pick, random, SHOP, sleep } from './soak-settings';
import { billsDay, draftsDay, journalDay, payDay } from './soak-work';
import { orgOf, type World } from './soak-world';

/** A person at work in Xero's web app: pays an invoice, approves a draft, edits a reference. */
function personInXero(world: World): void {
  const shop = orgOf(world, SHOP);
  const open = shop.invoices.filter(
    (i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.total - i.amountPaid > 1,
  );
  const invoice = open[Math.floor(random() * open.length)];
  if (invoice) {
    try {
      world.sandbox.payInvoice(invoice.InvoiceID, { amount: 1 });
      changedInXeroByPerson.add(invoice.InvoiceID.toLowerCase());
      figures.personChanges += 1;
    } catch {
      // paid meanwhile
    }
  }
  const drafts = shop.invoices.filter((i) => i.Type === 'ACCREC' && i.Status === 'DRAFT');
  const draft = drafts[drafts.length - 1];
  if (draft && chance(0.3)) {
    try {
      world.sandbox.approveInvoice(draft.InvoiceID);
      changedInXeroByPerson.add(draft.InvoiceID.toLowerCase());
      figures.personChanges += 1;
    } catch {
      // changed meanwhile
    }
  }
}

function chooseFaults(world: World): void {
  const plans: Array<Parameters<Sandbox['setFaults']>[0] | null> = [
    null,
    null,
    { errorRate: 0.08, errorStatus: 503 },
    { rateLimitBurst: { count: 4, retryAfterSeconds: 1 } },
    { dropAfterWrite: 2 },
    { answerDelayMs: 2500, pathPrefix: '/api.xro/2.0/Invoices' },
    { failNext: 3, errorStatus: 500 },
  ];
  world.sandbox.clearFaults();
  const plan = pick(plans);
  if (plan) {
    world.sandbox.setFaults(plan);
    figures.faultDays += 1;
  }
}

async function crashOne(world: World): Promise<void> {
  const live = liveInstances(world.instances);
  if (live.length < 2) return;
  const victim = pick(live);
  await noteInFlight(world.db).catch(() => undefined);
  victim.server?.kill();
  victim.server = null;
  figures.crashes += 1;
  await sleep(500 + random() * 1500);
  await startInstance(victim, world.spec(victim.name));
}

export async function day(world: World, n: number): Promise<void> {
  chooseFaults(world);
  // Issue 44: some days an instance dies while pending cash and bill creates wait on a slow Xero.
  const inFlightDay = n % 6 === 4;
  // Slowness only: the soak's Xero keeps an Idempotency-Key 3 s (a month of days cannot wait out minutes), so
  // a lost answer retried after a 2.5 s wait would be applied twice by this Xero where the real one replays it.
  if (inFlightDay) {
    world.sandbox.clearFaults();
    world.sandbox.setFaults(SLOW_INVOICES);
  }
  const work = [
    payDay(world),
    draftsDay(world),
    billsDay(world),
    ...(n % 7 === 3 ? [journalDay(world)] : []),
  ];
  // Some days an instance dies while the day's writes are in flight.
  const crashes = n % 6 === 2 || inFlightDay;
  // On an in-flight day the kill waits for the drafts' first read (slow) so their pending cash is on its way.
  const wait = inFlightDay ? 2_600 + random() * 2_000 : 300 + random() * 2500;
  const crash = crashes ? sleep(wait).then(() => crashOne(world)) : Promise.resolve();
  personInXero(world);
  const settled = await Promise.allSettled([...work, crash]);
  for (const s of settled) if (s.status === 'rejected') console.error(`  day ${n}: ${String(s.reason)}`);
  world.sandbox.clearFaults();
  // After a restart every list screen shows what Xero holds, with no refresh and, on SOAK_WEBHOOKS=off, no webhook.
  if (crashes) await compareLists(world, `day ${n}, after a kill -9`);
  // Between two days Xero's idempotency window passes (the sandbox's window is shortened, see main).
  await sleep(IDEMPOTENCY_WINDOW_S * 1000 + 500);
}

/** Every list screen against Xero (bench/soak-restarts.ts), as the administrator's tabs read them. */
export function compareLists(world: World, when: string) {
  return compareListsWithXero({
    when,
    sandbox: world.sandbox,
    db: world.db,
    shop: { name: SHOP, tab: tab(world.admin, SHOP) },
    builders: { name: BUILDERS, tab: tab(world.admin, BUILDERS) },
    untrue: problems.untrueAnswers,
  });
}
