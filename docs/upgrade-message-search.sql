-- Message search on a large database: run BEFORE deploying the version that brings migration
-- AddMessageSearch1795400000000 (docs/chat.md, "Upgrading a large database"), in autocommit mode:
--
--   psql -v ON_ERROR_STOP=1 -f docs/upgrade-message-search.sql "$DATABASE_URL"
--
-- as the database owner. No statement holds a lock that stops readers or writers for more than a moment;
-- the application keeps running. Every statement may be run again (after an error, or to resume the
-- backfill). The migration then finds everything done and only gives a vector to rows that missed one.

-- The script's own statements run as long as they need, but wait at most 5 s for a lock (rather than
-- queue behind a long query with every other session queued behind them): on a lock timeout, run again.
SET statement_timeout = 0;
SET lock_timeout = '5s';

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Metadata only: a constant default is not written to the existing rows.
ALTER TABLE conversations.messages ADD COLUMN IF NOT EXISTS search_config text NOT NULL DEFAULT 'simple';
ALTER TABLE conversations.messages ADD COLUMN IF NOT EXISTS search_vector tsvector;

CREATE OR REPLACE FUNCTION conversations.messages_search_vector() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_vector := to_tsvector(NEW.search_config::regconfig, left(NEW.text, 100000));
  RETURN NEW;
END $$;

-- From here on, every message written gets its vector from the trigger.
CREATE OR REPLACE TRIGGER messages_search_vector BEFORE INSERT OR UPDATE OF text, search_config, processing
  ON conversations.messages FOR EACH ROW WHEN (NOT NEW.processing)
  EXECUTE FUNCTION conversations.messages_search_vector();

-- The existing messages, 10,000 at a time in primary-key order, each batch committed on its own (0.3-0.7 s
-- each, measured). Messages of a turn in progress get theirs from the trigger when the turn ends.
DO $$
DECLARE
  done uuid := '00000000-0000-0000-0000-000000000000';
  upto uuid;
BEGIN
  LOOP
    -- The batch's last id; none when fewer than 10,000 remain.
    SELECT id INTO upto FROM conversations.messages WHERE id > done ORDER BY id OFFSET 9999 LIMIT 1;
    UPDATE conversations.messages SET search_vector = to_tsvector('simple', left(text, 100000))
     WHERE id > done AND id <= coalesce(upto, 'ffffffff-ffff-ffff-ffff-ffffffffffff') AND search_vector IS NULL AND NOT processing;
    COMMIT;
    EXIT WHEN upto IS NULL;
    done := upto;
  END LOOP;
END $$;

-- A concurrent build waits for the transactions running when it starts; it must not give up on a lock
-- timeout (that leaves an invalid index behind).
RESET lock_timeout;
CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_search_idx ON conversations.messages
  USING gin (user_id, search_vector) WHERE NOT processing;
CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_text_trgm_idx ON conversations.messages
  USING gin (user_id, text gin_trgm_ops) WHERE NOT processing;
CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_owner_newest_idx ON conversations.messages
  (user_id, created_at DESC, seq DESC) WHERE NOT processing;

-- The backfill left a dead version of every row behind; the planner learns the new columns.
VACUUM (ANALYZE) conversations.messages;

-- Expect three rows, each valid. An invalid index (a build that failed or was cancelled) is dropped with
-- DROP INDEX CONCURRENTLY conversations.<name>; and this script run again (else the migration builds it,
-- holding its lock).
SELECT c.relname AS index, i.indisvalid AS valid
  FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid
 WHERE i.indrelid = 'conversations.messages'::regclass
   AND c.relname IN ('messages_search_idx', 'messages_text_trgm_idx', 'messages_owner_newest_idx');
