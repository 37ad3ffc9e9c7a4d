-- Background work: every job in one table, claimed by any worker of any process under a
-- lease it renews; one row per attempt and an append-only log per job.
CREATE TABLE jobs (
    id                     TEXT PRIMARY KEY,
    tenant_id              TEXT NOT NULL REFERENCES tenants (id),
    kind                   TEXT NOT NULL,
    payload                TEXT NOT NULL,
    -- scheduled, available, running, retryable, completed, failed, cancelled
    state                  TEXT NOT NULL,
    run_at_ms              INTEGER NOT NULL,
    attempts               INTEGER NOT NULL DEFAULT 0,
    max_attempts           INTEGER NOT NULL,
    lease_owner            TEXT,
    lease_until_ms         INTEGER,
    heartbeat_at_ms        INTEGER,
    progress               TEXT,
    result                 TEXT,
    error                  TEXT,
    idempotency_key        TEXT,
    created_by             TEXT NOT NULL,
    cancel_requested_at_ms INTEGER,
    created_at_ms          INTEGER NOT NULL,
    updated_at_ms          INTEGER NOT NULL,
    finished_at_ms         INTEGER,
    UNIQUE (tenant_id, idempotency_key)
);
CREATE INDEX jobs_due ON jobs (state, run_at_ms);
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, updated_at_ms);

CREATE TABLE job_attempts (
    job_id         TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    attempt        INTEGER NOT NULL,
    worker         TEXT NOT NULL,
    started_at_ms  INTEGER NOT NULL,
    finished_at_ms INTEGER,
    -- completed, failed, retrying, cancelled, lease_lost
    outcome        TEXT,
    error          TEXT,
    PRIMARY KEY (job_id, attempt)
);

CREATE TABLE job_log (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id    TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    attempt   INTEGER NOT NULL,
    at_ms     INTEGER NOT NULL,
    level     TEXT NOT NULL,
    message   TEXT NOT NULL
);
CREATE INDEX job_log_by_job ON job_log (job_id, id);
