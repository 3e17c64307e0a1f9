CREATE TABLE "xero_webhook_feed" (
	"id" integer PRIMARY KEY NOT NULL,
	"first_delivery_at" timestamp with time zone,
	"sequence_done" bigint
);
--> statement-breakpoint
CREATE TABLE "xero_webhook_health" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"awaiting_since" timestamp with time zone,
	"last_delivery_at" timestamp with time zone,
	"suspect_since" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "xero_webhook_ranges" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"first_sequence" bigint NOT NULL,
	"last_sequence" bigint NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "xero_webhook_ranges_first_idx" ON "xero_webhook_ranges" USING btree ("first_sequence");