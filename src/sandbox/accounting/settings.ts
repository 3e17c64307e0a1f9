/** Organisation, Accounts, TaxRates and the organisation's CIS settings (accounting.settings). */
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime';
import type { AccountRec, TaxRateRec } from '../state';
import { parseModifiedSince } from '../xero-dates';
import { UUID_RE } from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiRouteConfig } from './pipeline';
import { compileOrder, compileWhere, type FieldMap } from './query';
import { accountJson, organisationJson, taxRateJson } from './serialize';

const accountFields: FieldMap<AccountRec> = {
  accountid: (a) => a.AccountID,
  code: (a) => a.Code ?? null,
  name: (a) => a.Name,
  type: (a) => a.Type,
  status: (a) => a.Status,
  class: (a) => a.Class,
  bankaccounttype: (a) => (a.Type === 'BANK' ? (a.BankAccountType ?? '') : ''),
  taxtype: (a) => a.TaxType,
  systemaccount: (a) => a.SystemAccount ?? null,
  enablepaymentstoaccount: (a) => a.EnablePaymentsToAccount,
  showinexpenseclaims: (a) => a.ShowInExpenseClaims,
  updateddateutc: (a) => ({ kind: 'date', ms: a.updatedMs }),
};

const taxRateFields: FieldMap<TaxRateRec> = {
  name: (t) => t.Name,
  taxtype: (t) => t.TaxType,
  status: (t) => t.Status,
  reporttaxtype: (t) => t.ReportTaxType,
  effectiverate: (t) => t.rateE4 / 10000,
  displaytaxrate: (t) => t.rateE4 / 10000,
  canapplytorevenue: (t) => t.revenue,
  canapplytoexpenses: (t) => t.expenses,
  canapplytoassets: (t) => t.assets,
  canapplytoliabilities: (t) => t.liabilities,
  canapplytoequity: (t) => t.equity,
};

export function registerSettingsRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'settings' };

  app.get('/Organisation', apiRoute(read), async (request, reply) => {
    const { org } = ctxOf(request);
    return reply.send(envelope(rt, 'Organisations', [organisationJson(org)]));
  });

  app.get<{ Params: { OrganisationID: string } }>(
    '/Organisation/:OrganisationID/CISSettings',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      if (request.params.OrganisationID.toLowerCase() !== org.OrganisationID) throw XeroError.notFound();
      const setting: Record<string, unknown> = {
        CISContractorEnabled: org.cis.contractor,
        CISSubContractorEnabled: org.cis.subContractor,
      };
      if (org.cis.subContractor && org.cis.rate !== undefined) setting.Rate = org.cis.rate;
      return reply.send({ CISSettings: [setting] });
    },
  );

  app.get('/Accounts', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    let items = org.accounts;
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((a) => a.updatedMs > since);
    const where = compileWhere(q.where, accountFields, 'Account');
    if (where) items = items.filter(where);
    const order = compileOrder(q.order, accountFields, 'Account');
    if (order) items = [...items].sort(order);
    return reply.send(envelope(rt, 'Accounts', items.map(accountJson)));
  });

  app.get<{ Params: { AccountID: string } }>(
    '/Accounts/:AccountID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.AccountID.toLowerCase();
      const account = UUID_RE.test(id) ? org.accounts.find((a) => a.AccountID === id) : undefined;
      if (!account) throw XeroError.notFound();
      return reply.send(envelope(rt, 'Accounts', [accountJson(account)]));
    },
  );

  app.get('/TaxRates', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    let items = org.taxRates;
    if (q.taxtype) items = items.filter((t) => t.TaxType === q.taxtype);
    const where = compileWhere(q.where, taxRateFields, 'TaxRate');
    if (where) items = items.filter(where);
    const order = compileOrder(q.order, taxRateFields, 'TaxRate');
    if (order) items = [...items].sort(order);
    return reply.send(envelope(rt, 'TaxRates', items.map(taxRateJson)));
  });
}
