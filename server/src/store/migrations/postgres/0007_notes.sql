-- Projects group threads and notes; a thread or note may belong to one.
CREATE TABLE projects (
    seq            BIGSERIAL PRIMARY KEY,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             TEXT NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    default_agent  TEXT,
    archived_at_ms BIGINT,
    created_at_ms  BIGINT NOT NULL,
    updated_at_ms  BIGINT NOT NULL,
    UNIQUE (tenant_id, id)
);
ALTER TABLE threads ADD COLUMN project_id TEXT;

-- The current version of each note, with its full-text vector: title weighs most, then
-- tags, then the body; words stemmed the English way, so "deploying" finds "deployment".
CREATE TABLE notes (
    seq           BIGSERIAL PRIMARY KEY,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    project_id    TEXT,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    -- Space-separated, lower case (tags hold no spaces).
    tags          TEXT NOT NULL,
    version       BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    created_by    TEXT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    updated_by    TEXT NOT NULL,
    search        TSVECTOR GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', tags), 'B')
        || setweight(to_tsvector('english', body), 'C')
    ) STORED,
    UNIQUE (tenant_id, id)
);
CREATE INDEX notes_recent ON notes (tenant_id, updated_at_ms DESC, seq DESC);
CREATE INDEX notes_search ON notes USING GIN (search);

-- Every version of every note, the current one included.
CREATE TABLE note_versions (
    tenant_id    TEXT NOT NULL,
    note_id      TEXT NOT NULL,
    version      BIGINT NOT NULL,
    project_id   TEXT,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    tags         TEXT NOT NULL,
    edited_at_ms BIGINT NOT NULL,
    edited_by    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, note_id, version)
);

-- What a thread's or a project's runs are given: notes and memory entries pinned to it,
-- in order. `holder_kind` is 'thread' or 'project'; `kind` is 'note' or 'memory'.
CREATE TABLE pins (
    tenant_id   TEXT NOT NULL,
    holder_kind TEXT NOT NULL,
    holder_id   TEXT NOT NULL,
    kind        TEXT NOT NULL,
    object_id   TEXT NOT NULL,
    position    BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, holder_kind, holder_id, kind, object_id)
);
CREATE INDEX pins_by_object ON pins (tenant_id, kind, object_id);
