CREATE TABLE "ledger_restores" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"restored_at" timestamp with time zone DEFAULT now() NOT NULL,
	"backup_file" text
);
