/** GET/DELETE /connections (xero-identity.yaml): the tenants a user has connected to this app. */
import type { FastifyInstance } from 'fastify';
import { applyLatency, authenticate } from './accounting/pipeline';
import { XeroError } from './accounting/errors';
import { findOrg, type Runtime } from './runtime';
import { connectionDate } from './xero-dates';

export function registerConnectionRoutes(app: FastifyInstance, rt: Runtime): void {
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof XeroError) {
      reply.headers(error.headers);
      return reply
        .status(error.status)
        .type(error.contentType)
        .send(typeof error.body === 'string' ? error.body : JSON.stringify(error.body));
    }
    return reply.send(error);
  });

  app.get('/connections', async (request, reply) => {
    rt.ledger.countIdentity('connections');
    await applyLatency(rt, request);
    const identity = await authenticate(rt, request);
    const q = request.query as Record<string, string | undefined>;
    const authEventId = (q.authEventId ?? q.autheventid)?.toLowerCase();
    const list = rt.state.identity.connections
      .filter((c) => c.userId === identity.user.userId && c.clientId === identity.clientId)
      .filter((c) => !authEventId || c.authEventId === authEventId)
      .sort((a, b) => a.createdMs - b.createdMs)
      .map((c) => ({
        id: c.id,
        authEventId: c.authEventId,
        tenantId: c.tenantId,
        tenantType: 'ORGANISATION',
        tenantName: findOrg(rt, c.tenantId)?.Name ?? '',
        createdDateUtc: connectionDate(c.createdMs),
        updatedDateUtc: connectionDate(c.updatedMs),
      }));
    return reply.send(list);
  });

  app.delete<{ Params: { id: string } }>('/connections/:id', async (request, reply) => {
    rt.ledger.countIdentity('connectionsDelete');
    const identity = await authenticate(rt, request);
    const id = request.params.id.toLowerCase();
    const ids = rt.state.identity;
    const found = ids.connections.find(
      (c) => c.id === id && c.userId === identity.user.userId && c.clientId === identity.clientId,
    );
    if (!found) return reply.status(404).send();
    ids.connections = ids.connections.filter((c) => c !== found);
    rt.markDirty();
    return reply.status(204).send();
  });
}
