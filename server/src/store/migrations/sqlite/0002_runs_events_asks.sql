-- Each thread talks to one agent.
ALTER TABLE threads ADD COLUMN agent TEXT;

CREATE TABLE users (
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    name          TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
INSERT INTO users (tenant_id, id, name, created_at_ms) VALUES ('default', 'operator', 'Operator', 0);

CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    thread_id      TEXT NOT NULL,
    agent          TEXT NOT NULL,
    -- running, succeeded, interrupted, cancelled or failed
    status         TEXT NOT NULL,
    -- What was sent upstream (RunAgentInput or the Hermes prompt), as JSON.
    input          TEXT NOT NULL,
    last_sequence  INTEGER NOT NULL DEFAULT 0,
    upstream_count INTEGER NOT NULL DEFAULT 0,
    created_at_ms  INTEGER NOT NULL,
    finished_at_ms INTEGER
);
CREATE INDEX runs_by_thread ON runs (tenant_id, thread_id, created_at_ms);

-- The raw upstream events, in arrival order, exactly as received.
CREATE TABLE upstream_events (
    tenant_id      TEXT NOT NULL,
    run_id         TEXT NOT NULL,
    position       INTEGER NOT NULL,
    body           TEXT NOT NULL,
    received_at_ms INTEGER NOT NULL,
    PRIMARY KEY (run_id, position)
);

-- The normalized events; `upstream` points at the raw event each came from.
CREATE TABLE events (
    tenant_id TEXT NOT NULL,
    run_id    TEXT NOT NULL,
    sequence  INTEGER NOT NULL,
    channel   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    event     TEXT NOT NULL,
    upstream  INTEGER,
    ts        INTEGER NOT NULL,
    PRIMARY KEY (run_id, sequence)
);

-- Asks projected from the events, kept here so a receipt can win atomically.
CREATE TABLE asks (
    key             TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    thread_id       TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    ask_id          TEXT NOT NULL,
    kind            TEXT NOT NULL,
    state           TEXT NOT NULL,
    ask             TEXT NOT NULL,
    resolution      TEXT,
    answered_by     TEXT,
    opened_sequence INTEGER NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    closed_at_ms    INTEGER
);
CREATE INDEX asks_by_state ON asks (tenant_id, state, created_at_ms);

-- Every receipt posted, accepted or not (answers redacted).
CREATE TABLE receipts (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT NOT NULL,
    ask_key   TEXT NOT NULL,
    actor     TEXT NOT NULL,
    outcome   TEXT NOT NULL,
    receipt   TEXT NOT NULL,
    at_ms     INTEGER NOT NULL
);
