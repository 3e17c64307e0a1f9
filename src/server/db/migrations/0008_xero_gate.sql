CREATE TABLE "xero_gate_calls" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"instance_id" text NOT NULL,
	"state" text DEFAULT 'waiting' NOT NULL,
	"started_at" timestamp with time zone,
	"answered_at" timestamp with time zone,
	"lease_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "xero_gate_tenants" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"paused_until" timestamp with time zone,
	"day_blocked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "xero_gate_calls_tenant_state_idx" ON "xero_gate_calls" USING btree ("tenant_id","state","id");--> statement-breakpoint
CREATE INDEX "xero_gate_calls_tenant_started_idx" ON "xero_gate_calls" USING btree ("tenant_id","started_at");--> statement-breakpoint
CREATE INDEX "xero_gate_calls_answered_idx" ON "xero_gate_calls" USING btree ("answered_at");--> statement-breakpoint
CREATE INDEX "xero_gate_calls_state_idx" ON "xero_gate_calls" USING btree ("state","started_at");