/** Contacts (search, where, paging), ContactGroups and contact CIS settings. docs/xero-api.md §4.5, §4.8. */
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime';
import type { ContactRec, ContactGroupRec, OrgRec } from '../state';
import { parseModifiedSince } from '../xero-dates';
import { UUID_RE } from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiRouteConfig } from './pipeline';
import { compileOrder, compileWhere, listParam, paginate, readPaging, type FieldMap } from './query';
import { contactJson, indexOrg } from './serialize';

function contactFields(org: OrgRec): FieldMap<ContactRec> {
  return {
    contactid: (c) => c.ContactID,
    contactnumber: (c) => c.ContactNumber ?? null,
    name: (c) => c.Name,
    firstname: (c) => c.FirstName ?? null,
    lastname: (c) => c.LastName ?? null,
    emailaddress: (c) => c.EmailAddress ?? null,
    contactstatus: (c) => c.ContactStatus,
    issupplier: (c) => c.IsSupplier,
    iscustomer: (c) => c.IsCustomer,
    taxnumber: (c) => c.TaxNumber ?? null,
    updateddateutc: (c) => ({ kind: 'date', ms: c.updatedMs }),
    'contactgroups.name': (c) =>
      org.contactGroups.find((g) => g.Status === 'ACTIVE' && g.contactIds.includes(c.ContactID))?.Name ??
      null,
  };
}

const groupFields: FieldMap<ContactGroupRec> = {
  contactgroupid: (g) => g.ContactGroupID,
  name: (g) => g.Name,
  status: (g) => g.Status,
};

function findContact(org: OrgRec, idOrNumber: string): ContactRec | undefined {
  if (UUID_RE.test(idOrNumber)) return org.contacts.find((c) => c.ContactID === idOrNumber.toLowerCase());
  return org.contacts.find((c) => c.ContactNumber === idOrNumber);
}

export function registerContactRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'contacts' };

  app.get('/Contacts', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    const fields = contactFields(org);
    let items = org.contacts;
    if (q.includearchived?.toLowerCase() !== 'true')
      items = items.filter((c) => c.ContactStatus !== 'ARCHIVED');
    const ids = listParam(q.ids).map((s) => s.toLowerCase());
    if (ids.length) items = items.filter((c) => ids.includes(c.ContactID));
    if (q.searchterm) {
      const term = q.searchterm.toLowerCase();
      items = items.filter((c) =>
        [c.Name, c.FirstName, c.LastName, c.ContactNumber, c.EmailAddress].some((v) =>
          v?.toLowerCase().includes(term),
        ),
      );
    }
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((c) => c.updatedMs > since);
    const where = compileWhere(q.where, fields, 'Contact');
    if (where) items = items.filter(where);
    const order =
      compileOrder(q.order, fields, 'Contact') ??
      ((a: ContactRec, b: ContactRec) => a.Name.localeCompare(b.Name));
    items = [...items].sort(order);
    const paging = readPaging(q);
    const page = paginate(items, paging);
    const summary = q.summaryonly?.toLowerCase() === 'true';
    const idx = indexOrg(org);
    return reply.send(
      envelope(
        rt,
        'Contacts',
        page.items.map((c) => contactJson(org, c, summary, idx)),
        page.pagination ? { pagination: page.pagination } : {},
      ),
    );
  });

  app.get<{ Params: { ContactID: string } }>(
    '/Contacts/:ContactID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const contact = findContact(org, request.params.ContactID);
      if (!contact) throw XeroError.notFound();
      return reply.send(envelope(rt, 'Contacts', [contactJson(org, contact)]));
    },
  );

  // CIS settings are settings, not contacts (xero_accounting.yaml …/CISSettings/get/security).
  app.get<{ Params: { ContactID: string } }>(
    '/Contacts/:ContactID/CISSettings',
    apiRoute({ scope: 'settings' }),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const contact = findContact(org, request.params.ContactID);
      if (!contact) throw XeroError.notFound();
      const cis = contact.cis;
      const setting: Record<string, unknown> = { CISEnabled: Boolean(cis?.enabled) };
      if (cis?.enabled && cis.rate !== undefined) setting.Rate = cis.rate;
      return reply.send({ CISSettings: [setting] });
    },
  );

  app.get('/ContactGroups', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    let items = org.contactGroups.filter((g) => g.Status === 'ACTIVE');
    const where = compileWhere(q.where, groupFields, 'ContactGroup');
    if (where) items = org.contactGroups.filter(where);
    const order = compileOrder(q.order, groupFields, 'ContactGroup');
    if (order) items = [...items].sort(order);
    return reply.send(
      envelope(
        rt,
        'ContactGroups',
        items.map((g) => ({
          ContactGroupID: g.ContactGroupID,
          Name: g.Name,
          Status: g.Status,
          Contacts: [],
          HasValidationErrors: false,
        })),
      ),
    );
  });

  app.get<{ Params: { ContactGroupID: string } }>(
    '/ContactGroups/:ContactGroupID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.ContactGroupID.toLowerCase();
      const group = UUID_RE.test(id) ? org.contactGroups.find((g) => g.ContactGroupID === id) : undefined;
      if (!group) throw XeroError.notFound();
      const contacts = group.contactIds
        .map((cid) => org.contacts.find((c) => c.ContactID === cid))
        .filter((c): c is ContactRec => Boolean(c))
        .map((c) => ({ ContactID: c.ContactID, Name: c.Name }));
      return reply.send(
        envelope(rt, 'ContactGroups', [
          {
            ContactGroupID: group.ContactGroupID,
            Name: group.Name,
            Status: group.Status,
            Contacts: contacts,
            HasValidationErrors: false,
          },
        ]),
      );
    },
  );
}
