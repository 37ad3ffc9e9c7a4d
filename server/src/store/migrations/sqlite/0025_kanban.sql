-- Boards of cards that agents take, move and finish.
CREATE TABLE boards (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    name          TEXT NOT NULL,
    project_id    TEXT,
    -- Limits (JSON) and what an ask of a card's run does while nobody watches.
    limits        TEXT NOT NULL,
    asks          TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    UNIQUE (tenant_id, id)
);

CREATE TABLE cards (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL REFERENCES tenants (id),
    id            TEXT NOT NULL,
    board_id      TEXT NOT NULL,
    title         TEXT NOT NULL,
    body          TEXT NOT NULL,
    agent         TEXT,
    priority      INTEGER NOT NULL,
    -- JSON arrays and objects.
    labels        TEXT NOT NULL,
    links         TEXT NOT NULL,
    lane          TEXT NOT NULL,
    position      REAL NOT NULL,
    blocked_reason TEXT,
    -- The reason of the card's last block, kept when it is unblocked: the loop breaker's.
    last_block    TEXT,
    failures      INTEGER NOT NULL DEFAULT 0,
    attempt_id    TEXT,
    summary       TEXT,
    idempotency_key TEXT,
    created_by    TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    UNIQUE (tenant_id, id),
    UNIQUE (tenant_id, board_id, idempotency_key)
);
CREATE INDEX cards_by_lane ON cards (tenant_id, board_id, lane, position);

-- A card waits on the cards it depends on.
CREATE TABLE card_deps (
    tenant_id     TEXT NOT NULL,
    card_id       TEXT NOT NULL,
    depends_on    TEXT NOT NULL,
    PRIMARY KEY (tenant_id, card_id, depends_on)
);
CREATE INDEX card_deps_on ON card_deps (tenant_id, depends_on);

-- One row per attempt: the job, thread and run that worked a card.
CREATE TABLE card_attempts (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL,
    id            TEXT NOT NULL,
    card_id       TEXT NOT NULL,
    number        INTEGER NOT NULL,
    agent         TEXT NOT NULL,
    job_id        TEXT NOT NULL,
    thread_id     TEXT,
    run_id        TEXT,
    state         TEXT NOT NULL,
    started_at_ms INTEGER NOT NULL,
    ended_at_ms   INTEGER,
    last_sign_ms  INTEGER NOT NULL,
    note          TEXT,
    UNIQUE (tenant_id, id),
    UNIQUE (tenant_id, card_id, number)
);
CREATE INDEX card_attempts_by_run ON card_attempts (tenant_id, run_id);

-- A card's append-only log.
CREATE TABLE card_events (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL,
    card_id       TEXT NOT NULL,
    kind          TEXT NOT NULL,
    attempt_id    TEXT,
    actor         TEXT NOT NULL,
    detail        TEXT NOT NULL,
    at_ms         INTEGER NOT NULL
);
CREATE INDEX card_events_by_card ON card_events (tenant_id, card_id, seq);

CREATE TABLE card_comments (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id     TEXT NOT NULL,
    id            TEXT NOT NULL,
    card_id       TEXT NOT NULL,
    author        TEXT NOT NULL,
    body          TEXT NOT NULL,
    at_ms         INTEGER NOT NULL,
    UNIQUE (tenant_id, id)
);
CREATE INDEX card_comments_by_card ON card_comments (tenant_id, card_id, seq);

-- A board's changes on the tenant's feed: a card made, changed or removed, a board
-- changed. Every tab with the board open reads it again.
CREATE TRIGGER tenant_feed_card_made AFTER INSERT ON cards BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'board', new.board_id);
END;
CREATE TRIGGER tenant_feed_card_changed AFTER UPDATE ON cards BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'board', new.board_id);
END;
CREATE TRIGGER tenant_feed_card_gone AFTER DELETE ON cards BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (old.tenant_id, 'board', old.board_id);
END;
CREATE TRIGGER tenant_feed_board_changed AFTER UPDATE ON boards BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (new.tenant_id, 'board', new.id);
END;
CREATE TRIGGER tenant_feed_board_gone AFTER DELETE ON boards BEGIN
    INSERT INTO tenant_feed (tenant_id, subject, key) VALUES (old.tenant_id, 'board', old.id);
END;
