ALTER TABLE "organizations" ADD COLUMN "egress_month" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "egress_bytes" bigint DEFAULT 0 NOT NULL;