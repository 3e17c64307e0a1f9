import type { FastifyInstance } from 'fastify';

/** The pay-invoices endpoints (issue #7). Collaborators come from `app.services`, wired once in app.ts. */
export function registerPayInvoicesRoutes(app: FastifyInstance): void {
  void app;
}
