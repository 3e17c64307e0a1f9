import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { todayResponseSchema } from '../../../shared/practice';
import { AppError } from '../../lib/app-error';
import { sendCachedBody } from '../../lib/body-cache';
import { requireUser } from '../auth/guards';
import type { PracticeService } from './practice.service';

const HEARTBEAT_MS = 25_000;
/** How often an open stream checks that its session still holds. */
const RECHECK_MS = 30_000;
/** Changes arriving together (a page of invoices read, a batch of webhooks) are told as one event. */
const GATHER_MS = 250;

/**
 * The Today page's endpoints (issue 47): its rows, and a stream telling an open page which rows changed. Both
 * are the signed-in user's own: every organisation they may see and no other, whatever the request names, so
 * they declare no single organisation (decision 007) and each organisation's membership is read with the rows.
 */
export function registerPracticeRoutes(
  root: FastifyInstance,
  deps: {
    service: PracticeService;
    /** Whether the session is still signed in (sessions.ts isLive). */
    isLive: (sessionId: string) => Promise<boolean>;
  },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { service } = deps;
  const open = new Set<() => void>();
  root.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get(
    '/api/practice/today',
    {
      schema: {
        description:
          'Every organisation the user may see, one row each, most urgent first: invoices awaiting payment, drafts to approve, draft CIS bills, the CIS month, stock-journal weeks not posted, writes in Needs review and the connection. Answered from what Ledgerlink holds; an organisation not yet read is read in the background (`status`).',
        response: { 200: todayResponseSchema },
      },
    },
    async (request, reply) => {
      requireUser(request);
      const body = await service.getToday(
        request.principal ?? { session: null, xeroToken: null, tenancy: null },
      );
      return sendCachedBody(request, reply, body);
    },
  );

  app.get('/api/practice/events', async (request, reply) => {
    const user = requireUser(request);
    if (!String(request.headers.accept ?? '').includes('text/event-stream'))
      throw new AppError(
        'BAD_REQUEST',
        'This address sends an event stream: ask for Accept: text/event-stream',
      );
    const sessionId = request.session?.id ?? '';
    let mine = await service.listOrganizationIds(user.id);
    const raw = reply.raw;
    let gathered = new Set<number>();
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      timer = undefined;
      if (gathered.size === 0) return;
      const ids = [...gathered].sort((a, b) => a - b);
      gathered = new Set();
      raw.write(`event: rows\ndata: ${JSON.stringify({ organizationIds: ids })}\n\n`);
    };
    const unsubscribe = service.subscribe(user.id, (ids) => {
      if (ids === 'all') {
        // Memberships may have changed: the filter is read again, and every row is named.
        void service
          .listOrganizationIds(user.id)
          .then((fresh) => {
            mine = fresh;
            for (const id of mine) gathered.add(id);
            timer ??= setTimeout(flush, GATHER_MS);
          })
          .catch(() => undefined);
        return;
      }
      const relevant = ids.filter((id) => mine.has(id));
      if (relevant.length === 0) return;
      for (const id of relevant) gathered.add(id);
      timer ??= setTimeout(flush, GATHER_MS);
    });

    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(`retry: 2000\n: the Today page's rows\n\n`);
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const recheck = setInterval(() => {
      void deps
        .isLive(sessionId)
        .then((live) => {
          if (!live) raw.end();
        })
        .catch(() => undefined);
    }, RECHECK_MS);
    const end = () => raw.end();
    open.add(end);
    const stop = () => {
      open.delete(end);
      clearInterval(heartbeat);
      clearInterval(recheck);
      if (timer) clearTimeout(timer);
      unsubscribe();
    };
    raw.on('close', stop);
    raw.on('error', stop);
  });
}
