-- Schedules: a prompt given to an agent on a clock read in the schedule's own zone. Each
-- scheduled instant has at most one fire row, ever: the row is the slot's claim.
CREATE TABLE schedules (
    id                TEXT PRIMARY KEY,
    tenant_id         TEXT NOT NULL REFERENCES tenants (id),
    name              TEXT NOT NULL,
    agent             TEXT NOT NULL,
    prompt            TEXT NOT NULL,
    project_id        TEXT,
    target            TEXT NOT NULL,
    thread_id         TEXT,
    timing            TEXT NOT NULL,
    timezone          TEXT NOT NULL,
    missed            TEXT NOT NULL,
    catch_up_window_s BIGINT NOT NULL,
    overlap           TEXT NOT NULL,
    asks              TEXT NOT NULL,
    paused_at_ms      BIGINT,
    paused_reason     TEXT,
    next_fire_ms      BIGINT,
    missed_count      BIGINT NOT NULL DEFAULT 0,
    skipped_count     BIGINT NOT NULL DEFAULT 0,
    last_error        TEXT,
    idempotency_key   TEXT,
    created_by        TEXT NOT NULL,
    created_at_ms     BIGINT NOT NULL,
    updated_at_ms     BIGINT NOT NULL,
    UNIQUE (tenant_id, idempotency_key)
);
CREATE INDEX schedules_due ON schedules (next_fire_ms);
CREATE INDEX schedules_by_tenant ON schedules (tenant_id, name);

CREATE TABLE schedule_fires (
    schedule_id  TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    slot_ms      BIGINT NOT NULL,
    tenant_id    TEXT NOT NULL,
    fired_at_ms  BIGINT,
    -- waiting, queued, running, completed, failed, cancelled, skipped, missed
    outcome      TEXT NOT NULL,
    manual       BIGINT NOT NULL DEFAULT 0,
    catch_up     BIGINT NOT NULL DEFAULT 0,
    job_id       TEXT,
    thread_id    TEXT,
    run_id       TEXT,
    error        TEXT,
    PRIMARY KEY (schedule_id, slot_ms)
);
CREATE INDEX schedule_fires_by_run ON schedule_fires (run_id);
