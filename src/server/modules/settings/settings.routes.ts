import type { FastifyInstance } from 'fastify';

/** The settings endpoints (issue #6). Collaborators come from `app.services`, wired once in app.ts. */
export function registerSettingsRoutes(app: FastifyInstance): void {
  void app;
}
