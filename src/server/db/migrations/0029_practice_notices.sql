-- The Today page (issue 47) keeps each organisation's row in each instance's memory, as principals are kept
-- (decision 032): every change to what a row is made of is announced on one channel, in the writer's
-- transaction, whoever writes, and each instance drops the rows it names. Migration 0019 already announces
-- organisations (flags, Settings defaults), memberships, tokens and the invoice-cache version; these announce
-- the rest, as 'o:<organisation id>' ('*' for a TRUNCATE): contacts and contact groups (a subcontractor's CIS
-- settings and group), accounts (CIS materials), CIS filings and the contractor's CIS settings, stock-journal
-- entries, writes entering or leaving Needs review, and what has been read of Xero (xero_sync_state; a lease
-- taken or let go changes nothing read, and is not announced). Tables written a thousand rows at a time by a
-- sync announce once per statement and organisation.
CREATE OR REPLACE FUNCTION notify_practice_change() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('ledgerlink_practice', '*');
    RETURN NULL;
  END IF;
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('ledgerlink_practice', 'o:' || c.organization_id)
    FROM (SELECT DISTINCT organization_id FROM changed_rows) c;
    RETURN NULL;
  END IF;
  PERFORM pg_notify('ledgerlink_practice', 'o:' || k)
  FROM (
    SELECT DISTINCT r->>'organization_id' AS k
    FROM (
      SELECT to_jsonb(OLD) AS r WHERE TG_OP <> 'INSERT'
      UNION ALL
      SELECT to_jsonb(NEW) WHERE TG_OP <> 'DELETE'
    ) rows_seen
  ) keys
  WHERE k IS NOT NULL;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER xero_contacts_practice_insert AFTER INSERT ON xero_contacts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contacts_practice_update AFTER UPDATE ON xero_contacts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contacts_practice_delete AFTER DELETE ON xero_contacts
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contact_groups_practice_insert AFTER INSERT ON xero_contact_groups
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contact_groups_practice_update AFTER UPDATE ON xero_contact_groups
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contact_groups_practice_delete AFTER DELETE ON xero_contact_groups
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_accounts_practice_insert AFTER INSERT ON xero_accounts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_accounts_practice_update AFTER UPDATE ON xero_accounts
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_accounts_practice_delete AFTER DELETE ON xero_accounts
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_return_filings_practice_notice AFTER INSERT OR UPDATE OR DELETE ON cis_return_filings
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_contractor_settings_practice_notice AFTER INSERT OR UPDATE OR DELETE ON cis_contractor_settings
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER stock_journal_entries_practice_notice AFTER INSERT OR UPDATE OR DELETE ON stock_journal_entries
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_writes_practice_insert AFTER INSERT ON xero_writes
  FOR EACH ROW WHEN (NEW.state = 'needs_review') EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_writes_practice_update AFTER UPDATE OF state ON xero_writes
  FOR EACH ROW WHEN ((OLD.state = 'needs_review') IS DISTINCT FROM (NEW.state = 'needs_review'))
  EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_writes_practice_delete AFTER DELETE ON xero_writes
  FOR EACH ROW WHEN (OLD.state = 'needs_review') EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_sync_state_practice_insert AFTER INSERT ON xero_sync_state
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_sync_state_practice_update AFTER UPDATE ON xero_sync_state
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'lease_until') IS DISTINCT FROM (to_jsonb(NEW) - 'lease_until'))
  EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_sync_state_practice_delete AFTER DELETE ON xero_sync_state
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contacts_practice_truncate AFTER TRUNCATE ON xero_contacts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_contact_groups_practice_truncate AFTER TRUNCATE ON xero_contact_groups
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_accounts_practice_truncate AFTER TRUNCATE ON xero_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_return_filings_practice_truncate AFTER TRUNCATE ON cis_return_filings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_contractor_settings_practice_truncate AFTER TRUNCATE ON cis_contractor_settings
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER stock_journal_entries_practice_truncate AFTER TRUNCATE ON stock_journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_writes_practice_truncate AFTER TRUNCATE ON xero_writes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_sync_state_practice_truncate AFTER TRUNCATE ON xero_sync_state
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
-- What the CIS month of a Today row is made of since issues 42, 43 and 45 (merged beside it): the payments the
-- return counted, credit notes (refunds), and nil-month marks (a
-- connection found lost is announced through user_organizations and xero_tokens, as 0019 does).
CREATE TRIGGER cis_counted_payments_practice_insert AFTER INSERT ON cis_counted_payments
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_counted_payments_practice_update AFTER UPDATE ON cis_counted_payments
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_counted_payments_practice_delete AFTER DELETE ON cis_counted_payments
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_credit_notes_practice_insert AFTER INSERT ON xero_credit_notes
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_credit_notes_practice_update AFTER UPDATE ON xero_credit_notes
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_credit_notes_practice_delete AFTER DELETE ON xero_credit_notes
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_nil_months_practice_notice AFTER INSERT OR UPDATE OR DELETE ON cis_nil_months
  FOR EACH ROW EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_counted_payments_practice_truncate AFTER TRUNCATE ON cis_counted_payments
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER xero_credit_notes_practice_truncate AFTER TRUNCATE ON xero_credit_notes
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
--> statement-breakpoint
CREATE TRIGGER cis_nil_months_practice_truncate AFTER TRUNCATE ON cis_nil_months
  FOR EACH STATEMENT EXECUTE FUNCTION notify_practice_change();
