ALTER TABLE "xero_sync_state" ADD COLUMN "initial_read_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "xero_sync_state" ADD COLUMN "pages_read" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "xero_sync_state" ADD COLUMN "items_read" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "xero_sync_state" ADD COLUMN "items_total" integer;