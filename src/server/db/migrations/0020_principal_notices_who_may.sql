-- Issue 32: an organisation's row also holds what Xero's answers meter (the calls left this minute and today,
-- the bytes downloaded this month), rewritten after nearly every Xero call. Those columns say nothing about who
-- may do what and are not kept with a principal (src/server/modules/auth/sessions.ts reads them out), so their
-- updates no longer announce 'o:<organisation id>': before, every Xero call made every instance forget the
-- principals of everyone working on that organisation. Any other change to the row (feature flags, Settings
-- defaults, the name) and its removal still announce it, as migration 0019 made them.
DROP TRIGGER organizations_principal_notice ON organizations;
--> statement-breakpoint
CREATE TRIGGER organizations_principal_notice AFTER UPDATE ON organizations
  FOR EACH ROW
  WHEN (
    (to_jsonb(OLD) - '{rate_minute_remaining,rate_day_remaining,rate_updated_at,egress_month,egress_bytes}'::text[])
    IS DISTINCT FROM
    (to_jsonb(NEW) - '{rate_minute_remaining,rate_day_remaining,rate_updated_at,egress_month,egress_bytes}'::text[])
  )
  EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER organizations_principal_removed AFTER DELETE ON organizations
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
