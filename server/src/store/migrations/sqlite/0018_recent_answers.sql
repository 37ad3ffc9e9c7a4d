-- The sweep that resumes paused runs whose answers are all in reads the asks closed in
-- its window by this index; it also finds runs claimed by a claimant that is gone, which
-- the partial index of paused runs could not.
DROP INDEX runs_waiting;
CREATE INDEX asks_closed ON asks (closed_at_ms);
