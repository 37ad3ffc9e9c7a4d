-- An ask's deadline (an AG-UI interrupt's `expiresAt`) as a column of its own, so the
-- asks past theirs are found without reading every pending ask. Closed asks get theirs
-- too: one may be opened again.
ALTER TABLE asks ADD COLUMN expires_at_ms BIGINT;
UPDATE asks SET expires_at_ms = json_extract(ask, '$.expires_at_ms')
WHERE ask LIKE '%"expires_at_ms"%';
CREATE INDEX asks_by_deadline ON asks (expires_at_ms) WHERE state = 'pending';
