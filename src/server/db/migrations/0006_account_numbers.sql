ALTER TABLE "xero_accounts" ADD COLUMN "bank_account_number" text;--> statement-breakpoint
-- Accounts cached before this column existed are read from Xero again once, so their numbers appear.
DELETE FROM "xero_sync_state" WHERE "resource" = 'accounts';
