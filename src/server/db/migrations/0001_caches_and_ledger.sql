CREATE TABLE "xero_accounts" (
	"organization_id" integer NOT NULL,
	"account_id" text NOT NULL,
	"code" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"class" text,
	"status" text NOT NULL,
	"bank_account_type" text,
	"tax_type" text,
	"enable_payments_to_account" boolean DEFAULT false NOT NULL,
	"system_account" text,
	"updated_utc" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_accounts_organization_id_account_id_pk" PRIMARY KEY("organization_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "xero_contact_groups" (
	"organization_id" integer NOT NULL,
	"group_id" text NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"contact_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_contact_groups_organization_id_group_id_pk" PRIMARY KEY("organization_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "xero_contacts" (
	"organization_id" integer NOT NULL,
	"contact_id" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"status" text NOT NULL,
	"is_supplier" boolean DEFAULT false NOT NULL,
	"is_customer" boolean DEFAULT false NOT NULL,
	"group_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"cis_enabled" boolean,
	"cis_rate" integer,
	"cis_checked_at" timestamp with time zone,
	"updated_utc" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_contacts_organization_id_contact_id_pk" PRIMARY KEY("organization_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "xero_invoices" (
	"organization_id" integer NOT NULL,
	"invoice_id" text NOT NULL,
	"type" text NOT NULL,
	"invoice_number" text,
	"reference" text,
	"contact_id" text,
	"contact_name" text,
	"status" text NOT NULL,
	"line_amount_types" text,
	"date" date,
	"due_date" date,
	"sub_total_pence" bigint DEFAULT 0 NOT NULL,
	"total_tax_pence" bigint DEFAULT 0 NOT NULL,
	"total_pence" bigint DEFAULT 0 NOT NULL,
	"amount_due_pence" bigint DEFAULT 0 NOT NULL,
	"amount_paid_pence" bigint DEFAULT 0 NOT NULL,
	"currency_code" text DEFAULT 'GBP' NOT NULL,
	"sent_to_contact" boolean DEFAULT false NOT NULL,
	"has_attachments" boolean DEFAULT false NOT NULL,
	"lines" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"payments" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_utc" timestamp with time zone,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_invoices_organization_id_invoice_id_pk" PRIMARY KEY("organization_id","invoice_id")
);
--> statement-breakpoint
CREATE TABLE "xero_sync_state" (
	"organization_id" integer NOT NULL,
	"resource" text NOT NULL,
	"high_water" timestamp with time zone,
	"last_sync_at" timestamp with time zone,
	"last_full_sync_at" timestamp with time zone,
	CONSTRAINT "xero_sync_state_organization_id_resource_pk" PRIMARY KEY("organization_id","resource")
);
--> statement-breakpoint
CREATE TABLE "xero_tax_rates" (
	"organization_id" integer NOT NULL,
	"tax_type" text NOT NULL,
	"name" text NOT NULL,
	"rate" numeric(9, 4) NOT NULL,
	"status" text NOT NULL,
	"can_apply_to_revenue" boolean DEFAULT false NOT NULL,
	"can_apply_to_expenses" boolean DEFAULT false NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "xero_tax_rates_organization_id_tax_type_pk" PRIMARY KEY("organization_id","tax_type")
);
--> statement-breakpoint
CREATE TABLE "draft_cash_amounts" (
	"organization_id" integer NOT NULL,
	"invoice_id" text NOT NULL,
	"amount_pence" bigint NOT NULL,
	"user_id" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "draft_cash_amounts_organization_id_invoice_id_pk" PRIMARY KEY("organization_id","invoice_id")
);
--> statement-breakpoint
CREATE TABLE "stock_journal_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"customer_id" text,
	"period_start" date NOT NULL,
	"period_end" date NOT NULL,
	"journal_id" text,
	"status" text NOT NULL,
	"net_pence" bigint NOT NULL,
	"amount_pence" bigint NOT NULL,
	"margin_rate" text NOT NULL,
	"reference" text NOT NULL,
	"write_id" bigint,
	"user_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "xero_writes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" integer NOT NULL,
	"user_id" integer,
	"kind" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"target_id" text,
	"amount_pence" bigint,
	"state" text DEFAULT 'pending' NOT NULL,
	"request" jsonb NOT NULL,
	"response" jsonb,
	"xero_id" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "xero_accounts" ADD CONSTRAINT "xero_accounts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_contact_groups" ADD CONSTRAINT "xero_contact_groups_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_contacts" ADD CONSTRAINT "xero_contacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_invoices" ADD CONSTRAINT "xero_invoices_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_sync_state" ADD CONSTRAINT "xero_sync_state_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_tax_rates" ADD CONSTRAINT "xero_tax_rates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draft_cash_amounts" ADD CONSTRAINT "draft_cash_amounts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "draft_cash_amounts" ADD CONSTRAINT "draft_cash_amounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_journal_entries" ADD CONSTRAINT "stock_journal_entries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_journal_entries" ADD CONSTRAINT "stock_journal_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD CONSTRAINT "xero_writes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD CONSTRAINT "xero_writes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "xero_contacts_name_idx" ON "xero_contacts" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "xero_invoices_status_idx" ON "xero_invoices" USING btree ("organization_id","type","status");--> statement-breakpoint
CREATE INDEX "xero_invoices_contact_date_idx" ON "xero_invoices" USING btree ("organization_id","contact_id","date");--> statement-breakpoint
CREATE UNIQUE INDEX "stock_journal_period_idx" ON "stock_journal_entries" USING btree ("organization_id","period_start","period_end");--> statement-breakpoint
CREATE UNIQUE INDEX "xero_writes_key_idx" ON "xero_writes" USING btree ("organization_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "xero_writes_state_idx" ON "xero_writes" USING btree ("state","created_at");--> statement-breakpoint
CREATE INDEX "xero_writes_target_idx" ON "xero_writes" USING btree ("organization_id","kind","target_id");