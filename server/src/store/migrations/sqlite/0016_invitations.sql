-- An owner's invitation of a user (by name) into their tenant: the user joins only once
-- they accept it. Kept by name, so an invitation to a name nobody has looks, to the
-- owner, like any other.
CREATE TABLE invitations (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    user_name      TEXT NOT NULL,
    -- owner, operator or viewer
    role           TEXT NOT NULL,
    invited_by     TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_name)
);
CREATE INDEX invitations_by_user ON invitations (user_name);
