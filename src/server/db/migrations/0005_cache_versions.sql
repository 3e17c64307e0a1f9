CREATE TABLE "xero_cache_versions" (
	"organization_id" integer PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "xero_cache_versions" ADD CONSTRAINT "xero_cache_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Moves an organisation's cache version on whenever a statement changes its cached invoices (or forgets a
-- synced view), in the same transaction, whoever writes. One statement bumps each organisation once, so a
-- 500-row upsert costs one counter update. Organisations deleted in the same transaction are skipped.
CREATE OR REPLACE FUNCTION bump_xero_cache_version() RETURNS trigger AS $$
BEGIN
  INSERT INTO xero_cache_versions (organization_id, version)
  SELECT DISTINCT c.organization_id, 1
  FROM changed_rows c
  JOIN organizations o ON o.id = c.organization_id
  ON CONFLICT (organization_id) DO UPDATE SET version = xero_cache_versions.version + 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER xero_invoices_version_insert AFTER INSERT ON xero_invoices
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_xero_cache_version();
--> statement-breakpoint
CREATE TRIGGER xero_invoices_version_update AFTER UPDATE ON xero_invoices
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_xero_cache_version();
--> statement-breakpoint
CREATE TRIGGER xero_invoices_version_delete AFTER DELETE ON xero_invoices
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_xero_cache_version();
--> statement-breakpoint
CREATE TRIGGER xero_sync_state_version_delete AFTER DELETE ON xero_sync_state
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION bump_xero_cache_version();
