/**
 * The soak's people (bench/soak.ts): their browser tabs, one per organisation, and how a request is made as a
 * browser makes it (resent with the same key while the answer is in doubt) and recorded with what it was told.
 */
import { ApiClient, signIn, type UserOrganization } from './lib/harness';
import { actions, figures, type Action, type Told } from './soak-figures';
import { liveInstances, type Instance } from './soak-instances';
import { trackRequest } from './soak-restarts';
import { pick, SHOP, sleep } from './soak-settings';

// ── people ───────────────────────────────────────────────────────────────────────────────────────────────
export interface Person {
  name: string;
  password: string;
  /** The session that signed up and connected Xero. */
  client: ApiClient;
  orgs: UserOrganization[];
  /** A browser tab per organisation the person works in, each its own session with that organisation active. */
  tabs: Record<string, ApiClient>;
}

export function tab(person: Person, org: string): ApiClient {
  const client = person.tabs[org];
  if (!client) throw new Error(`${person.name} has no ${org} tab`);
  return client;
}

/**
 * A browser tab on one organisation. The active organisation belongs to the user, not to a tab, so a person
 * working in two organisations at once names the organisation in each request (`?organizationId=`, honoured by
 * every organisation-scoped route), as the screens do.
 */
class OrgTab extends ApiClient {
  constructor(
    base: string,
    cookie: string,
    readonly organizationId: number,
  ) {
    super(base, cookie);
  }

  override on(base: string): OrgTab {
    return new OrgTab(base, this.cookie, this.organizationId);
  }

  override send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const named = url.startsWith('/api/xero/') && !url.startsWith('/api/xero/set-active-organization');
    const sep = url.includes('?') ? '&' : '?';
    return super.send(
      method,
      named ? `${url}${sep}organizationId=${this.organizationId}` : url,
      body,
      headers,
    );
  }
}

/** Opens each person's tabs: a session per organisation (the active organisation belongs to a session). */
export async function openTabs(base: string, people: Array<[Person, string[]]>, orgs: UserOrganization[]) {
  for (const [person, names] of people) {
    for (const name of names) {
      const org = orgs.find((o) => o.tenantName === name);
      if (!org) throw new Error(`${name} is not connected`);
      const client = new OrgTab(base, '', org.organizationId);
      await signIn(client, { username: person.name, password: person.password });
      person.tabs[name] = client;
    }
  }
}

/**
 * A 200 that says nothing was done (`{processed: 0, failed: [...]}` from Add Invoices, `{created: 0, failed: n}`
 * from CIS Bills) is what the screen shows as a failure.
 */
function nothingDone(text: string): boolean {
  try {
    const body = JSON.parse(text) as { processed?: number; created?: number; failed?: unknown };
    const failed = Array.isArray(body.failed)
      ? body.failed.length
      : typeof body.failed === 'number'
        ? body.failed
        : 0;
    return (
      failed > 0 &&
      (body.processed === 0 ||
        body.created === 0 ||
        (body.processed === undefined && body.created === undefined))
    );
  } catch {
    return false;
  }
}

/** A request as a browser makes it: to a live instance, resent with the same key while the answer is in doubt. */
export async function act(
  instances: Instance[],
  person: Person,
  method: string,
  url: string,
  body: unknown,
  key: string,
  org: string = SHOP,
  headers: Record<string, string> = {},
): Promise<{ told: Told; status: number; text: string }> {
  let last = { told: 'in-doubt' as Told, status: 0, text: 'no answer' };
  for (let attempt = 0; attempt < 6; attempt++) {
    const live = liveInstances(instances);
    const instance = live.length > 0 ? pick(live) : null;
    if (!instance?.server) {
      await sleep(1000);
      continue;
    }
    if (attempt > 0) figures.resends += 1;
    const answered = trackRequest(url, body);
    try {
      const res = await tab(person, org)
        .on(instance.server.url)
        .send(method, url, body, { ...headers, 'idempotency-key': key })
        .finally(answered);
      const stillOpen = res.status === 409 && /already being processed/i.test(res.text);
      if (res.status < 300)
        return { told: nothingDone(res.text) ? 'refused' : 'success', status: res.status, text: res.text };
      if (res.status < 500 && res.status !== 429 && !stillOpen)
        return { told: 'refused', status: res.status, text: res.text };
      last = { told: 'in-doubt', status: res.status, text: res.text };
    } catch (error) {
      last = { told: 'in-doubt', status: 0, text: error instanceof Error ? error.message : String(error) };
    }
    await sleep(500 * 2 ** attempt);
  }
  return last;
}

export function record(
  action: Omit<Action, 'told' | 'status' | 'message' | 'answer'>,
  answer: Awaited<ReturnType<typeof act>>,
) {
  const message = (() => {
    try {
      const body = JSON.parse(answer.text) as {
        message?: string;
        error?: string;
        failed?: unknown;
        results?: Array<{ ok?: boolean; message?: string }>;
      };
      const failed = Array.isArray(body.failed) ? body.failed.length : Number(body.failed ?? 0);
      // CIS Bills answers per bill: what each refused bill was told, as the screen shows it.
      const refused = (body.results ?? []).filter((r) => r.ok === false).map((r) => r.message ?? '');
      if (failed > 0 && refused.length > 0) return `failed: ${failed}: ${[...new Set(refused)].join(' | ')}`;
      if (failed > 0) return `failed: ${JSON.stringify(body.failed).slice(0, 200)}`;
      return body.message ?? body.error ?? '';
    } catch {
      return answer.text.slice(0, 120);
    }
  })();
  actions.push({
    ...action,
    told: answer.told,
    status: answer.status,
    message,
    answer: answer.text.slice(0, 2000),
  });
}
