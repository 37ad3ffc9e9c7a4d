-- Who changed what in a tenant: every state-changing request that succeeded (and every
-- sign-in), by user and API token. Targets are ids only, never what was typed.
CREATE TABLE audit (
    id          BIGSERIAL PRIMARY KEY,
    tenant_id   TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    user_id     TEXT NOT NULL,
    user_name   TEXT NOT NULL,
    token_id    TEXT,
    action      TEXT NOT NULL,
    target      TEXT NOT NULL
);
CREATE INDEX audit_by_tenant ON audit (tenant_id, id);
