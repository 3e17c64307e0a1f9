CREATE TABLE "cis_contractor_settings" (
	"organization_id" integer PRIMARY KEY NOT NULL,
	"contractor_name" text,
	"utr" text,
	"employer_reference" text,
	"accounts_office_reference" text,
	"materials_account_codes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cis_return_filings" (
	"organization_id" integer NOT NULL,
	"period" text NOT NULL,
	"filed_on" date NOT NULL,
	"filed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"filed_by_user_id" integer,
	"filed_by_name" text NOT NULL,
	CONSTRAINT "cis_return_filings_organization_id_period_pk" PRIMARY KEY("organization_id","period")
);
--> statement-breakpoint
CREATE TABLE "cis_subcontractor_refs" (
	"organization_id" integer NOT NULL,
	"contact_id" text NOT NULL,
	"utr" text,
	"verification_number" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cis_subcontractor_refs_organization_id_contact_id_pk" PRIMARY KEY("organization_id","contact_id")
);
--> statement-breakpoint
ALTER TABLE "xero_invoices" ADD COLUMN "cis_deduction_pence" bigint;--> statement-breakpoint
ALTER TABLE "xero_invoices" ADD COLUMN "cis_rate" numeric(9, 4);--> statement-breakpoint
ALTER TABLE "cis_contractor_settings" ADD CONSTRAINT "cis_contractor_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD CONSTRAINT "cis_return_filings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_return_filings" ADD CONSTRAINT "cis_return_filings_filed_by_user_id_users_id_fk" FOREIGN KEY ("filed_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cis_subcontractor_refs" ADD CONSTRAINT "cis_subcontractor_refs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;