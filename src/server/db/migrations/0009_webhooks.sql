CREATE TABLE "live_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "xero_webhook_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"category" text NOT NULL,
	"event_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"event_at" timestamp with time zone NOT NULL,
	"sequence" bigint,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_until" timestamp with time zone,
	"processed_at" timestamp with time zone,
	"outcome" text,
	"attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "live_events" ADD CONSTRAINT "live_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "live_events_org_idx" ON "live_events" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "xero_webhook_events_unique_idx" ON "xero_webhook_events" USING btree ("tenant_id","category","resource_id","event_type","event_at");--> statement-breakpoint
CREATE INDEX "xero_webhook_events_pending_idx" ON "xero_webhook_events" USING btree ("processed_at","id");