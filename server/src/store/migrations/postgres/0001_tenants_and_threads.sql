-- Tenants own everything; the default tenant exists from the start.
CREATE TABLE tenants (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
INSERT INTO tenants (id, name, created_at_ms) VALUES ('default', 'Default', 0);

CREATE TABLE threads (
    -- Insertion order breaks ties between threads created in the same millisecond.
    seq           BIGSERIAL PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    title         TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX threads_by_tenant ON threads (tenant_id, created_at_ms);
