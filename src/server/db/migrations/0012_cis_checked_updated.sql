ALTER TABLE "xero_contacts" ADD COLUMN "cis_checked_updated_utc" timestamp with time zone;--> statement-breakpoint
-- Settings read after the contact's last change stay valid: they were read at its current UpdatedDateUTC.
UPDATE "xero_contacts" SET "cis_checked_updated_utc" = "updated_utc" WHERE "cis_checked_at" IS NOT NULL AND "updated_utc" IS NOT NULL AND "updated_utc" <= "cis_checked_at";
