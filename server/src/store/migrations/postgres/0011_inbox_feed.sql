-- The tenant's feed: one row each time an ask opens or changes state, or a run is
-- created or changes status, in commit order. The inbox's live stream reads the subject
-- as it now stands; a client resumes after the last row it saw (Last-Event-ID).
CREATE TABLE tenant_feed (
    id        BIGSERIAL PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    -- 'ask' (key: the ask's key) or 'run' (key: the run's id)
    subject   TEXT NOT NULL,
    key       TEXT NOT NULL
);
CREATE INDEX tenant_feed_by_tenant ON tenant_feed (tenant_id, id);

-- Rows of one tenant take their ids and commit one transaction at a time (the lock is
-- held to commit), so a reader that saw id N can never later find a smaller one appear.
CREATE FUNCTION tenant_feed_note() RETURNS trigger AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('tenant_feed:' || NEW.tenant_id));
    INSERT INTO tenant_feed (tenant_id, subject, key)
        VALUES (NEW.tenant_id, TG_ARGV[0], to_jsonb(NEW) ->> TG_ARGV[1]);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER tenant_feed_run_created AFTER INSERT ON runs
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('run', 'id');
CREATE TRIGGER tenant_feed_run_moved AFTER UPDATE OF status ON runs
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION tenant_feed_note('run', 'id');
CREATE TRIGGER tenant_feed_ask_opened AFTER INSERT ON asks
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('ask', 'key');
CREATE TRIGGER tenant_feed_ask_changed AFTER UPDATE OF state, ask ON asks
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('ask', 'key');

CREATE INDEX runs_by_status ON runs (tenant_id, status);

-- An archived thread leaves the sidebar's list (and stays readable, searchable and
-- restorable).
ALTER TABLE threads ADD COLUMN archived_at_ms BIGINT;
