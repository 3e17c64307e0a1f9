CREATE TABLE "attachment_blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"content" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attachment_files" (
	"organization_id" integer NOT NULL,
	"attachment_id" text NOT NULL,
	"content_length" bigint NOT NULL,
	"sha256" text NOT NULL,
	"mime_type" text NOT NULL,
	"file_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "attachment_files_organization_id_attachment_id_content_length_pk" PRIMARY KEY("organization_id","attachment_id","content_length")
);
--> statement-breakpoint
CREATE TABLE "attachment_lists" (
	"organization_id" integer NOT NULL,
	"invoice_id" text NOT NULL,
	"invoice_updated_utc" timestamp with time zone,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attachments" jsonb NOT NULL,
	CONSTRAINT "attachment_lists_organization_id_invoice_id_pk" PRIMARY KEY("organization_id","invoice_id")
);
--> statement-breakpoint
ALTER TABLE "attachment_files" ADD CONSTRAINT "attachment_files_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_files" ADD CONSTRAINT "attachment_files_sha256_attachment_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."attachment_blobs"("sha256") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachment_lists" ADD CONSTRAINT "attachment_lists_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachment_blobs_last_used_idx" ON "attachment_blobs" USING btree ("last_used_at");--> statement-breakpoint
CREATE INDEX "attachment_files_sha256_idx" ON "attachment_files" USING btree ("sha256");