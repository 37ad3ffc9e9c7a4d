-- A job names the agent and the project it works for, when it has them, so the
-- Curator page filters by them.
ALTER TABLE jobs ADD COLUMN agent TEXT;
ALTER TABLE jobs ADD COLUMN project_id TEXT;

-- Background work on the tenant's feed: a job made, moved to another state, attempted
-- again, further along or asked to stop; a schedule made, changed or deleted, and each
-- of its fires. Lease renewals are not changes anyone watches, so they make no row.
CREATE FUNCTION tenant_feed_gone() RETURNS trigger AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('tenant_feed:' || OLD.tenant_id));
    INSERT INTO tenant_feed (tenant_id, subject, key)
        VALUES (OLD.tenant_id, TG_ARGV[0], to_jsonb(OLD) ->> TG_ARGV[1]);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER tenant_feed_job_made AFTER INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('job', 'id');
CREATE TRIGGER tenant_feed_job_moved AFTER UPDATE ON jobs
    FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state
          OR OLD.attempts IS DISTINCT FROM NEW.attempts
          OR OLD.progress IS DISTINCT FROM NEW.progress
          OR OLD.cancel_requested_at_ms IS DISTINCT FROM NEW.cancel_requested_at_ms)
    EXECUTE FUNCTION tenant_feed_note('job', 'id');

CREATE TRIGGER tenant_feed_schedule_made AFTER INSERT ON schedules
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('schedule', 'id');
CREATE TRIGGER tenant_feed_schedule_changed AFTER UPDATE ON schedules
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('schedule', 'id');
CREATE TRIGGER tenant_feed_schedule_deleted AFTER DELETE ON schedules
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_gone('schedule', 'id');
CREATE TRIGGER tenant_feed_fire_made AFTER INSERT ON schedule_fires
    FOR EACH ROW EXECUTE FUNCTION tenant_feed_note('schedule', 'schedule_id');
CREATE TRIGGER tenant_feed_fire_moved AFTER UPDATE OF outcome, run_id ON schedule_fires
    FOR EACH ROW
    WHEN (OLD.outcome IS DISTINCT FROM NEW.outcome OR OLD.run_id IS DISTINCT FROM NEW.run_id)
    EXECUTE FUNCTION tenant_feed_note('schedule', 'schedule_id');

-- An agent's own scheduled jobs paused through the console: a Hermes gateway stops
-- listing a job once it is paused, so the console keeps what pausing answered. `scope`
-- is the tenant, or '' for a gateway that serves every tenant.
CREATE TABLE gateway_paused_jobs (
    scope        TEXT NOT NULL,
    agent        TEXT NOT NULL,
    job_id       TEXT NOT NULL,
    job          TEXT NOT NULL,
    paused_at_ms BIGINT NOT NULL,
    PRIMARY KEY (scope, agent, job_id)
);
