-- Whether the thread's title is settled: given by an operator, or taken from its first
-- message. A thread not yet titled takes its first message's first line.
ALTER TABLE threads ADD COLUMN titled INTEGER NOT NULL DEFAULT 0;
-- Threads from before: one that has runs had its first message, one with another title
-- than "Thread N" was renamed.
UPDATE threads SET titled = 1
WHERE title NOT LIKE 'Thread %'
   OR EXISTS (SELECT 1 FROM runs WHERE runs.thread_id = threads.id);

-- What the operators said in the thread, for finding it: its user messages, in order.
ALTER TABLE threads ADD COLUMN words TEXT NOT NULL DEFAULT '';
UPDATE threads SET words = COALESCE((
    SELECT group_concat(json_extract(e.event, '$.payload.text'), ' ')
    FROM events e JOIN runs r ON r.id = e.run_id
    WHERE r.thread_id = threads.id AND e.kind = 'user_message'
), '');

-- Words stemmed the English way (Porter), as for notes.
CREATE VIRTUAL TABLE threads_fts USING fts5 (
    title, words,
    content = 'threads', content_rowid = 'seq', tokenize = 'porter unicode61'
);
INSERT INTO threads_fts (rowid, title, words) SELECT seq, title, words FROM threads;
CREATE TRIGGER threads_fts_insert AFTER INSERT ON threads BEGIN
    INSERT INTO threads_fts (rowid, title, words) VALUES (new.seq, new.title, new.words);
END;
CREATE TRIGGER threads_fts_delete AFTER DELETE ON threads BEGIN
    INSERT INTO threads_fts (threads_fts, rowid, title, words)
        VALUES ('delete', old.seq, old.title, old.words);
END;
CREATE TRIGGER threads_fts_update AFTER UPDATE OF title, words ON threads BEGIN
    INSERT INTO threads_fts (threads_fts, rowid, title, words)
        VALUES ('delete', old.seq, old.title, old.words);
    INSERT INTO threads_fts (rowid, title, words) VALUES (new.seq, new.title, new.words);
END;
