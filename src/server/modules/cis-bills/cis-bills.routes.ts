import type { FastifyInstance } from 'fastify';

/** The cis-bills endpoints (issue #9). Collaborators come from `app.services`, wired once in app.ts. */
export function registerCisBillsRoutes(app: FastifyInstance): void {
  void app;
}
