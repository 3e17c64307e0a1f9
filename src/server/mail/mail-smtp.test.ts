import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getPeriodOf, getTaxMonth, shiftPeriod } from '../../shared/cis-returns';
import { addDays, getUkToday } from '../../shared/dates';
import { getReminderDate, type StatementEmail } from '../../shared/hmrc-filing';
import {
  auditLog,
  cisNilMonths,
  cisReturnFilings,
  cisStatementEmails,
  hmrcReminders,
} from '../db/schema/index';
import { createSecretBox } from '../lib/crypto';
import { createAuditLog } from '../modules/audit/audit';
import { createHmrcFilingRepository } from '../modules/hmrc-filing/hmrc-filing.repository';
import { createHmrcFilingService, type CisReturnsPort } from '../modules/hmrc-filing/hmrc-filing.service';
import { TEST_ORIGIN } from '../test/app';
import { readPdfText } from '../test/pdf-text';
import { createConnectedUser, createXeroTestApp, enableFeatures, type XeroTestApp } from '../test/xero';
import { createMailer } from './mailer';

/** One message as the mail server took it: the SMTP envelope, who logged in, and the RFC 5322 message. */
interface Received {
  from: string;
  to: string[];
  user: string;
  raw: string;
}

/**
 * A mail server of the test's own on loopback (smtp-server: a complete SMTP implementation, so Ledgerlink's mail is
 * judged by a server's reading of the protocol, not by our own). It asks for a login, refuses recipients whose
 * address holds "refused" as a real server refuses an unknown mailbox, and can be told to refuse every message.
 */
async function startMailServer(credentials: { user: string; password: string }) {
  const received: Received[] = [];
  const state = { refuseAll: false };
  const server = new SMTPServer({
    // No TLS on loopback: the plain-text login over it is what a local relay offers.
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password)
        callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (state.refuseAll || address.address.includes('refused')) {
        const error = new Error(`Mailbox ${address.address} unavailable`) as Error & {
          responseCode: number;
        };
        error.responseCode = 550;
        callback(error);
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        received.push({
          from: from ? from.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: String(session.user ?? ''),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    received,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An RFC 2047 encoded word as a mail reader shows it. */
function decodeWords(value: string): string {
  return value.replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=\s*/gi, (_m, _charset, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => `%${hex}`),
          'latin1',
        )
          .toString()
          .replace(/%([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
  );
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** Headers (unfolded, lower-case names) and body of a message or a MIME part. */
function readPart(text: string): Part {
  const split = text.search(/\r?\n\r?\n/);
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** The message and its MIME parts (one level of multipart, as nodemailer writes a mail with attachments). */
function readMessage(raw: string): { headers: Map<string, string>; parts: Part[] } {
  const message = readPart(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(message.headers.get('content-type') ?? '')?.[1];
  if (!boundary) return { headers: message.headers, parts: [message] };
  const parts = message.body
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith('--'))
    .map((p) => readPart(p.replace(/^\r?\n/, '')));
  return { headers: message.headers, parts };
}

/** A part's body as a mail reader decodes it: base64 or quoted-printable (soft line breaks joined). */
function decodeBody(part: Part): Buffer {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(part.body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const bytes: number[] = [];
    const text = part.body.replace(/=\r?\n/g, '');
    for (let i = 0; i < text.length; i++) {
      const hex = text[i] === '=' ? /^[0-9A-F]{2}$/i.exec(text.slice(i + 1, i + 3)) : null;
      if (hex) {
        bytes.push(parseInt(hex[0], 16));
        i += 2;
      } else bytes.push(text.charCodeAt(i));
    }
    return Buffer.from(bytes);
  }
  return Buffer.from(part.body, 'latin1');
}

describe('email over SMTP_URL against a mail server (issue 43)', () => {
  const login = { user: 'ledgerlink', password: 'm@il secret' };
  let mail: Awaited<ReturnType<typeof startMailServer>>;
  let t: XeroTestApp;
  let owner: Awaited<ReturnType<typeof createConnectedUser>>;
  let orgId = 0;
  const subs: Record<string, string> = {};
  const previous = shiftPeriod(getPeriodOf(getUkToday()), 1);
  const from = 'Demo Builders CIS <cis@demobuilders.example>';

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url: `${url}${url.includes('?') ? '&' : '?'}org=${orgId}`,
      headers: { cookie: owner.cookie, origin: TEST_ORIGIN },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  beforeAll(async () => {
    mail = await startMailServer(login);
    t = await createXeroTestApp({
      env: {
        SMTP_URL: `smtp://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@127.0.0.1:${mail.port}`,
        MAIL_FROM: from,
      },
      sandbox: { minuteLimit: 10_000 },
      xeroHttp: { gate: { maxInFlight: 5, perMinute: 10_000, windowMs: 60_500 } },
    });
    const builders = t.sandbox.state.orgs.find((o) => o.Name === 'Demo Builders Ltd');
    if (!builders) throw new Error('seed changed');
    const billIds = new Set(builders.invoices.filter((i) => i.Type === 'ACCPAY').map((i) => i.InvoiceID));
    builders.invoices = builders.invoices.filter((i) => !billIds.has(i.InvoiceID));
    builders.payments = builders.payments.filter((p) => !billIds.has(p.InvoiceID));
    for (const c of builders.contacts) subs[c.Name] = c.ContactID;
    owner = await createConnectedUser(t, 'owner', { tenants: ['Demo Builders Ltd'] });
    orgId = owner.orgs[0]?.organizationId ?? 0;
    await enableFeatures(t, orgId);
    const settings = await call('PUT', '/api/xero/cis/settings', {
      contractorName: 'Demo Builders (Contracts) Ltd',
      utr: '5012345678',
      employerReference: '120/DB45678',
      accountsOfficeReference: '120PD00456789',
      materialsAccountCodes: [],
    });
    expect(settings.statusCode, settings.body).toBe(200);
    for (const [name, utr] of [
      ['Hughes Groundworks Ltd', '7100000000'],
      ['A. Patel Plastering', '7100011111'],
    ] as const) {
      const res = await call('PUT', `/api/xero/cis/subcontractors/${subs[name]}`, {
        utr,
        verificationNumber: null,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    // Paid last tax month, entered with Xero's own CIS (labour on CIS Labour Expense, 327): £1,000 less 20 %.
    const day = addDays(getTaxMonth(previous).start, 3);
    for (const name of ['Hughes Groundworks Ltd', 'A. Patel Plastering']) {
      const bill = t.sandbox.enterBill({
        contactId: subs[name] ?? '',
        date: day,
        reference: `S-${name.slice(0, 3)}`,
        lineAmountTypes: 'NoTax',
        lines: [{ description: 'Labour', unitAmount: 1000, accountCode: '327' }],
      });
      t.sandbox.payInvoice(bill.invoiceId, { amount: bill.amountDue, date: day });
    }
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });
  beforeEach(() => {
    mail.received.length = 0;
    mail.state.refuseAll = false;
  });

  it("delivers a subcontractor's statement to the address Xero holds: sender, recipient, subject, and the PDF readable", async () => {
    const sent = await call(
      'POST',
      `/api/xero/cis/statements/${subs['Hughes Groundworks Ltd']}/email?period=${previous}`,
    );
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({
      to: 'accounts@hughes.groundworks.ltd.example',
      via: 'smtp',
      sentBy: 'owner',
    } satisfies Partial<StatementEmail>);

    expect(mail.received).toHaveLength(1);
    const [got] = mail.received;
    // The envelope: logged in as SMTP_URL says, from MAIL_FROM's address, to the contact's address in Xero.
    expect(got?.user).toBe(login.user);
    expect(got?.from).toBe('cis@demobuilders.example');
    expect(got?.to).toEqual(['accounts@hughes.groundworks.ltd.example']);
    const message = readMessage(got?.raw ?? '');
    expect(message.headers.get('from')).toBe('Demo Builders CIS <cis@demobuilders.example>');
    expect(message.headers.get('to')).toBe('accounts@hughes.groundworks.ltd.example');
    const end = getTaxMonth(previous).end;
    expect(decodeWords(message.headers.get('subject') ?? '')).toBe(
      `CIS payment and deduction statement: tax month to ${end} from Demo Builders (Contracts) Ltd`,
    );
    // The words, and the statement attached as a PDF a reader opens.
    const text = message.parts.find((p) => p.headers.get('content-type')?.startsWith('text/plain'));
    expect(decodeBody(text ?? { headers: new Map(), body: '' }).toString('utf8')).toContain(
      'Dear Hughes Groundworks Ltd,',
    );
    const attachment = message.parts.find((p) =>
      p.headers.get('content-type')?.startsWith('application/pdf'),
    );
    expect(attachment?.headers.get('content-disposition')).toContain(
      `cis-statement-${previous}-hughes-groundworks-ltd.pdf`,
    );
    const pdf = decodeBody(attachment ?? { headers: new Map(), body: '' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(readPdfText(pdf)).toEqual(
      expect.arrayContaining([
        'Payment and deduction statement',
        'Demo Builders (Contracts) Ltd',
        '120/DB45678',
        'Hughes Groundworks Ltd',
        '7100000000',
        '£1,000.00',
        '£200.00',
      ]),
    );
    // Kept: who it went to, and the activity log's line.
    const rows = await t.database.db
      .select()
      .from(cisStatementEmails)
      .where(eq(cisStatementEmails.organizationId, orgId));
    expect(rows.map((r) => r.sentTo)).toEqual(['accounts@hughes.groundworks.ltd.example']);
    const [line] = await t.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'cis-returns.statement-emailed'));
    expect(line?.detail).toMatchObject({ via: 'smtp', to: 'accounts@hughes.groundworks.ltd.example' });
  });

  it("says the mail server's refusal in words and records nothing as sent", async () => {
    t.sandbox.editContact(subs['A. Patel Plastering'] ?? '', { email: 'refused@patel.example' });
    const refused = await call(
      'POST',
      `/api/xero/cis/statements/${subs['A. Patel Plastering']}/email?period=${previous}`,
    );
    expect(refused.statusCode, refused.body).toBe(422);
    expect((refused.json() as { message: string }).message).toMatch(
      /^The email could not be sent: the mail server said ".*Mailbox refused@patel\.example unavailable.*"\.$/,
    );
    expect(refused.body).not.toContain(login.password);
    expect(mail.received).toHaveLength(0);
    const rows = await t.database.db
      .select()
      .from(cisStatementEmails)
      .where(
        and(
          eq(cisStatementEmails.organizationId, orgId),
          eq(cisStatementEmails.sentTo, 'refused@patel.example'),
        ),
      );
    expect(rows).toEqual([]);
  });

  describe('the deadline reminder, 5 days before the 19th', () => {
    /** The reminder job as the wiring runs it, on a day of the test's choosing, mailing through the same server. */
    function reminderJob(day: string, smtpPassword = login.password) {
      const db = t.database.db;
      const unused = () => Promise.reject(new Error('not used by the reminder'));
      return createHmrcFilingService({
        repo: createHmrcFilingRepository(db),
        box: createSecretBox(randomBytes(32)),
        audit: createAuditLog(db, { warn: () => undefined }),
        endpoints: {
          submissionUrl: null,
          kind: null,
          vendorId: '',
          gatewayTest: true,
          product: 'Ledgerlink',
          version: '1',
        },
        cisReturns: new Proxy({}, { get: () => unused }) as unknown as CisReturnsPort,
        syncContacts: unused,
        checkCisContacts: unused,
        mailer: createMailer({
          smtpUrl: `smtp://${encodeURIComponent(login.user)}:${encodeURIComponent(smtpPassword)}@127.0.0.1:${mail.port}`,
          from,
          outbox: null,
        }),
        instanceId: 'test',
        today: () => day,
      }).sendReminders();
    }
    // Months well before the statement test's, so its month is never touched here.
    const month = (back: number) => shiftPeriod(previous, back);
    const reminders = () => t.database.db.select().from(auditLog).where(eq(auditLog.action, 'hmrc.reminder'));

    beforeAll(async () => {
      const saved = await call('PUT', '/api/xero/cis/hmrc/reminders', {
        enabled: true,
        email: 'owner@demobuilders.example',
      });
      expect(saved.statusCode, saved.body).toBe(200);
    });

    it('goes once, on the 14th, for a month not filed: to whoever asked, saying what is due and when', async () => {
      const p = month(6);
      const due = getTaxMonth(p).dueDate;
      const on = getReminderDate(p);
      expect(on).toBe(addDays(due, -5));
      // The day before: nothing yet.
      await reminderJob(addDays(on, -1));
      expect(mail.received).toHaveLength(0);
      await reminderJob(on);
      expect(mail.received).toHaveLength(1);
      const [got] = mail.received;
      expect(got?.to).toEqual(['owner@demobuilders.example']);
      expect(got?.from).toBe('cis@demobuilders.example');
      const message = readMessage(got?.raw ?? '');
      expect(decodeWords(message.headers.get('subject') ?? '')).toBe(
        `CIS return due ${due}: tax month to ${getTaxMonth(p).end} (Demo Builders Ltd)`,
      );
      const body = decodeBody(message.parts[0] ?? { headers: new Map(), body: '' }).toString('utf8');
      expect(body).toContain(`It is due by ${due}`);
      expect(body).toContain('HMRC charges £100 as soon as a return is late.');
      // The next days and another instance's run: still one.
      await Promise.all([reminderJob(addDays(on, 1)), reminderJob(addDays(on, 1))]);
      expect(mail.received).toHaveLength(1);
      expect((await reminders()).filter((r) => r.target === p)).toHaveLength(1);
      // After the 19th the card says overdue; the reminder does not go again.
      await reminderJob(addDays(due, 1));
      expect(mail.received).toHaveLength(1);
    });

    it('does not go for a month filed, or a nil month HMRC was told of, or with reminders off', async () => {
      const filed = month(5);
      await t.database.db.insert(cisReturnFilings).values({
        organizationId: orgId,
        period: filed,
        filedOn: getTaxMonth(filed).dueDate,
        filedByName: 'owner',
        source: 'manual',
        lines: [],
        totals: { grossAmount: 0, materialsAmount: 0, deductionAmount: 0 },
        deductionPence: 0,
      });
      await reminderJob(getReminderDate(filed));
      const nil = month(4);
      await t.database.db
        .insert(cisNilMonths)
        .values({ organizationId: orgId, period: nil, kind: 'told-in-advance', markedByName: 'owner' });
      await reminderJob(getReminderDate(nil));
      expect(mail.received).toHaveLength(0);

      const off = await call('PUT', '/api/xero/cis/hmrc/reminders', { enabled: false, email: null });
      expect(off.statusCode, off.body).toBe(200);
      await reminderJob(getReminderDate(month(3)));
      expect(mail.received).toHaveLength(0);
      const on = await call('PUT', '/api/xero/cis/hmrc/reminders', {
        enabled: true,
        email: 'owner@demobuilders.example',
      });
      expect(on.statusCode, on.body).toBe(200);
    });

    it('a reminder the mail server refused goes on the next run', async () => {
      const p = month(2);
      mail.state.refuseAll = true;
      await reminderJob(getReminderDate(p));
      expect(mail.received).toHaveLength(0);
      const kept = await t.database.db
        .select()
        .from(hmrcReminders)
        .where(and(eq(hmrcReminders.organizationId, orgId), eq(hmrcReminders.period, p)));
      expect(kept).toEqual([]);
      // A wrong password is refused by the server too, and nothing is kept as sent.
      mail.state.refuseAll = false;
      await reminderJob(getReminderDate(p), 'wrong password');
      expect(mail.received).toHaveLength(0);
      await reminderJob(addDays(getReminderDate(p), 1));
      expect(mail.received.map((m) => m.to)).toEqual([['owner@demobuilders.example']]);
    });
  });
});
