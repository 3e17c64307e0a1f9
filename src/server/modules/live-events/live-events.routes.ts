import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FEATURE_FLAG_FIELDS } from '../../../shared/feature-flags';
import { AppError } from '../../lib/app-error';
import type { LiveEvent, LiveEvents } from '../../lib/live-events';
import { contextOf } from '../organizations/tenancy';

const HEARTBEAT_MS = 25_000;
/** How often an open stream checks that its user may still use the organisation (sign-out, disconnect). */
const RECHECK_MS = 30_000;

const eventsQuery = z.looseObject({
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, 'Invalid lastEventId')
    .optional(),
});

/**
 * `GET /api/events`: a server-sent-events stream of the changes Xero reported for one organisation the user
 * may use (`?org=`, or their active one), so open screens update in place. Each event carries its number; a
 * browser that reconnects sends it back (Last-Event-ID) and gets what it missed first. The stream ends when the
 * session or the membership does; EventSource then reconnects and is refused if it may no longer read.
 */
export function registerLiveEventsRoutes(
  root: FastifyInstance,
  deps: {
    live: LiveEvents;
    /** Whether the session is still signed in and its user still linked to the connected organisation. */
    mayStillRead: (sessionId: string, userId: number, organizationId: number) => Promise<boolean>;
  },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { live, mayStillRead } = deps;
  // Open streams end when the server closes, so a shutdown does not wait for browsers to hang up.
  const open = new Set<() => void>();
  root.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  // One organisation the user may use, whichever of its features are on (checked below): decision 007.
  const options = { config: { tenant: 'organization' as const }, schema: { querystring: eventsQuery } };
  app.get('/api/events', options, async (request, reply) => {
    const tenant = contextOf(request);
    const org = tenant.organization;
    if (!Object.values(FEATURE_FLAG_FIELDS).some((field) => org[field])) {
      throw new AppError(
        'FEATURE_DISABLED',
        'Every feature is switched off for this organization: there is nothing to update live.',
      );
    }
    // EventSource always asks for an event stream; anything else gets an answer, not a stream that never ends.
    if (!String(request.headers.accept ?? '').includes('text/event-stream')) {
      throw new AppError(
        'BAD_REQUEST',
        'This address sends an event stream: ask for Accept: text/event-stream',
      );
    }
    const header = request.headers['last-event-id'];
    const resumeRaw =
      typeof header === 'string' && /^\d{1,15}$/.test(header) ? header : request.query.lastEventId;
    const organizationId = tenant.organizationId;
    const userId = tenant.userId;
    const sessionId = request.session?.id ?? '';

    // Events published while the replay is read are queued, then sent in order without repeats.
    let lastSent = resumeRaw !== undefined ? Number(resumeRaw) : await live.lastId();
    let replaying = true;
    const queued: LiveEvent[] = [];
    const raw = reply.raw;
    const write = (event: LiveEvent) => {
      if (event.id <= lastSent) return;
      lastSent = event.id;
      raw.write(
        `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify({ organizationId: event.organizationId, ...(event.payload as object) })}\n\n`,
      );
    };
    const unsubscribe = live.subscribe((event) => {
      if (event.organizationId !== organizationId) return;
      if (replaying) queued.push(event);
      else write(event);
    });

    reply.hijack();
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // Proxies (nginx) must pass each event on at once.
      'x-accel-buffering': 'no',
    });
    // The opening block names where the stream starts (`id:` without data: the browser keeps it as its last event
    // id, and no event fires). A screen that has seen no event yet then still reconnects with Last-Event-ID after a
    // dropped connection or a server's restart, and gets what was published while it was away (issue 46: after a
    // kill -9, a change settled before the screen reconnected was lost to it). Checked in Chromium: the reconnect
    // carries the id.
    raw.write(`id: ${lastSent}\nretry: 2000\n: stream for organization ${organizationId}\n\n`);
    for (const event of await live.readSince([organizationId], lastSent)) write(event);
    replaying = false;
    for (const event of queued.splice(0)) write(event);

    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
    const recheck = setInterval(() => {
      void (async () => {
        try {
          if (!(await mayStillRead(sessionId, userId, organizationId))) raw.end();
        } catch {
          // The database did not answer: check again next time.
        }
      })();
    }, RECHECK_MS);
    const end = () => raw.end();
    open.add(end);
    const stop = () => {
      open.delete(end);
      clearInterval(heartbeat);
      clearInterval(recheck);
      unsubscribe();
    };
    raw.on('close', stop);
    raw.on('error', stop);
  });
}
