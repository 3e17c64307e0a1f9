-- Who-asks answers are kept in each instance's memory (src/server/modules/auth/principal-cache.ts, decision 021).
-- Every change to what they are read from is announced on one channel, in the writer's transaction, whoever
-- writes: 's:<session hash>' for a session, 'u:<user id>' for a user, their Xero token or their memberships,
-- 'o:<organisation id>' for an organisation (its feature flags) or its cache version, '*' for a TRUNCATE.
-- PostgreSQL delivers a transaction's notices at its commit, once each, to every instance LISTENing.
CREATE OR REPLACE FUNCTION notify_principal_change() RETURNS trigger AS $$
DECLARE
  keys text[];
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    PERFORM pg_notify('ledgerlink_principals', '*');
    RETURN NULL;
  END IF;
  -- The notice of the row as it was and as it is (a row moved to another user tells both).
  SELECT array_agg(DISTINCT CASE TG_TABLE_NAME
      WHEN 'sessions' THEN 's:' || (r->>'id')
      WHEN 'users' THEN 'u:' || (r->>'id')
      WHEN 'xero_tokens' THEN 'u:' || (r->>'user_id')
      WHEN 'user_organizations' THEN 'u:' || (r->>'user_id')
      WHEN 'organizations' THEN 'o:' || (r->>'id')
      WHEN 'xero_cache_versions' THEN 'o:' || (r->>'organization_id')
    END)
  INTO keys
  FROM (
    SELECT to_jsonb(OLD) AS r WHERE TG_OP <> 'INSERT'
    UNION ALL
    SELECT to_jsonb(NEW) WHERE TG_OP <> 'DELETE'
  ) rows_seen;
  PERFORM pg_notify('ledgerlink_principals', k) FROM unnest(keys) AS k;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER sessions_principal_notice AFTER UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER users_principal_notice AFTER UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER xero_tokens_principal_notice AFTER INSERT OR UPDATE OR DELETE ON xero_tokens
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER user_organizations_principal_notice AFTER INSERT OR UPDATE OR DELETE ON user_organizations
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER organizations_principal_notice AFTER UPDATE OR DELETE ON organizations
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER xero_cache_versions_principal_notice AFTER INSERT OR UPDATE OR DELETE ON xero_cache_versions
  FOR EACH ROW EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER sessions_principal_truncate AFTER TRUNCATE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER users_principal_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER xero_tokens_principal_truncate AFTER TRUNCATE ON xero_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER user_organizations_principal_truncate AFTER TRUNCATE ON user_organizations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER organizations_principal_truncate AFTER TRUNCATE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
--> statement-breakpoint
CREATE TRIGGER xero_cache_versions_principal_truncate AFTER TRUNCATE ON xero_cache_versions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principal_change();
