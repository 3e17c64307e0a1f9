CREATE TABLE "xero_credit_notes" (
	"organization_id" integer NOT NULL,
	"credit_note_id" text NOT NULL,
	"type" text NOT NULL,
	"credit_note_number" text,
	"contact_id" text,
	"contact_name" text,
	"status" text NOT NULL,
	"line_amount_types" text,
	"date" date,
	"sub_total_pence" bigint DEFAULT 0 NOT NULL,
	"total_pence" bigint DEFAULT 0 NOT NULL,
	"remaining_credit_pence" bigint DEFAULT 0 NOT NULL,
	"cis_deduction_pence" bigint,
	"cis_rate" numeric(9, 4),
	"lines" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allocations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_utc" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_credit_notes_organization_id_credit_note_id_pk" PRIMARY KEY("organization_id","credit_note_id")
);
--> statement-breakpoint
CREATE TABLE "cis_counted_payments" (
	"organization_id" integer NOT NULL,
	"payment_id" text NOT NULL,
	"document_id" text NOT NULL,
	"document_type" text NOT NULL,
	"contact_id" text NOT NULL,
	"contact_name" text NOT NULL,
	"date" date NOT NULL,
	"amount_pence" bigint NOT NULL,
	"gross_pence" bigint NOT NULL,
	"materials_pence" bigint NOT NULL,
	"deduction_pence" bigint NOT NULL,
	"rate_used" integer,
	"contact_cis" boolean NOT NULL,
	"contact_rate" integer,
	"rule" jsonb NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cis_counted_payments_organization_id_payment_id_pk" PRIMARY KEY("organization_id","payment_id")
);
--> statement-breakpoint
CREATE TABLE "cis_nil_months" (
	"organization_id" integer NOT NULL,
	"period" text NOT NULL,
	"kind" text NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	"marked_by_user_id" integer,
	"marked_by_name" text NOT NULL,
	CONSTRAINT "cis_nil_months_organization_id_period_pk" PRIMARY KEY("organization_id","period")
);
--> statement-breakpoint
ALTER TABLE "cis_contractor_settings" ADD COLUMN "first_return_on" date;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "source" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "lines" jsonb;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "totals" jsonb;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "deduction_pence" bigint;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "irmark" text;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "hmrc_received_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD COLUMN "correlation_id" text;--> statement-breakpoint
ALTER TABLE "xero_credit_notes" ADD CONSTRAINT "xero_credit_notes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_counted_payments" ADD CONSTRAINT "cis_counted_payments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_nil_months" ADD CONSTRAINT "cis_nil_months_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_nil_months" ADD CONSTRAINT "cis_nil_months_marked_by_user_id_users_id_fk" FOREIGN KEY ("marked_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "xero_credit_notes_contact_idx" ON "xero_credit_notes" USING btree ("organization_id","type","contact_id");--> statement-breakpoint
CREATE INDEX "cis_counted_payments_date_idx" ON "cis_counted_payments" USING btree ("organization_id","date");--> statement-breakpoint
CREATE INDEX "cis_counted_payments_document_idx" ON "cis_counted_payments" USING btree ("organization_id","document_id");