/**
 * Credit notes (issue 42): list with where/order/paging/If-Modified-Since, and get one. Read-only here: a
 * person enters, allocates and refunds them in Xero's web app (control endpoints, src/sandbox/person-credit.ts).
 * Xero's webhooks do not cover credit notes; an allocation changes the bill, which is reported.
 */
import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../runtime';
import type { CreditNoteRec } from '../state';
import { dayToMs, parseModifiedSince } from '../xero-dates';
import { UUID_RE } from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiRouteConfig } from './pipeline';
import { compileOrder, compileWhere, paginate, readPaging, type FieldMap } from './query';
import { creditNoteJson } from './serialize';

const fields: FieldMap<CreditNoteRec> = {
  type: (n) => n.Type,
  status: (n) => n.Status,
  creditnoteid: (n) => n.CreditNoteID,
  creditnotenumber: (n) => n.CreditNoteNumber,
  date: (n) => ({ kind: 'date', ms: dayToMs(n.Date) }),
  updateddateutc: (n) => ({ kind: 'date', ms: n.updatedMs }),
  total: (n) => n.total / 100,
  'contact.contactid': (n) => n.ContactID,
  contactid: (n) => n.ContactID,
};

export function registerCreditNoteRoutes(app: FastifyInstance, rt: Runtime): void {
  // Credit notes are in the invoices scope (accounting.invoices, or accounting.transactions).
  const read: ApiRouteConfig = { scope: 'invoices' };

  app.get('/CreditNotes', apiRoute(read), async (request, reply) => {
    const { org, q } = ctxOf(request);
    let items = org.creditNotes ?? [];
    const since = parseModifiedSince(request.headers['if-modified-since']);
    if (since !== null) items = items.filter((n) => n.updatedMs > since);
    const where = compileWhere(q.where, fields, 'CreditNote');
    if (where) items = items.filter(where);
    const order =
      compileOrder(q.order, fields, 'CreditNote') ??
      ((a: CreditNoteRec, b: CreditNoteRec) =>
        a.updatedMs - b.updatedMs || (a.CreditNoteID < b.CreditNoteID ? -1 : 1));
    items = [...items].sort(order);
    const page = paginate(items, readPaging(q));
    return reply.send(
      envelope(
        rt,
        'CreditNotes',
        page.items.map((n) => creditNoteJson(org, n)),
        page.pagination ? { pagination: page.pagination } : {},
      ),
    );
  });

  app.get<{ Params: { CreditNoteID: string } }>(
    '/CreditNotes/:CreditNoteID',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.CreditNoteID.toLowerCase();
      const note = UUID_RE.test(id) ? (org.creditNotes ?? []).find((n) => n.CreditNoteID === id) : undefined;
      if (!note) throw XeroError.notFound();
      return reply.send(envelope(rt, 'CreditNotes', [creditNoteJson(org, note)]));
    },
  );
}
