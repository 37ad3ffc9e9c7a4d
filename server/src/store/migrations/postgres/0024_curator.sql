-- When a run was last given a memory entry (pinned to its thread or project), so the
-- curator can tell the entries nobody uses.
ALTER TABLE memory ADD COLUMN used_at_ms BIGINT;

-- A proposal the curator made names its pass and says why.
ALTER TABLE memory_proposals ADD COLUMN pass_id TEXT;
ALTER TABLE memory_proposals ADD COLUMN reason TEXT;

-- The curator's passes over a tenant's knowledge: one row per pass (its id is the job's),
-- with the report as JSON.
CREATE TABLE curator_passes (
    seq           BIGSERIAL PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    trigger_kind  TEXT NOT NULL,
    dry_run       BIGINT NOT NULL,
    requested_by  TEXT NOT NULL,
    state         TEXT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    finished_at_ms BIGINT,
    report        TEXT NOT NULL,
    UNIQUE (tenant_id, id)
);
CREATE INDEX curator_passes_by_time ON curator_passes (tenant_id, started_at_ms);

-- Every change to memory made on a curator's proposal, and every undo of one: the entry
-- before and after (JSON, null when there was none), who made it, and when. Rows are only
-- ever added.
CREATE TABLE curator_ledger (
    seq           BIGSERIAL PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    pass_id       TEXT NOT NULL,
    proposal_id   TEXT NOT NULL,
    entry_id      TEXT NOT NULL,
    scope         TEXT NOT NULL,
    scope_id      TEXT NOT NULL,
    -- The entry's place in its scope before the change, so an undo puts it back there.
    entry_seq     BIGINT,
    -- When a run was last given it, and where it was pinned (JSON), for the same reason.
    entry_used_at_ms BIGINT,
    entry_pins    TEXT,
    before_entry  TEXT,
    after_entry   TEXT,
    actor         TEXT NOT NULL,
    at_ms         BIGINT NOT NULL,
    -- The change this row undoes, for an undo.
    undoes        TEXT,
    UNIQUE (tenant_id, id)
);
CREATE INDEX curator_ledger_by_time ON curator_ledger (tenant_id, seq);
-- A change is undone once.
CREATE UNIQUE INDEX curator_ledger_one_undo ON curator_ledger (tenant_id, undoes) WHERE undoes IS NOT NULL;

-- Whether a tenant is idle: its latest runs.
CREATE INDEX runs_by_tenant_time ON runs (tenant_id, created_at_ms);
