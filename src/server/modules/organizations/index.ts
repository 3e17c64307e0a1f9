import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/client';
import type { ModuleEntry } from '../../wiring/module-entry';
import { createEgressMeter } from './egress-meter';
import { createOrganizationsRepository } from './organizations.repository';
import { createTenancy } from './tenancy';

/**
 * The organisations' entry (issue 46): organisations and memberships, which organisation a request works on
 * (docs/decisions/007-tenancy.md: app.ts's tenancy hook and each route's declared check, unchanged) and the bytes
 * read from Xero, counted per organisation (decision 019). Built before the shared parts, which the Xero client's
 * counts and every module's tenancy stand on; its counts are written out as the app closes.
 */
export function organizationsModule(database: Database, log: FastifyBaseLogger) {
  const orgs = createOrganizationsRepository(database);
  const egress = createEgressMeter({ store: orgs, log });
  return {
    service: { orgs, egress, resolveTenant: createTenancy(orgs) },
    close: () => egress.flush(),
  } satisfies ModuleEntry;
}
