import type { FastifyRequest } from 'fastify';
import { FEATURE_FLAG_FIELDS, FEATURE_LABELS, type FeatureKey } from '../../../shared/feature-flags';
import { AppError } from '../../lib/app-error';
import { requireUser } from '../auth/guards';
import type { SessionUser } from '../auth/sessions';
import type { OrganizationRow, OrganizationsRepository } from './organizations.repository';

export interface TenantContext {
  user: SessionUser;
  organization: OrganizationRow;
  organizationId: number;
  tenantId: string;
  /** The organisation's invoice-cache version, when it was read with the session (src/server/lib/body-cache.ts). */
  cacheVersion?: number | undefined;
}

/** An organisation id a request names: `?org=`, `?organizationId=`, or `organizationId` in a JSON body. */
function namedOrganizationId(request: FastifyRequest): number | undefined {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const raw = query.org ?? query.organizationId ?? body.organizationId;
  if (raw === undefined || raw === null || raw === '') return undefined;
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) throw new AppError('VALIDATION_ERROR', 'Invalid organization ID');
  return id;
}

export function featureDisabledMessage(feature: FeatureKey): string {
  return `${FEATURE_LABELS[feature]} is disabled for this organization. Please contact an administrator to enable it.`;
}

/**
 * Resolves the organisation an organisation-scoped request works on: the one it names, or the user's active
 * one. The user must be linked to it and it must be connected; with a feature, that feature's flag must be on.
 * No organisation id from a request is trusted without this check.
 */
export function createTenancy(repo: OrganizationsRepository) {
  return async function resolveTenant(request: FastifyRequest, feature?: FeatureKey): Promise<TenantContext> {
    const user = requireUser(request);
    const named = namedOrganizationId(request);
    const found = named !== undefined ? await repo.findMembership(user.id, named) : await repo.findActive(user.id);
    if (!found) {
      if (named !== undefined) throw new AppError('FORBIDDEN', 'You do not have access to this organization');
      throw new AppError('FORBIDDEN', 'No active organization. Select an organization first.');
    }
    if (!found.membership.connected) {
      throw new AppError('FORBIDDEN', `Organization "${found.org.tenantName ?? 'Unknown Organization'}" is not connected to Xero`);
    }
    if (feature && !found.org[FEATURE_FLAG_FIELDS[feature]]) {
      throw new AppError('FEATURE_DISABLED', featureDisabledMessage(feature));
    }
    return { user, organization: found.org, organizationId: found.org.id, tenantId: found.org.tenantId };
  };
}
export type ResolveTenant = ReturnType<typeof createTenancy>;
