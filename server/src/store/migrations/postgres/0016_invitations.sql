-- An owner's invitation of a user (by name) into their tenant: the user joins only once
-- they accept it. Made for a name nobody has, it is listed like any other, so inviting
-- tells the owner nothing about which names exist; it holds the id of the user the name
-- belonged to when it was made (none for a name nobody had), and only that user sees and
-- answers it: someone who takes the name later does not.
CREATE TABLE invitations (
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    user_name      TEXT NOT NULL,
    user_id        TEXT,
    -- owner, operator or viewer
    role           TEXT NOT NULL,
    invited_by     TEXT NOT NULL,
    created_at_ms  BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_name)
);
CREATE INDEX invitations_by_user ON invitations (user_id);
