-- An ask's deadline (an AG-UI interrupt's `expiresAt`) as a column of its own, so the
-- asks past theirs are found without reading every pending ask. Closed asks get theirs
-- too: one may be opened again.
ALTER TABLE asks ADD COLUMN expires_at_ms BIGINT;
-- PostgreSQL's JSON functions refuse text holding `\u0000`, which serde writes for a NUL
-- in an agent's words: such an ask's deadline is read from its text instead.
DO $$
DECLARE
    row RECORD;
BEGIN
    FOR row IN SELECT key, ask FROM asks WHERE ask LIKE '%"expires_at_ms"%' LOOP
        BEGIN
            UPDATE asks SET expires_at_ms = (row.ask::json ->> 'expires_at_ms')::bigint
            WHERE key = row.key;
        EXCEPTION WHEN others THEN
            UPDATE asks
            SET expires_at_ms = substring(row.ask from '"expires_at_ms":(-?[0-9]+)')::bigint
            WHERE key = row.key;
        END;
    END LOOP;
END $$;
CREATE INDEX asks_by_deadline ON asks (expires_at_ms) WHERE state = 'pending';
