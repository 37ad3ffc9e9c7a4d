-- The tenant's feed: one row each time an ask opens or changes state, or a run is
-- created or changes status, in commit order. The inbox's live stream reads the subject
-- as it now stands; a client resumes after the last row it saw (Last-Event-ID).
CREATE TABLE tenant_feed (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL,
    -- 'ask' (key: the ask's key) or 'run' (key: the run's id)
    subject   TEXT NOT NULL,
    key       TEXT NOT NULL
);
CREATE INDEX tenant_feed_by_tenant ON tenant_feed (tenant_id, id);

CREATE TRIGGER tenant_feed_run_created AFTER INSERT ON runs BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'run', new.id);
END;
CREATE TRIGGER tenant_feed_run_moved AFTER UPDATE OF status ON runs
WHEN old.status <> new.status BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'run', new.id);
END;
CREATE TRIGGER tenant_feed_ask_opened AFTER INSERT ON asks BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'ask', new.key);
END;
CREATE TRIGGER tenant_feed_ask_changed AFTER UPDATE OF state, ask ON asks BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'ask', new.key);
END;

CREATE INDEX runs_by_status ON runs (tenant_id, status);

-- An archived thread leaves the sidebar's list (and stays readable, searchable and
-- restorable).
ALTER TABLE threads ADD COLUMN archived_at_ms INTEGER;
