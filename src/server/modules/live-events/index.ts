import type { ModuleEntry, SharedParts } from '../../wiring/module-entry';
import { registerLiveEventsRoutes } from './live-events.routes';

/**
 * Live screens' entry (issue 46): the stream of an organisation's changes (`GET /api/events`), open while the
 * session is signed in and its user linked to the connected organisation. The events themselves are a shared part.
 */
export function liveEventsModule(parts: SharedParts) {
  const { live, sessions, orgs } = parts;
  return {
    register(app) {
      registerLiveEventsRoutes(app, {
        live,
        mayStillRead: async (sessionId, userId, organizationId) =>
          (await sessions.isLive(sessionId)) &&
          Boolean((await orgs.findMembership(userId, organizationId))?.membership.connected),
      });
    },
  } satisfies ModuleEntry;
}
