ALTER TABLE "xero_contacts" ADD COLUMN "tax_number" text;--> statement-breakpoint
ALTER TABLE "xero_contacts" ADD COLUMN "accounts_payable_tax_type" text;