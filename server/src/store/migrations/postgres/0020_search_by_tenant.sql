-- The full-text indexes by tenant: each word is indexed with a code of its tenant in
-- front (`search_*` columns, written by the server), so a search reads only its own
-- tenant's entries of the index, never another's (whose number it could time). The
-- server fills the columns of existing rows when it opens the store.
DROP INDEX notes_search;
ALTER TABLE notes DROP COLUMN search;
ALTER TABLE notes ADD COLUMN search_title TEXT;
ALTER TABLE notes ADD COLUMN search_body TEXT;
ALTER TABLE notes ADD COLUMN search_tags TEXT;
ALTER TABLE notes ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(search_title, '')), 'A')
    || setweight(to_tsvector('english', coalesce(search_tags, '')), 'B')
    || setweight(to_tsvector('english', coalesce(search_body, '')), 'C')
) STORED;
CREATE INDEX notes_search ON notes USING GIN (search);

DROP INDEX threads_search;
ALTER TABLE threads DROP COLUMN search;
ALTER TABLE threads ADD COLUMN search_title TEXT;
ALTER TABLE threads ADD COLUMN search_words TEXT;
ALTER TABLE threads ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(search_title, '')), 'A')
    || setweight(to_tsvector('english', coalesce(search_words, '')), 'C')
) STORED;
CREATE INDEX threads_search ON threads USING GIN (search);
