CREATE TABLE "xero_connection_checks" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_requests" ADD COLUMN "organization_id" integer;--> statement-breakpoint
ALTER TABLE "user_organizations" ADD COLUMN "disconnected_reason" text;--> statement-breakpoint
ALTER TABLE "user_organizations" ADD COLUMN "disconnected_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "xero_tokens" ADD COLUMN "lost_reason" text;--> statement-breakpoint
ALTER TABLE "xero_tokens" ADD COLUMN "lost_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "xero_connection_checks" ADD CONSTRAINT "xero_connection_checks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;