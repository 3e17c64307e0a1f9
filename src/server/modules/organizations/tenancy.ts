import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FEATURE_FLAG_FIELDS, FEATURE_LABELS, type FeatureKey } from '../../../shared/feature-flags';
import { isDbId } from '../../../shared/input';
import { AppError } from '../../lib/app-error';
import { requireUser } from '../auth/guards';
import { routeOf } from '../../plugins/route-path';
import type { OrganizationAccessRow, OrganizationsRepository } from './organizations.repository';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * `?org=` and `?organizationId=` as the query string sent them, read when the request arrives: a route's
     * query schema drops the keys it does not declare, and an organisation named in a dropped key was once
     * silently ignored (the request then acted on the active organisation: issue 28). Null before it is read.
     */
    queriedOrganization: unknown[] | null;
    /** The organisation this request works on, resolved by the tenancy hook; null on a route not scoped. */
    tenant: RequestContext | null;
  }
  interface FastifyContextConfig {
    /**
     * The route works on one organisation (docs/decisions/007-tenancy.md): with a feature, that feature's flag
     * must be on; `'organization'` for a route behind no feature. Read by the tenancy hook (registerTenancy).
     */
    tenant?: TenantScope;
  }
}

/** What an organisation-scoped route declares in `config.tenant`: its feature, or none. */
export type TenantScope = FeatureKey | 'organization';

/**
 * A query key that names an organisation in another spelling: `org[]`, `org[0]`, `organizationId[x]` (PHP's and
 * qs's arrays and objects). Never an id Ledgerlink reads, so it is refused (issue 44: `?org[]=1` was ignored and
 * the active organisation served, where two organisations named at once are refused).
 */
const BRACKETED_ORGANIZATION = /^(?:org|organizationId)\[/;

/** The values of `org` and `organizationId` a query object holds, as sent (empty ones left out). */
function organizationsInQuery(query: unknown): unknown[] {
  const q = (query ?? {}) as Record<string, unknown>;
  const found: unknown[] = [];
  for (const value of [q.org, q.organizationId])
    if (value !== undefined && value !== null && value !== '') found.push(value);
  // Kept as the key and its value, never a database id: refused as "Invalid organization ID".
  for (const key of Object.keys(q)) if (BRACKETED_ORGANIZATION.test(key)) found.push({ [key]: q[key] });
  return found;
}

/**
 * Keeps what the query string names before a route's schema parses it (the onRequest hook of app.ts) and
 * answers the organisation to read with the session: the one named, 0 for the user's active one, or -1 when the
 * query names none in a usable form (the request then resolves its organisation with a query of its own, and
 * an invalid id is refused there).
 */
export function readRequestedOrganization(request: FastifyRequest): number {
  const named = organizationsInQuery(request.query);
  request.queriedOrganization = named;
  if (named.length === 0) return 0;
  const ids = new Set(
    named.map((raw) => (typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN)),
  );
  const [id] = ids;
  return ids.size === 1 && id !== undefined && Number.isInteger(id) && id > 0 ? id : -1;
}

/**
 * The organisation id a request names: `?org=`, `?organizationId=` (whether or not the route's schema declares
 * them) or `organizationId` in a JSON body. Each must be a database id, else 400 "Invalid organization ID"; two
 * that differ are refused rather than one of them chosen.
 */
function namedOrganizationId(request: FastifyRequest): number | undefined {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<
    string,
    unknown
  >;
  const named = [...(request.queriedOrganization ?? organizationsInQuery(request.query))];
  if (body.organizationId !== undefined && body.organizationId !== null && body.organizationId !== '')
    named.push(body.organizationId);
  let id: number | undefined;
  for (const raw of named) {
    if (!isDbId(raw)) throw new AppError('VALIDATION_ERROR', 'Invalid organization ID');
    if (id !== undefined && Number(raw) !== id)
      throw new AppError('VALIDATION_ERROR', 'The request names two different organizations');
    id = Number(raw);
  }
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
  return async function resolveTenant(
    request: FastifyRequest,
    feature?: FeatureKey,
  ): Promise<RequestContext> {
    const user = requireUser(request);
    const named = namedOrganizationId(request);
    // The membership read with this request's session (same query, same moment) when it is the one asked for;
    // otherwise (an organisation named in the body, say) it is read now.
    const snapshot = request.principal?.tenancy;
    const known =
      snapshot && snapshot.requested === (named ?? 0) && request.principal?.session?.user.id === user.id
        ? snapshot
        : null;
    const found = known
      ? known.found
      : named !== undefined
        ? await repo.findMembership(user.id, named)
        : await repo.findActive(user.id);
    if (!found) {
      if (named !== undefined) throw new AppError('FORBIDDEN', 'You do not have access to this organization');
      throw new AppError('FORBIDDEN', 'No active organization. Select an organization first.');
    }
    if (!found.membership.connected) {
      throw new AppError(
        'NOT_CONNECTED',
        `Organization "${found.org.tenantName ?? 'Unknown Organization'}" is not connected to Xero`,
      );
    }
    if (feature && !found.org[FEATURE_FLAG_FIELDS[feature]]) {
      throw new AppError('FEATURE_DISABLED', featureDisabledMessage(feature));
    }
    return {
      organizationId: found.org.id,
      tenantId: found.org.tenantId,
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      ip: request.ip,
      organization: found.org,
      cacheVersion: known?.cacheVersion,
    };
  };
}
export type ResolveTenant = ReturnType<typeof createTenancy>;

/**
 * Who acts, for which organisation and from where: the one context every organisation-scoped route and service
 * takes. Each service declares the part it reads (PayContext, CisBillsContext…); this has them all.
 */
export interface RequestContext {
  organizationId: number;
  tenantId: string;
  userId: number;
  username: string;
  isAdmin: boolean;
  ip: string;
  /** Its flags and Settings defaults; its meters (calls left, bytes downloaded) are not kept here. */
  organization: OrganizationAccessRow;
  /** The organisation's invoice-cache version, when it was read with the session. */
  cacheVersion?: number | undefined;
}

/**
 * The one tenancy idiom (docs/decisions/007-tenancy.md): a route that works on an organisation declares it,
 * `config: { tenant: 'pay-invoices' }` (or `'organization'` behind no feature), and its handler reads
 * `contextOf(request)`. This hook resolves it before anything about the request's input is looked at, so the
 * order is one rule on every route: who asks (401), which organisation (400 for an id that is no id, 403), its
 * feature (403), and only then the input (400: the input guard, then the route's schema). An organisation the
 * user may not use never learns whether the rest of the request was valid.
 */
export function registerTenancy(app: FastifyInstance, resolveTenant: ResolveTenant): void {
  app.decorateRequest('tenant', null);
  // A callback hook: a route with no organisation passes without a promise (issue 32).
  app.addHook('preValidation', (request, _reply, done) => {
    const scope = routeOf(request).config.tenant;
    if (!scope) {
      done();
      return;
    }
    resolveTenant(request, scope === 'organization' ? undefined : scope).then(
      (tenant) => {
        request.tenant = tenant;
        done();
      },
      (error: unknown) => done(error as Error),
    );
  });
}

/** The organisation an organisation-scoped route works on, and who asks from where (see registerTenancy). */
export function contextOf(request: FastifyRequest): RequestContext {
  if (!request.tenant)
    throw new AppError('INTERNAL', `${request.method} ${request.url} reads a tenant it does not declare`);
  return request.tenant;
}
