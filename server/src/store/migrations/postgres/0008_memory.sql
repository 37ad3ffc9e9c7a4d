-- Memory entries, in order within their scope: the tenant's (scope_id ''), a project's
-- (its id) or a user's (their id).
CREATE TABLE memory (
    seq           BIGSERIAL PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    scope         TEXT NOT NULL,
    scope_id      TEXT NOT NULL,
    text          TEXT NOT NULL,
    source        TEXT NOT NULL,
    author        TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    UNIQUE (tenant_id, id)
);
CREATE INDEX memory_by_scope ON memory (tenant_id, scope, scope_id, seq);

-- What agents propose to memory, waiting for review or decided.
CREATE TABLE memory_proposals (
    seq           BIGSERIAL PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    scope         TEXT NOT NULL,
    scope_id      TEXT NOT NULL,
    operations    TEXT NOT NULL,
    proposed_by   TEXT NOT NULL,
    run_id        TEXT,
    created_at_ms BIGINT NOT NULL,
    state         TEXT NOT NULL,
    reviewed_by   TEXT,
    outcome       TEXT,
    UNIQUE (tenant_id, id)
);
CREATE INDEX memory_proposals_by_state ON memory_proposals (tenant_id, state, seq);

-- A tenant's settings, by name (memory.auto_accept, …).
CREATE TABLE tenant_settings (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    name      TEXT NOT NULL,
    value     TEXT NOT NULL,
    PRIMARY KEY (tenant_id, name)
);
