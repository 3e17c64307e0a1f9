import type { FastifyInstance } from 'fastify';

/** The add-invoices endpoints (issue #8). Collaborators come from `app.services`, wired once in app.ts. */
export function registerAddInvoicesRoutes(app: FastifyInstance): void {
  void app;
}
