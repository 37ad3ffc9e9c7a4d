-- Whether the thread's title is settled: given by an operator, or taken from its first
-- message. A thread not yet titled takes its first message's first line.
ALTER TABLE threads ADD COLUMN titled BOOLEAN NOT NULL DEFAULT FALSE;
-- Threads from before: one that has runs had its first message, one with another title
-- than "Thread N" was renamed.
UPDATE threads SET titled = TRUE
WHERE title NOT LIKE 'Thread %'
   OR EXISTS (SELECT 1 FROM runs WHERE runs.thread_id = threads.id);

-- What the operators said in the thread, for finding it: its user messages, in order.
ALTER TABLE threads ADD COLUMN words TEXT NOT NULL DEFAULT '';
UPDATE threads SET words = COALESCE((
    SELECT string_agg((e.event::jsonb) -> 'payload' ->> 'text', ' ' ORDER BY r.created_at_ms, e.sequence)
    FROM events e JOIN runs r ON r.id = e.run_id
    WHERE r.thread_id = threads.id AND e.kind = 'user_message'
), '');

-- Words stemmed the English way, the title weighing most, as for notes.
ALTER TABLE threads ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', words), 'C')
) STORED;
CREATE INDEX threads_search ON threads USING GIN (search);
