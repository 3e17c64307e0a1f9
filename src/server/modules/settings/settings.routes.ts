import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  bankAccountsCleanupResponseSchema,
  bankAccountsResponseSchema,
  dataCleanupResponseSchema,
} from '../../../shared/pay-invoices';
import {
  accountsResponseSchema,
  contactGroupsResponseSchema,
  contactsQuerySchema,
  contactsResponseSchema,
  referenceListQuerySchema,
  settingsUpdateRequestSchema,
  settingsUpdateResponseSchema,
  vatRatesResponseSchema,
} from '../../../shared/settings';
import { contextOf, type RequestContext } from '../organizations/tenancy';
import type { AccountKind, ActorInfo, SettingsService } from './settings.service';

/** The reference lists of docs/product/shell.md §7 that are accounts, and the rule each one applies. */
const ACCOUNT_LISTS: Array<[path: string, kind: AccountKind]> = [
  ['/api/xero/sales-accounts', 'sales-account'],
  ['/api/xero/bill-accounts', 'bill-account'],
  ['/api/xero/asset-accounts', 'stock-account'],
  ['/api/xero/cost-accounts', 'cost-account'],
];

function actorOf(ctx: RequestContext): ActorInfo {
  return { userId: ctx.userId, username: ctx.username, ip: ctx.ip };
}

/** Every route here works on one organisation; settings are behind no feature (docs/decisions/007-tenancy.md). */
const TENANT = { tenant: 'organization' } as const;

/**
 * The settings endpoints (issue #6): `PATCH /api/xero/settings`, the reference lists the defaults are chosen
 * from, and the two cache clean-ups. Settings are not behind a feature flag, but every call is scoped to an
 * organisation the user is linked to (`?org=` or `organizationId`, else the active one) by the tenancy hook (`config: TENANT`).
 */
export function registerSettingsRoutes(
  root: FastifyInstance,
  { settings }: { settings: SettingsService },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();

  app.patch(
    '/api/xero/settings',
    {
      config: TENANT,
      schema: { body: settingsUpdateRequestSchema, response: { 200: settingsUpdateResponseSchema } },
    },
    async (request) => {
      const tenant = contextOf(request);
      const defaults = await settings.updateSettings(tenant, request.body, actorOf(tenant));
      return { ...defaults, organizationId: tenant.organizationId };
    },
  );

  for (const [path, kind] of ACCOUNT_LISTS) {
    app.get(
      path,
      {
        config: TENANT,
        schema: { querystring: referenceListQuerySchema, response: { 200: accountsResponseSchema } },
      },
      async (request) => {
        const tenant = contextOf(request);
        return settings.listAccounts(tenant, kind, { refresh: request.query.refresh });
      },
    );
  }

  app.get(
    '/api/xero/vat-rates',
    {
      config: TENANT,
      schema: { querystring: referenceListQuerySchema, response: { 200: vatRatesResponseSchema } },
    },
    async (request) => {
      const tenant = contextOf(request);
      return settings.listVatRates(tenant, { refresh: request.query.refresh });
    },
  );

  app.get(
    '/api/xero/contact-groups',
    {
      config: TENANT,
      schema: { querystring: referenceListQuerySchema, response: { 200: contactGroupsResponseSchema } },
    },
    async (request) => {
      const tenant = contextOf(request);
      return settings.listContactGroups(tenant, { refresh: request.query.refresh });
    },
  );

  app.get(
    '/api/xero/contacts',
    {
      config: TENANT,
      schema: { querystring: contactsQuerySchema, response: { 200: contactsResponseSchema } },
    },
    async (request) => {
      const tenant = contextOf(request);
      const ids = (request.query.ids ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '' && id !== 'none')
        .slice(0, 20);
      return settings.searchContacts(tenant, {
        search: request.query.search ?? '',
        ids,
        refresh: request.query.refresh,
      });
    },
  );

  // The settings screen's card and cash selects. `GET /api/xero/bank-accounts` belongs to Pay Invoices and is
  // behind its feature flag; the defaults can be read (and their card shown) whatever the flag.
  app.get(
    '/api/xero/settings/bank-accounts',
    {
      config: TENANT,
      schema: { querystring: referenceListQuerySchema, response: { 200: bankAccountsResponseSchema } },
    },
    async (request) => {
      const tenant = contextOf(request);
      return settings.listBankAccounts(tenant, { refresh: request.query.refresh });
    },
  );

  app.post(
    '/api/xero/bank-accounts/cleanup',
    {
      config: TENANT,
      schema: {
        querystring: referenceListQuerySchema.pick({ org: true }),
        response: { 200: bankAccountsCleanupResponseSchema },
      },
    },
    async (request) => {
      const tenant = contextOf(request);
      return settings.cleanupBankAccounts(tenant, actorOf(tenant));
    },
  );

  app.post(
    '/api/xero/data/cleanup',
    {
      config: TENANT,
      schema: {
        querystring: referenceListQuerySchema.pick({ org: true }),
        response: { 200: dataCleanupResponseSchema },
      },
    },
    async (request) => {
      const tenant = contextOf(request);
      return settings.cleanupOldData(tenant, actorOf(tenant));
    },
  );
}
