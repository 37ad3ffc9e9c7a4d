-- Runs paused on asks (not those resumed since, which keep their status for good): the
-- sweep that resumes those whose answers are all in reads them by this index instead
-- of every run, and each one's asks by the next.
CREATE INDEX runs_waiting ON runs (created_at_ms) WHERE status = 'interrupted';
CREATE INDEX asks_by_run ON asks (tenant_id, run_id);
