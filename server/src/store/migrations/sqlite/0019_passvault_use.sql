-- Each passvault entry's use policy: the agents its value may be sent to (none listed:
-- any) and the least role that may send it, as JSON; `{}` is the default (any agent,
-- operators and owners).
ALTER TABLE passvault ADD COLUMN use_policy TEXT NOT NULL DEFAULT '{}';
