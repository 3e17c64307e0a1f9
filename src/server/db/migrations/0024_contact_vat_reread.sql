-- Issue 42: contacts cached before 0022 lack their VAT number and purchases tax rate, and an incremental sync
-- (If-Modified-Since) would never read an unchanged contact again. Forget the contacts' high-water mark so the
-- next sync of each organisation reads every contact once, filling both columns.
UPDATE "xero_sync_state" SET "high_water" = NULL, "last_sync_at" = NULL WHERE "resource" = 'contacts';
