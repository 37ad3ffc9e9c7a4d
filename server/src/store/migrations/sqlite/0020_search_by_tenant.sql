-- The full-text indexes by tenant: each word is indexed with a code of its tenant in
-- front (`search_*` columns, written by the server), so a search reads only its own
-- tenant's entries of the index, never another's (whose number it could time). The
-- server fills the columns of existing rows when it opens the store.
ALTER TABLE notes ADD COLUMN search_title TEXT;
ALTER TABLE notes ADD COLUMN search_body TEXT;
ALTER TABLE notes ADD COLUMN search_tags TEXT;
DROP TRIGGER notes_fts_insert;
DROP TRIGGER notes_fts_delete;
DROP TRIGGER notes_fts_update;
DROP TABLE notes_fts;
CREATE VIRTUAL TABLE notes_fts USING fts5 (
    search_title, search_body, search_tags,
    content = 'notes', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes WHEN new.search_title IS NOT NULL BEGIN
    INSERT INTO notes_fts (rowid, search_title, search_body, search_tags)
        VALUES (new.seq, new.search_title, new.search_body, new.search_tags);
END;
CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes WHEN old.search_title IS NOT NULL BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, search_title, search_body, search_tags)
        VALUES ('delete', old.seq, old.search_title, old.search_body, old.search_tags);
END;
-- One trigger for an update, so the old entry leaves before the new one comes.
CREATE TRIGGER notes_fts_update AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts (notes_fts, rowid, search_title, search_body, search_tags)
        SELECT 'delete', old.seq, old.search_title, old.search_body, old.search_tags
        WHERE old.search_title IS NOT NULL;
    INSERT INTO notes_fts (rowid, search_title, search_body, search_tags)
        SELECT new.seq, new.search_title, new.search_body, new.search_tags
        WHERE new.search_title IS NOT NULL;
END;

ALTER TABLE threads ADD COLUMN search_title TEXT;
ALTER TABLE threads ADD COLUMN search_words TEXT;
DROP TRIGGER threads_fts_insert;
DROP TRIGGER threads_fts_delete;
DROP TRIGGER threads_fts_update;
DROP TABLE threads_fts;
CREATE VIRTUAL TABLE threads_fts USING fts5 (
    search_title, search_words,
    content = 'threads', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE TRIGGER threads_fts_insert AFTER INSERT ON threads WHEN new.search_title IS NOT NULL BEGIN
    INSERT INTO threads_fts (rowid, search_title, search_words)
        VALUES (new.seq, new.search_title, new.search_words);
END;
CREATE TRIGGER threads_fts_delete AFTER DELETE ON threads WHEN old.search_title IS NOT NULL BEGIN
    INSERT INTO threads_fts (threads_fts, rowid, search_title, search_words)
        VALUES ('delete', old.seq, old.search_title, old.search_words);
END;
CREATE TRIGGER threads_fts_update AFTER UPDATE OF search_title, search_words ON threads BEGIN
    INSERT INTO threads_fts (threads_fts, rowid, search_title, search_words)
        SELECT 'delete', old.seq, old.search_title, old.search_words
        WHERE old.search_title IS NOT NULL;
    INSERT INTO threads_fts (rowid, search_title, search_words)
        SELECT new.seq, new.search_title, new.search_words
        WHERE new.search_title IS NOT NULL;
END;
