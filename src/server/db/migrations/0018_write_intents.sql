ALTER TABLE "xero_writes" ADD COLUMN "document" text;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD COLUMN "document_label" text;--> statement-breakpoint
ALTER TABLE "xero_writes" ADD COLUMN "depends_on" bigint;--> statement-breakpoint
CREATE INDEX "xero_writes_document_idx" ON "xero_writes" USING btree ("organization_id","document");--> statement-breakpoint
CREATE INDEX "xero_writes_depends_idx" ON "xero_writes" USING btree ("depends_on");