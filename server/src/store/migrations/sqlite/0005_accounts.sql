-- Accounts: users with argon2id password hashes (PHC strings), one role per tenant they
-- belong to, server-side sessions and API tokens kept only as SHA-256 digests, the
-- one-time setup link of a store with no users. The placeholder users table (one
-- "operator" per tenant, never read) gives way to real accounts.
DROP TABLE users;

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL
);

CREATE TABLE memberships (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    -- owner, operator or viewer
    role           TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    PRIMARY KEY (user_id, tenant_id)
);

CREATE TABLE sessions (
    digest         TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The tenant the session acts for (one of the user's memberships).
    tenant_id      TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    last_seen_ms   BIGINT NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE api_tokens (
    id             TEXT PRIMARY KEY,
    digest         TEXT NOT NULL,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tenant_id      TEXT NOT NULL,
    -- A role narrower than the user's in that tenant, or NULL for the user's own.
    role           TEXT,
    created_at_ms  BIGINT NOT NULL,
    expires_at_ms  BIGINT,
    revoked_at_ms  BIGINT
);

CREATE TABLE setup_tokens (
    digest         TEXT PRIMARY KEY,
    created_at_ms  BIGINT NOT NULL,
    used_at_ms     BIGINT
);
