-- Passvault entries: a named secret per row, its value sealed (XChaCha20-Poly1305, bound
-- to tenant and id) — the plain value is never stored.
CREATE TABLE passvault (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id       TEXT NOT NULL REFERENCES tenants (id),
    id              TEXT NOT NULL,
    name            TEXT NOT NULL,
    env_var         TEXT NOT NULL,
    description     TEXT NOT NULL,
    metadata        TEXT NOT NULL,
    sealed          TEXT NOT NULL,
    created_by      TEXT NOT NULL,
    created_at_ms   INTEGER NOT NULL,
    updated_at_ms   INTEGER NOT NULL,
    last_used_at_ms INTEGER,
    last_used_by    TEXT,
    UNIQUE (tenant_id, id),
    UNIQUE (tenant_id, name)
);
CREATE INDEX passvault_by_env_var ON passvault (tenant_id, env_var, name);
