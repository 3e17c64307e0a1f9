/**
 * Invoice attachments: list and content (by AttachmentID or FileName — disambiguated by UUID shape,
 * docs/xero-api.md §8). Files are generated on demand from the seed; the bytes are the file's, typed with
 * its MIME type. docs/xero-api.md §4.2.
 */
import type { FastifyInstance } from 'fastify';
import { createPdf, createPng } from '../files';
import type { Runtime } from '../runtime';
import type { AttachmentRec } from '../state';
import { UUID_RE } from './batch';
import { XeroError } from './errors';
import { apiRoute, ctxOf, envelope, type ApiRouteConfig } from './pipeline';
import { attachmentJson } from './serialize';

const cache = new Map<string, Buffer>();

export function attachmentContent(a: AttachmentRec): Buffer {
  const key = `${a.AttachmentID}:${a.MimeType}:${a.title}`;
  let content = cache.get(key);
  if (!content) {
    content =
      a.MimeType === 'application/pdf'
        ? createPdf(a.title, [
            'Ledgerlink sandbox document',
            `File: ${a.FileName}`,
            'Generated from seed data.',
          ])
        : createPng(a.title);
    if (cache.size > 2000) cache.clear();
    cache.set(key, content);
  }
  return content;
}

export function registerAttachmentRoutes(app: FastifyInstance, rt: Runtime): void {
  const read: ApiRouteConfig = { scope: 'attachments' };

  app.get<{ Params: { InvoiceID: string } }>(
    '/Invoices/:InvoiceID/Attachments',
    apiRoute(read),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.InvoiceID.toLowerCase();
      const inv = UUID_RE.test(id) ? org.invoices.find((i) => i.InvoiceID === id) : undefined;
      if (!inv) throw XeroError.notFound();
      const items = org.attachments
        .filter((a) => a.InvoiceID === inv.InvoiceID)
        .map((a) => attachmentJson(rt, a, attachmentContent(a).length));
      return reply.send(envelope(rt, 'Attachments', items));
    },
  );

  app.get<{ Params: { InvoiceID: string; Attachment: string } }>(
    '/Invoices/:InvoiceID/Attachments/:Attachment',
    apiRoute({ ...read, binary: true }),
    async (request, reply) => {
      const { org } = ctxOf(request);
      const id = request.params.InvoiceID.toLowerCase();
      const key = request.params.Attachment;
      const list = org.attachments.filter((a) => a.InvoiceID === id);
      const found = UUID_RE.test(key)
        ? list.find((a) => a.AttachmentID === key.toLowerCase())
        : list.find((a) => a.FileName.toLowerCase() === key.toLowerCase());
      if (!found) throw XeroError.notFound();
      const content = attachmentContent(found);
      return reply
        .type(found.MimeType)
        .header('content-disposition', `inline; filename="${found.FileName.replace(/"/g, '')}"`)
        .header('content-length', String(content.length))
        .send(content);
    },
  );
}
