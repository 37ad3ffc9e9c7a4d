-- An ask's deadline (an AG-UI interrupt's `expiresAt`) as a column of its own, so the
-- asks past theirs are found without reading every pending ask.
ALTER TABLE asks ADD COLUMN expires_at_ms BIGINT;
UPDATE asks SET expires_at_ms = (ask::jsonb ->> 'expires_at_ms')::bigint WHERE state = 'pending';
CREATE INDEX asks_by_deadline ON asks (expires_at_ms) WHERE state = 'pending';
