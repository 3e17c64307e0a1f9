CREATE TABLE "cis_statement_emails" (
	"id" serial PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"period" text NOT NULL,
	"contact_id" text NOT NULL,
	"sent_to" text NOT NULL,
	"message_id" text,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_by_user_id" integer,
	"sent_by_name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cis_verifications" (
	"organization_id" integer NOT NULL,
	"contact_id" text NOT NULL,
	"submission_id" integer,
	"matched" boolean NOT NULL,
	"tax_treatment" text NOT NULL,
	"rate" integer NOT NULL,
	"verification_number" text,
	"utr" text NOT NULL,
	"name_sent" text NOT NULL,
	"verified_at" timestamp with time zone DEFAULT now() NOT NULL,
	"verified_by_user_id" integer,
	"verified_by_name" text NOT NULL,
	CONSTRAINT "cis_verifications_organization_id_contact_id_pk" PRIMARY KEY("organization_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "hmrc_credentials" (
	"organization_id" integer PRIMARY KEY NOT NULL,
	"sender_id_enc" text,
	"password_enc" text,
	"updated_by_user_id" integer,
	"updated_by_name" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reminders_enabled" boolean DEFAULT false NOT NULL,
	"reminder_email" text
);
--> statement-breakpoint
CREATE TABLE "hmrc_reminders" (
	"organization_id" integer NOT NULL,
	"period" text NOT NULL,
	"sent_to" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hmrc_reminders_organization_id_period_pk" PRIMARY KEY("organization_id","period")
);
--> statement-breakpoint
CREATE TABLE "hmrc_submissions" (
	"id" serial PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"kind" text NOT NULL,
	"period" text,
	"contact_id" text,
	"state" text NOT NULL,
	"phase" text NOT NULL,
	"idempotency_key" text,
	"transaction_id" text NOT NULL,
	"correlation_id" text,
	"response_end_point" text,
	"poll_interval_seconds" integer,
	"next_poll_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"instance_id" text,
	"irmark" text NOT NULL,
	"irmark_base32" text NOT NULL,
	"gateway_test" boolean NOT NULL,
	"request_xml" text NOT NULL,
	"request" jsonb NOT NULL,
	"declarations" jsonb,
	"receipt" jsonb,
	"reasons" jsonb,
	"retryable" boolean DEFAULT false NOT NULL,
	"result" jsonb,
	"queue_deleted" boolean DEFAULT false NOT NULL,
	"created_by_user_id" integer,
	"created_by_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"answered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" serial PRIMARY KEY NOT NULL,
	"organization_id" integer,
	"sent_to" text NOT NULL,
	"sent_from" text NOT NULL,
	"subject" text NOT NULL,
	"body" text NOT NULL,
	"raw" "bytea" NOT NULL,
	"attachments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_outbox_attachments" (
	"message_id" integer NOT NULL,
	"position" integer NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"content" "bytea" NOT NULL,
	CONSTRAINT "mail_outbox_attachments_message_id_position_pk" PRIMARY KEY("message_id","position")
);
--> statement-breakpoint
ALTER TABLE "cis_statement_emails" ADD CONSTRAINT "cis_statement_emails_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_statement_emails" ADD CONSTRAINT "cis_statement_emails_sent_by_user_id_users_id_fk" FOREIGN KEY ("sent_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_verifications" ADD CONSTRAINT "cis_verifications_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_verifications" ADD CONSTRAINT "cis_verifications_submission_id_hmrc_submissions_id_fk" FOREIGN KEY ("submission_id") REFERENCES "public"."hmrc_submissions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_verifications" ADD CONSTRAINT "cis_verifications_verified_by_user_id_users_id_fk" FOREIGN KEY ("verified_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hmrc_credentials" ADD CONSTRAINT "hmrc_credentials_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hmrc_credentials" ADD CONSTRAINT "hmrc_credentials_updated_by_user_id_users_id_fk" FOREIGN KEY ("updated_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hmrc_reminders" ADD CONSTRAINT "hmrc_reminders_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hmrc_submissions" ADD CONSTRAINT "hmrc_submissions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hmrc_submissions" ADD CONSTRAINT "hmrc_submissions_created_by_user_id_users_id_fk" FOREIGN KEY ("created_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_outbox_attachments" ADD CONSTRAINT "mail_outbox_attachments_message_id_mail_outbox_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."mail_outbox"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cis_statement_emails_period_idx" ON "cis_statement_emails" USING btree ("organization_id","period");--> statement-breakpoint
CREATE UNIQUE INDEX "hmrc_submissions_transaction_idx" ON "hmrc_submissions" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hmrc_submissions_key_idx" ON "hmrc_submissions" USING btree ("organization_id","kind","idempotency_key") WHERE "hmrc_submissions"."idempotency_key" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "hmrc_submissions_one_return_idx" ON "hmrc_submissions" USING btree ("organization_id","period") WHERE "hmrc_submissions"."kind" = 'cis300' and "hmrc_submissions"."state" in ('sending', 'accepted');--> statement-breakpoint
CREATE UNIQUE INDEX "hmrc_submissions_one_verification_idx" ON "hmrc_submissions" USING btree ("organization_id","contact_id") WHERE "hmrc_submissions"."kind" = 'verify' and "hmrc_submissions"."state" = 'sending';--> statement-breakpoint
CREATE INDEX "hmrc_submissions_open_idx" ON "hmrc_submissions" USING btree ("state","next_poll_at");