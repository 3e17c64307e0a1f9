ALTER TABLE "xero_writes" ADD COLUMN "views_due" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD COLUMN "review_claim_by" text;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD COLUMN "review_claim_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "xero_writes_views_due_idx" ON "xero_writes" USING btree ("organization_id") WHERE "xero_writes"."views_due";