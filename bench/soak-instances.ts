/**
 * The soak's app instances (separate Node processes) and the loopback load balancer in front of them, which
 * loses or holds some of Xero's webhook deliveries (bench/soak.ts).
 */
import http from 'node:http';
import { spawnServer, type ChildServer } from './lib/child';
import { freePort } from './lib/postgres';
import { figures } from './soak-figures';
import { chance, random, sleep } from './soak-settings';

// ── instances and the balancer ───────────────────────────────────────────────────────────────────────────
export interface Instance {
  name: string;
  server: ChildServer | null;
}

export async function startInstance(instance: Instance, spec: Record<string, unknown>): Promise<void> {
  instance.server = await spawnServer(['app', JSON.stringify(spec)]);
}

export function liveInstances(instances: Instance[]): Instance[] {
  return instances.filter((i) => i.server !== null);
}

/**
 * The load balancer on a loopback port: requests go to a live instance in turn. Xero's webhook deliveries
 * come through it too, and there some are lost (answered 200 and never passed on) or held for a few seconds.
 */
export async function startBalancer(instances: Instance[]): Promise<{ url: string; close(): Promise<void> }> {
  let turn = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const isWebhook = (req.url ?? '').startsWith('/api/xero/webhooks');
        if (isWebhook && body.length > 0 && chance(0.08)) {
          figures.webhooksDropped += 1;
          res.writeHead(200).end();
          return;
        }
        if (isWebhook && chance(0.1)) {
          figures.webhooksDelayed += 1;
          await sleep(2000 + random() * 3000);
        }
        const live = liveInstances(instances);
        const target = live[turn++ % Math.max(1, live.length)]?.server;
        if (!target) {
          res.writeHead(503).end();
          return;
        }
        try {
          const answer = await fetch(`${target.url}${req.url ?? '/'}`, {
            method: req.method ?? 'GET',
            redirect: 'manual',
            headers: Object.fromEntries(
              Object.entries(req.headers).filter(
                (e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'host',
              ),
            ),
            ...(body.length > 0 ? { body } : {}),
          });
          const headers: Record<string, string | string[]> = {};
          answer.headers.forEach((value, name) => {
            if (
              ![
                'set-cookie',
                'content-encoding',
                'content-length',
                'transfer-encoding',
                'connection',
              ].includes(name)
            )
              headers[name] = value;
          });
          const cookies = answer.headers.getSetCookie();
          if (cookies.length > 0) headers['set-cookie'] = cookies;
          res.writeHead(answer.status, headers);
          res.end(Buffer.from(await answer.arrayBuffer()));
        } catch {
          res.writeHead(502).end();
        }
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
