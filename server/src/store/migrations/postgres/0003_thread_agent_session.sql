-- The agent-side session a thread continues (a Hermes stored_session_id), so it
-- survives a restart of this server or of the gateway.
ALTER TABLE threads ADD COLUMN agent_session TEXT;
