//! Boards and cards in SQL: boards, cards with their dependencies, and each card change
//! written with its log entry.

use std::collections::HashMap;

use app::model::kanban::{Attempt, Board, Card, CardEvent, Comment};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::kanban_rows::{CARD_COLUMNS, card_of, log_event, update_card_on, write_deps};
use super::rows::{from_word, parse_json, to_json as json, to_u64, word};
use crate::store::StoreError;
use crate::store::kanban::{Claim, KanbanStore, NewEvent};

const BOARD_COLUMNS: &str =
    "id, name, project_id, limits, asks, created_by, created_at_ms, updated_at_ms";
fn board_of(row: &AnyRow) -> Result<(String, Board), StoreError> {
    Ok((
        row.try_get("tenant_id").unwrap_or_default(),
        Board {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            project_id: row.try_get("project_id")?,
            limits: parse_json(&row.try_get::<String, _>("limits")?, "board limits")?,
            asks: from_word(row.try_get("asks")?, "board asks")?,
            created_by: row.try_get("created_by")?,
            created_at_ms: row.try_get("created_at_ms")?,
            updated_at_ms: row.try_get("updated_at_ms")?,
        },
    ))
}

impl SqlStore {
    /// Fills in what each card depends on and the ask its run waits on: the cards of one
    /// board, or the one card `only`.
    async fn complete_cards(
        &self,
        tenant_id: &str,
        cards: &mut [Card],
        only: Option<&str>,
    ) -> Result<(), StoreError> {
        let Some(board) = cards.first().map(|card| card.board_id.clone()) else {
            return Ok(());
        };
        let only = only.unwrap_or_default();
        let deps = sqlx::query(
            "SELECT d.card_id, d.depends_on FROM card_deps d JOIN cards c \
             ON c.tenant_id = d.tenant_id AND c.id = d.card_id \
             WHERE d.tenant_id = $1 AND c.board_id = $2 AND ($3 = '' OR c.id = $3) \
             ORDER BY d.depends_on",
        )
        .bind(tenant_id)
        .bind(&board)
        .bind(only)
        .fetch_all(&self.pool)
        .await?;
        let mut on: HashMap<String, Vec<String>> = HashMap::new();
        for row in &deps {
            on.entry(row.try_get("card_id")?)
                .or_default()
                .push(row.try_get("depends_on")?);
        }
        let asks = sqlx::query(
            "SELECT a.card_id, MIN(k.key) AS ask_key FROM card_attempts a \
             JOIN cards c ON c.tenant_id = a.tenant_id AND c.attempt_id = a.id \
             JOIN asks k ON k.tenant_id = a.tenant_id AND k.thread_id = a.thread_id \
             WHERE a.tenant_id = $1 AND c.board_id = $2 AND ($3 = '' OR c.id = $3) \
             AND k.state = 'pending' GROUP BY a.card_id",
        )
        .bind(tenant_id)
        .bind(&board)
        .bind(only)
        .fetch_all(&self.pool)
        .await?;
        let mut waiting: HashMap<String, String> = HashMap::new();
        for row in &asks {
            waiting.insert(row.try_get("card_id")?, row.try_get("ask_key")?);
        }
        for card in cards.iter_mut() {
            card.depends_on = on.remove(&card.id).unwrap_or_default();
            card.needs_you = waiting.remove(&card.id);
        }
        Ok(())
    }
}

#[async_trait::async_trait]
impl KanbanStore for SqlStore {
    async fn create_board(&self, tenant_id: &str, board: &Board) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO boards (tenant_id, id, name, project_id, limits, asks, created_by, \
             created_at_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(tenant_id)
        .bind(&board.id)
        .bind(&board.name)
        .bind(board.project_id.as_deref())
        .bind(json(&board.limits)?)
        .bind(word(&board.asks))
        .bind(&board.created_by)
        .bind(board.created_at_ms)
        .bind(board.updated_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn boards(&self, tenant_id: &str) -> Result<Vec<Board>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {BOARD_COLUMNS} FROM boards WHERE tenant_id = $1 ORDER BY name, seq"
        ))
        .bind(tenant_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| board_of(row).map(|(_, board)| board))
            .collect()
    }

    async fn board(&self, tenant_id: &str, id: &str) -> Result<Option<Board>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {BOARD_COLUMNS} FROM boards WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref()
            .map(|row| board_of(row).map(|(_, board)| board))
            .transpose()
    }

    async fn all_boards(&self) -> Result<Vec<(String, Board)>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT tenant_id, {BOARD_COLUMNS} FROM boards ORDER BY seq"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(board_of).collect()
    }

    async fn replace_board(
        &self,
        tenant_id: &str,
        board: &Board,
        expected_updated_at_ms: i64,
    ) -> Result<bool, StoreError> {
        let done = sqlx::query(
            "UPDATE boards SET name = $1, limits = $2, asks = $3, updated_at_ms = $4 \
             WHERE tenant_id = $5 AND id = $6 AND updated_at_ms = $7",
        )
        .bind(&board.name)
        .bind(json(&board.limits)?)
        .bind(word(&board.asks))
        .bind(board.updated_at_ms)
        .bind(tenant_id)
        .bind(&board.id)
        .bind(expected_updated_at_ms)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn delete_board(&self, tenant_id: &str, id: &str) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        let cards = "SELECT id FROM cards WHERE tenant_id = $1 AND board_id = $2";
        for table in ["card_deps", "card_attempts", "card_events", "card_comments"] {
            sqlx::query(&format!(
                "DELETE FROM {table} WHERE tenant_id = $1 AND card_id IN ({cards})"
            ))
            .bind(tenant_id)
            .bind(id)
            .execute(&mut *transaction)
            .await?;
        }
        sqlx::query("DELETE FROM cards WHERE tenant_id = $1 AND board_id = $2")
            .bind(tenant_id)
            .bind(id)
            .execute(&mut *transaction)
            .await?;
        let done = sqlx::query("DELETE FROM boards WHERE tenant_id = $1 AND id = $2")
            .bind(tenant_id)
            .bind(id)
            .execute(&mut *transaction)
            .await?;
        transaction.commit().await?;
        Ok(done.rows_affected() == 1)
    }

    async fn create_card(
        &self,
        tenant_id: &str,
        card: &Card,
        idempotency_key: Option<&str>,
    ) -> Result<(Card, bool), StoreError> {
        let mut transaction = self.begin_write().await?;
        let inserted = sqlx::query(
            "INSERT INTO cards (tenant_id, id, board_id, title, body, agent, priority, labels, \
             links, lane, position, failures, idempotency_key, created_by, created_at_ms, \
             updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 0, $12, $13, \
             $14, $14) ON CONFLICT (tenant_id, board_id, idempotency_key) DO NOTHING",
        )
        .bind(tenant_id)
        .bind(&card.id)
        .bind(&card.board_id)
        .bind(&card.title)
        .bind(&card.body)
        .bind(card.agent.as_deref())
        .bind(i64::from(card.priority))
        .bind(json(&card.labels)?)
        .bind(json(&card.links)?)
        .bind(word(&card.lane))
        .bind(card.position)
        .bind(idempotency_key)
        .bind(&card.created_by)
        .bind(card.created_at_ms)
        .execute(&mut *transaction)
        .await?;
        if inserted.rows_affected() == 0 {
            transaction.rollback().await?;
            let row = sqlx::query(&format!(
                "SELECT {CARD_COLUMNS} FROM cards WHERE tenant_id = $1 AND board_id = $2 \
                 AND idempotency_key = $3"
            ))
            .bind(tenant_id)
            .bind(&card.board_id)
            .bind(idempotency_key)
            .fetch_one(&self.pool)
            .await?;
            let mut made = vec![card_of(&row)?];
            let id = made[0].id.clone();
            self.complete_cards(tenant_id, &mut made, Some(&id)).await?;
            return Ok((made.remove(0), false));
        }
        write_deps(&mut transaction, tenant_id, card).await?;
        let event = NewEvent::new(
            "created",
            &card.created_by,
            serde_json::json!({"lane": card.lane, "title": card.title}),
        );
        log_event(
            &mut transaction,
            tenant_id,
            &card.id,
            &event,
            card.created_at_ms,
        )
        .await?;
        transaction.commit().await?;
        Ok((card.clone(), true))
    }

    async fn cards(
        &self,
        tenant_id: &str,
        board_id: &str,
        archived: bool,
    ) -> Result<Vec<Card>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {CARD_COLUMNS} FROM cards WHERE tenant_id = $1 AND board_id = $2 \
             AND ($3 = 'all' OR lane <> 'archived') ORDER BY lane, position, seq"
        ))
        .bind(tenant_id)
        .bind(board_id)
        .bind(if archived { "all" } else { "current" })
        .fetch_all(&self.pool)
        .await?;
        let mut cards = rows.iter().map(card_of).collect::<Result<Vec<_>, _>>()?;
        self.complete_cards(tenant_id, &mut cards, None).await?;
        Ok(cards)
    }

    async fn card(&self, tenant_id: &str, id: &str) -> Result<Option<Card>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {CARD_COLUMNS} FROM cards WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut one = vec![card_of(&row)?];
        self.complete_cards(tenant_id, &mut one, Some(id)).await?;
        Ok(one.pop())
    }

    async fn write_card(
        &self,
        tenant_id: &str,
        card: &Card,
        expected_updated_at_ms: i64,
        event: &NewEvent,
    ) -> Result<bool, StoreError> {
        let mut transaction = self.begin_write().await?;
        if !update_card_on(&mut transaction, tenant_id, card, expected_updated_at_ms).await? {
            return Ok(false);
        }
        log_event(
            &mut transaction,
            tenant_id,
            &card.id,
            event,
            card.updated_at_ms,
        )
        .await?;
        transaction.commit().await?;
        Ok(true)
    }

    async fn claim_cards(
        &self,
        tenant_id: &str,
        board_id: &str,
        running: usize,
        claims: &[Claim],
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        super::kanban_attempts::claim_cards(self, (tenant_id, board_id), running, claims, now_ms)
            .await
    }

    async fn attempts(&self, tenant_id: &str, card_id: &str) -> Result<Vec<Attempt>, StoreError> {
        super::kanban_attempts::attempts(self, tenant_id, card_id).await
    }

    async fn attempt(&self, tenant_id: &str, id: &str) -> Result<Option<Attempt>, StoreError> {
        super::kanban_attempts::attempt(self, tenant_id, "id", id).await
    }

    async fn attempt_of_thread(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Option<Attempt>, StoreError> {
        super::kanban_attempts::attempt(self, tenant_id, "thread_id", thread_id).await
    }

    async fn write_attempt(&self, tenant_id: &str, attempt: &Attempt) -> Result<(), StoreError> {
        super::kanban_attempts::write_attempt(self, tenant_id, attempt).await
    }

    async fn last_sign(&self, tenant_id: &str, thread_id: &str) -> Result<Option<i64>, StoreError> {
        let row = sqlx::query(
            "SELECT MAX(e.ts) AS at FROM events e JOIN runs r ON r.id = e.run_id \
             WHERE r.tenant_id = $1 AND r.thread_id = $2",
        )
        .bind(tenant_id)
        .bind(thread_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("at")?)
    }

    async fn card_events(
        &self,
        tenant_id: &str,
        card_id: &str,
    ) -> Result<Vec<CardEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT seq, kind, attempt_id, actor, detail, at_ms FROM card_events \
             WHERE tenant_id = $1 AND card_id = $2 ORDER BY seq DESC LIMIT 500",
        )
        .bind(tenant_id)
        .bind(card_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(CardEvent {
                    seq: to_u64(row.try_get("seq")?, "card event")?,
                    kind: row.try_get("kind")?,
                    attempt_id: row.try_get("attempt_id")?,
                    actor: row.try_get("actor")?,
                    detail: parse_json(&row.try_get::<String, _>("detail")?, "card event")?,
                    at_ms: row.try_get("at_ms")?,
                })
            })
            .collect()
    }

    async fn comments(&self, tenant_id: &str, card_id: &str) -> Result<Vec<Comment>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, author, body, at_ms FROM card_comments WHERE tenant_id = $1 \
             AND card_id = $2 ORDER BY seq",
        )
        .bind(tenant_id)
        .bind(card_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Comment {
                    id: row.try_get("id")?,
                    author: row.try_get("author")?,
                    body: row.try_get("body")?,
                    at_ms: row.try_get("at_ms")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(StoreError::from)
    }

    async fn add_comment(
        &self,
        tenant_id: &str,
        card_id: &str,
        comment: &Comment,
    ) -> Result<(), StoreError> {
        let mut transaction = self.begin_write().await?;
        sqlx::query(
            "INSERT INTO card_comments (tenant_id, id, card_id, author, body, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(tenant_id)
        .bind(&comment.id)
        .bind(card_id)
        .bind(&comment.author)
        .bind(&comment.body)
        .bind(comment.at_ms)
        .execute(&mut *transaction)
        .await?;
        let event = NewEvent::new(
            "commented",
            &comment.author,
            serde_json::json!({"comment_id": comment.id}),
        );
        log_event(&mut transaction, tenant_id, card_id, &event, comment.at_ms).await?;
        transaction.commit().await?;
        Ok(())
    }
}
