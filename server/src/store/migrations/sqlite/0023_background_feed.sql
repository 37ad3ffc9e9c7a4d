-- A job names the agent and the project it works for, when it has them, so the
-- Curator page filters by them.
ALTER TABLE jobs ADD COLUMN agent TEXT;
ALTER TABLE jobs ADD COLUMN project_id TEXT;

-- Background work on the tenant's feed: a job made, moved to another state, attempted
-- again, further along or asked to stop; a schedule made, changed or deleted, and each
-- of its fires. Lease renewals are not changes anyone watches, so they make no row.
CREATE TRIGGER tenant_feed_job_made AFTER INSERT ON jobs BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'job', new.id);
END;
CREATE TRIGGER tenant_feed_job_moved AFTER UPDATE ON jobs
WHEN old.state IS NOT new.state
  OR old.attempts IS NOT new.attempts
  OR old.progress IS NOT new.progress
  OR old.cancel_requested_at_ms IS NOT new.cancel_requested_at_ms BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'job', new.id);
END;

CREATE TRIGGER tenant_feed_schedule_made AFTER INSERT ON schedules BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'schedule', new.id);
END;
CREATE TRIGGER tenant_feed_schedule_changed AFTER UPDATE ON schedules BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'schedule', new.id);
END;
CREATE TRIGGER tenant_feed_schedule_deleted AFTER DELETE ON schedules BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (old.tenant_id, 'schedule', old.id);
END;
CREATE TRIGGER tenant_feed_fire_made AFTER INSERT ON schedule_fires BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key)
        VALUES (new.tenant_id, 'schedule', new.schedule_id);
END;
CREATE TRIGGER tenant_feed_fire_moved AFTER UPDATE OF outcome, run_id ON schedule_fires
WHEN old.outcome IS NOT new.outcome OR old.run_id IS NOT new.run_id BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key)
        VALUES (new.tenant_id, 'schedule', new.schedule_id);
END;

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
