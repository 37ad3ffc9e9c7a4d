-- Accepted answers on their way to the agent: written in the transaction that closes the
-- ask, marked once the agent has it (or it cannot be had), swept at start for what a
-- crash left pending.
CREATE TABLE deliveries (
    ask_key         TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    run_id          TEXT NOT NULL,
    -- pending, delivered or abandoned
    state           TEXT NOT NULL,
    -- 1 when the answer carries a value the store never keeps (a password, a secret).
    secret          INTEGER NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    settled_at_ms   INTEGER,
    note            TEXT
);
CREATE INDEX deliveries_by_state ON deliveries (state, created_at_ms);
