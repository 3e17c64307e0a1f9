import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  cisCountedPayments,
  cisNilMonths,
  cisReturnFilings,
  cisStatementEmails,
  cisSubcontractorRefs,
  cisVerifications,
  hmrcCredentials,
  hmrcReminders,
  hmrcSubmissions,
  ledgerInstances,
  mailOutbox,
  mailOutboxAttachments,
  organizations,
  xeroContacts,
  xeroInvoices,
} from '../../db/schema/index';

export type SubmissionRow = typeof hmrcSubmissions.$inferSelect;
export type NewSubmission = typeof hmrcSubmissions.$inferInsert;
export type VerificationRow = typeof cisVerifications.$inferSelect;
export type CredentialsRow = typeof hmrcCredentials.$inferSelect;

/** PostgreSQL's unique_violation, as pg and PGlite report it. */
function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

/** Drizzle queries of filing with HMRC (issue 43); every one is filtered by organisation or by a row's id. */
export function createHmrcFilingRepository(db: Db) {
  return {
    async findCredentials(organizationId: number): Promise<CredentialsRow | null> {
      const [row] = await db
        .select()
        .from(hmrcCredentials)
        .where(eq(hmrcCredentials.organizationId, organizationId));
      return row ?? null;
    },

    async saveCredentials(
      organizationId: number,
      values: Partial<Omit<typeof hmrcCredentials.$inferInsert, 'organizationId'>>,
    ): Promise<void> {
      const set = { ...values, updatedAt: new Date() };
      await db
        .insert(hmrcCredentials)
        .values({ organizationId, ...set })
        .onConflictDoUpdate({ target: hmrcCredentials.organizationId, set });
    },

    /** Inserts a submission; null when another one holds its place (the month's open return, the key). */
    async insertSubmission(row: NewSubmission): Promise<SubmissionRow | null> {
      try {
        const [inserted] = await db.insert(hmrcSubmissions).values(row).returning();
        return inserted ?? null;
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    async getSubmission(id: number): Promise<SubmissionRow | null> {
      const [row] = await db.select().from(hmrcSubmissions).where(eq(hmrcSubmissions.id, id));
      return row ?? null;
    },

    async findByKey(
      organizationId: number,
      kind: 'cis300' | 'verify',
      key: string,
    ): Promise<SubmissionRow | null> {
      const [row] = await db
        .select()
        .from(hmrcSubmissions)
        .where(
          and(
            eq(hmrcSubmissions.organizationId, organizationId),
            eq(hmrcSubmissions.kind, kind),
            eq(hmrcSubmissions.idempotencyKey, key),
          ),
        );
      return row ?? null;
    },

    /** The month's return on its way or accepted (at most one), else its latest rejected one. */
    async findReturn(organizationId: number, period: string): Promise<SubmissionRow | null> {
      const rows = await db
        .select()
        .from(hmrcSubmissions)
        .where(
          and(
            eq(hmrcSubmissions.organizationId, organizationId),
            eq(hmrcSubmissions.kind, 'cis300'),
            eq(hmrcSubmissions.period, period),
          ),
        )
        .orderBy(desc(hmrcSubmissions.id));
      return rows.find((r) => r.state !== 'rejected') ?? rows[0] ?? null;
    },

    async findOpenVerification(organizationId: number, contactId: string): Promise<SubmissionRow | null> {
      const [row] = await db
        .select()
        .from(hmrcSubmissions)
        .where(
          and(
            eq(hmrcSubmissions.organizationId, organizationId),
            eq(hmrcSubmissions.kind, 'verify'),
            eq(hmrcSubmissions.contactId, contactId),
            eq(hmrcSubmissions.state, 'sending'),
          ),
        );
      return row ?? null;
    },

    async findOpenVerifications(organizationId: number): Promise<SubmissionRow[]> {
      return db
        .select()
        .from(hmrcSubmissions)
        .where(
          and(
            eq(hmrcSubmissions.organizationId, organizationId),
            eq(hmrcSubmissions.kind, 'verify'),
            eq(hmrcSubmissions.state, 'sending'),
          ),
        );
    },

    /** Applies a change if the row is still where the caller saw it (`expect`); answers the row, or null. */
    async updateSubmission(
      id: number,
      change: Partial<NewSubmission>,
      expect: { phase?: SubmissionRow['phase']; state?: SubmissionRow['state'] } = {},
    ): Promise<SubmissionRow | null> {
      const [row] = await db
        .update(hmrcSubmissions)
        .set(change)
        .where(
          and(
            eq(hmrcSubmissions.id, id),
            expect.phase ? eq(hmrcSubmissions.phase, expect.phase) : undefined,
            expect.state ? eq(hmrcSubmissions.state, expect.state) : undefined,
          ),
        )
        .returning();
      return row ?? null;
    },

    /** Takes the row for `ms` if nobody holds it (instances share the polling); null when another holds it. */
    async lease(id: number, ms: number): Promise<SubmissionRow | null> {
      const [row] = await db
        .update(hmrcSubmissions)
        .set({ leaseUntil: sql`now() + make_interval(secs => ${ms / 1000})` })
        .where(
          and(
            eq(hmrcSubmissions.id, id),
            or(isNull(hmrcSubmissions.leaseUntil), lt(hmrcSubmissions.leaseUntil, sql`now()`)),
          ),
        )
        .returning();
      return row ?? null;
    },

    /** Submissions with work to do: on their way and due, or answered and not yet off HMRC's queue. */
    async findDue(limit = 20): Promise<SubmissionRow[]> {
      return db
        .select()
        .from(hmrcSubmissions)
        .where(
          or(
            and(
              eq(hmrcSubmissions.state, 'sending'),
              or(isNull(hmrcSubmissions.nextPollAt), lt(hmrcSubmissions.nextPollAt, sql`now()`)),
            ),
            and(
              eq(hmrcSubmissions.phase, 'answered'),
              eq(hmrcSubmissions.queueDeleted, false),
              sql`${hmrcSubmissions.correlationId} is not null`,
            ),
          ),
        )
        .orderBy(asc(hmrcSubmissions.id))
        .limit(limit);
    },

    /** Milliseconds since the instance last beat (ledger_instances), null when it is not there. */
    async instanceBeatAgeMs(instanceId: string): Promise<number | null> {
      const [row] = await db
        .select({
          ageMs: sql<number>`(extract(epoch from (now() - ${ledgerInstances.beatAt})) * 1000)::float8`,
        })
        .from(ledgerInstances)
        .where(eq(ledgerInstances.id, instanceId));
      return row ? Number(row.ageMs) : null;
    },

    /** Milliseconds since a row was sent, on the database's clock. */
    async sentAgeMs(id: number): Promise<number | null> {
      const [row] = await db
        .select({
          ageMs: sql<number>`(extract(epoch from (now() - ${hmrcSubmissions.sentAt})) * 1000)::float8`,
        })
        .from(hmrcSubmissions)
        .where(eq(hmrcSubmissions.id, id));
      return row?.ageMs === null || row?.ageMs === undefined ? null : Number(row.ageMs);
    },

    findOrganization(organizationId: number) {
      return db
        .select()
        .from(organizations)
        .where(eq(organizations.id, organizationId))
        .then((r) => r[0] ?? null);
    },

    async saveVerification(row: typeof cisVerifications.$inferInsert): Promise<void> {
      const { organizationId: _o, contactId: _c, ...set } = row;
      await db
        .insert(cisVerifications)
        .values(row)
        .onConflictDoUpdate({ target: [cisVerifications.organizationId, cisVerifications.contactId], set });
    },

    async findVerifications(
      organizationId: number,
      contactIds?: readonly string[],
    ): Promise<VerificationRow[]> {
      if (contactIds && contactIds.length === 0) return [];
      return db
        .select()
        .from(cisVerifications)
        .where(
          and(
            eq(cisVerifications.organizationId, organizationId),
            contactIds ? inArray(cisVerifications.contactId, [...contactIds]) : undefined,
          ),
        );
    },

    /** Contacts as the cache holds them (name, email, Xero's CIS settings). */
    findContacts(organizationId: number, contactIds?: readonly string[]) {
      if (contactIds && contactIds.length === 0) return Promise.resolve([]);
      return db
        .select({
          contactId: xeroContacts.contactId,
          name: xeroContacts.name,
          email: xeroContacts.email,
          cisEnabled: xeroContacts.cisEnabled,
          cisRate: xeroContacts.cisRate,
          groupIds: xeroContacts.groupIds,
          isSupplier: xeroContacts.isSupplier,
          status: xeroContacts.status,
        })
        .from(xeroContacts)
        .where(
          and(
            eq(xeroContacts.organizationId, organizationId),
            contactIds ? inArray(xeroContacts.contactId, [...contactIds]) : undefined,
          ),
        );
    },

    /** UTRs kept for subcontractors (the CIS month-end's table, read only). */
    findUtrs(organizationId: number, contactIds: readonly string[]) {
      if (contactIds.length === 0) return Promise.resolve([]);
      return db
        .select({
          contactId: cisSubcontractorRefs.contactId,
          utr: cisSubcontractorRefs.utr,
          verificationNumber: cisSubcontractorRefs.verificationNumber,
        })
        .from(cisSubcontractorRefs)
        .where(
          and(
            eq(cisSubcontractorRefs.organizationId, organizationId),
            inArray(cisSubcontractorRefs.contactId, [...contactIds]),
          ),
        );
    },

    /** The last day each contact was paid on a bill (the invoice cache's payments), by contact. */
    /**
     * When each contact was last paid (HMRC's rule asks about payments in this tax year and the two before it): the
     * latest payment on a bill in the cache, or counted for the CIS return (cis_counted_payments, kept after the
     * cache's clean-up drops paid bills older than three months: decision 042). `before`: payments before that day.
     */
    async findLastPaid(organizationId: number, before: string | null = null): Promise<Map<string, string>> {
      const until = before ?? '9999-12-31';
      const rows = await db.execute<{ contact_id: string; last_paid: string }>(sql`
        select lower(contact_id) as contact_id, max(last_paid) as last_paid from (
          select ${xeroInvoices.contactId} as contact_id, max(substr(p->>'date', 1, 10)) as last_paid
          from ${xeroInvoices}, jsonb_array_elements(${xeroInvoices.payments}) p
          where ${xeroInvoices.organizationId} = ${organizationId} and ${xeroInvoices.type} = 'ACCPAY'
            and ${xeroInvoices.contactId} is not null and substr(p->>'date', 1, 10) < ${until}
          group by ${xeroInvoices.contactId}
          union all
          select ${cisCountedPayments.contactId} as contact_id, max(${cisCountedPayments.date})::text as last_paid
          from ${cisCountedPayments}
          where ${cisCountedPayments.organizationId} = ${organizationId}
            and ${cisCountedPayments.documentType} = 'ACCPAY' and ${cisCountedPayments.date} < ${until}
          group by ${cisCountedPayments.contactId}
        ) paid
        group by lower(contact_id)`);
      const list =
        (Array.isArray(rows)
          ? rows
          : (rows as { rows: Array<{ contact_id: string; last_paid: string }> }).rows) ?? [];
      return new Map(list.map((r) => [String(r.contact_id), String(r.last_paid).slice(0, 10)]));
    },

    /**
     * Months with nothing more to send: marked filed, or nil months marked "HMRC told in advance" / "scheme
     * inactive" (the CIS month-end's tables, read only). No reminder goes for them.
     */
    async findFiledPeriods(organizationId: number, periods: readonly string[]): Promise<Set<string>> {
      if (periods.length === 0) return new Set();
      const [filed, nil] = await Promise.all([
        db
          .select({ period: cisReturnFilings.period })
          .from(cisReturnFilings)
          .where(
            and(
              eq(cisReturnFilings.organizationId, organizationId),
              inArray(cisReturnFilings.period, [...periods]),
            ),
          ),
        db
          .select({ period: cisNilMonths.period })
          .from(cisNilMonths)
          .where(
            and(eq(cisNilMonths.organizationId, organizationId), inArray(cisNilMonths.period, [...periods])),
          ),
      ]);
      return new Set([...filed, ...nil].map((r) => r.period));
    },

    async findAcceptedPeriods(organizationId: number, periods: readonly string[]): Promise<Set<string>> {
      if (periods.length === 0) return new Set();
      const rows = await db
        .select({ period: hmrcSubmissions.period })
        .from(hmrcSubmissions)
        .where(
          and(
            eq(hmrcSubmissions.organizationId, organizationId),
            eq(hmrcSubmissions.kind, 'cis300'),
            eq(hmrcSubmissions.state, 'accepted'),
            inArray(hmrcSubmissions.period, [...periods]),
          ),
        );
      return new Set(rows.map((r) => r.period ?? ''));
    },

    async insertStatementEmail(row: typeof cisStatementEmails.$inferInsert) {
      const [inserted] = await db.insert(cisStatementEmails).values(row).returning();
      return inserted;
    },

    findStatementEmails(organizationId: number, period: string) {
      return db
        .select()
        .from(cisStatementEmails)
        .where(
          and(eq(cisStatementEmails.organizationId, organizationId), eq(cisStatementEmails.period, period)),
        )
        .orderBy(asc(cisStatementEmails.sentAt));
    },

    /** Organisations whose contractor asked for the deadline reminder. */
    findReminderOrganizations() {
      return db
        .select({ organizationId: hmrcCredentials.organizationId, email: hmrcCredentials.reminderEmail })
        .from(hmrcCredentials)
        .where(eq(hmrcCredentials.remindersEnabled, true));
    },

    /** Claims the month's reminder; false when it was already sent. */
    async claimReminder(organizationId: number, period: string, sentTo: string): Promise<boolean> {
      const rows = await db
        .insert(hmrcReminders)
        .values({ organizationId, period, sentTo })
        .onConflictDoNothing()
        .returning({ period: hmrcReminders.period });
      return rows.length > 0;
    },

    async releaseReminder(organizationId: number, period: string): Promise<void> {
      await db
        .delete(hmrcReminders)
        .where(and(eq(hmrcReminders.organizationId, organizationId), eq(hmrcReminders.period, period)));
    },

    /** The outbox, newest first, for the organisations a user may see. */
    findOutbox(organizationIds: readonly number[]) {
      if (organizationIds.length === 0) return Promise.resolve([]);
      return db
        .select({
          id: mailOutbox.id,
          organizationId: mailOutbox.organizationId,
          sentTo: mailOutbox.sentTo,
          sentFrom: mailOutbox.sentFrom,
          subject: mailOutbox.subject,
          body: mailOutbox.body,
          attachments: mailOutbox.attachments,
          createdAt: mailOutbox.createdAt,
        })
        .from(mailOutbox)
        .where(inArray(mailOutbox.organizationId, [...organizationIds]))
        .orderBy(desc(mailOutbox.id))
        .limit(200);
    },

    async findOutboxAttachment(messageId: number, position: number) {
      const [row] = await db
        .select({
          organizationId: mailOutbox.organizationId,
          filename: mailOutboxAttachments.filename,
          contentType: mailOutboxAttachments.contentType,
          content: mailOutboxAttachments.content,
        })
        .from(mailOutboxAttachments)
        .innerJoin(mailOutbox, eq(mailOutbox.id, mailOutboxAttachments.messageId))
        .where(
          and(eq(mailOutboxAttachments.messageId, messageId), eq(mailOutboxAttachments.position, position)),
        );
      return row ?? null;
    },

    async findOutboxRaw(messageId: number) {
      const [row] = await db
        .select({ organizationId: mailOutbox.organizationId, raw: mailOutbox.raw })
        .from(mailOutbox)
        .where(eq(mailOutbox.id, messageId));
      return row ?? null;
    },
  };
}
export type HmrcFilingRepository = ReturnType<typeof createHmrcFilingRepository>;
