-- Projects group threads and notes; a thread or note may belong to one.
CREATE TABLE projects (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id      TEXT NOT NULL REFERENCES tenants (id),
    id             TEXT NOT NULL,
    name           TEXT NOT NULL,
    description    TEXT NOT NULL,
    default_agent  TEXT,
    archived_at_ms INTEGER,
    created_at_ms  INTEGER NOT NULL,
    updated_at_ms  INTEGER NOT NULL,
    UNIQUE (tenant_id, id)
);
ALTER TABLE threads ADD COLUMN project_id TEXT;

-- The current version of each note; `seq` is the row the full-text index points at.
CREATE TABLE notes (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    project_id    TEXT,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    -- Space-separated, lower case (tags hold no spaces).
    tags          TEXT NOT NULL,
    version       INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    created_by    TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    updated_by    TEXT NOT NULL,
    UNIQUE (tenant_id, id)
);
CREATE INDEX notes_recent ON notes (tenant_id, updated_at_ms DESC, seq DESC);

-- Words stemmed the English way (Porter), so "deploying" finds "deployment".
CREATE VIRTUAL TABLE notes_fts USING fts5 (
    title, body, tags,
    content = 'notes', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts (rowid, title, body, tags) VALUES (new.seq, new.title, new.body, new.tags);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, tags)
        VALUES ('delete', old.seq, old.title, old.body, old.tags);
END;
CREATE TRIGGER notes_fts_update AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, title, body, tags)
        VALUES ('delete', old.seq, old.title, old.body, old.tags);
    INSERT INTO notes_fts (rowid, title, body, tags) VALUES (new.seq, new.title, new.body, new.tags);
END;

-- Every version of every note, the current one included.
CREATE TABLE note_versions (
    tenant_id    TEXT NOT NULL,
    note_id      TEXT NOT NULL,
    version      INTEGER NOT NULL,
    project_id   TEXT,
    title        TEXT NOT NULL,
    body         TEXT NOT NULL,
    tags         TEXT NOT NULL,
    edited_at_ms INTEGER NOT NULL,
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
    position    INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, holder_kind, holder_id, kind, object_id)
);
CREATE INDEX pins_by_object ON pins (tenant_id, kind, object_id);
