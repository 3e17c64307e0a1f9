import type { FastifyInstance } from 'fastify';

/** The stock-journal endpoints (issue #10). Collaborators come from `app.services`, wired once in app.ts. */
export function registerStockJournalRoutes(app: FastifyInstance): void {
  void app;
}
