//! Asks and receipts: an ask is closed by the first valid receipt only, in one
//! transaction with its event, its audit row and its pending delivery.

use std::sync::Arc;

use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, EventDraft, RunEvent, RunRef};
use serde_json::Value;
use sqlx::Row;

use super::SqlStore;
use super::events::take_sequences;
use super::rows::*;
use crate::store::{AskRecord, Resolution, StoreError};

impl SqlStore {
    pub(super) async fn list_asks(
        &self,
        tenant_id: &str,
        state: Option<&str>,
    ) -> Result<Vec<AskRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND ($2 = '' OR state = $2) \
             ORDER BY created_at_ms, opened_sequence"
        ))
        .bind(tenant_id)
        .bind(state.unwrap_or(""))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ask_row).collect()
    }

    pub(super) async fn asks_past_deadline(
        &self,
        now_ms: i64,
        limit: u32,
    ) -> Result<Vec<AskRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ASK_COLUMNS} FROM asks WHERE state = 'pending' AND expires_at_ms <= $1 \
             ORDER BY expires_at_ms LIMIT $2"
        ))
        .bind(now_ms)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ask_row).collect()
    }

    pub(super) async fn count_asks(&self, tenant_id: &str, state: &str) -> Result<u64, StoreError> {
        let row =
            sqlx::query("SELECT COUNT(*) AS asks FROM asks WHERE tenant_id = $1 AND state = $2")
                .bind(tenant_id)
                .bind(state)
                .fetch_one(&self.pool)
                .await?;
        to_u64(row.try_get("asks")?, "ask count")
    }

    pub(super) async fn get_ask(
        &self,
        tenant_id: &str,
        key: &str,
    ) -> Result<Option<AskRecord>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND key = $2"
        ))
        .bind(tenant_id)
        .bind(key)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(ask_row).transpose()
    }

    pub(super) async fn run_asks(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<Vec<AskRecord>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND run_id = $2 ORDER BY opened_sequence"
        ))
        .bind(tenant_id)
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ask_row).collect()
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn close_ask(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        state: AskState,
        receipt: &Value,
        secret: bool,
        now_ms: i64,
    ) -> Result<Resolution, StoreError> {
        let resolution = serde_json::to_string(&state)
            .map_err(|error| StoreError::Corrupt(error.to_string()))?;
        let mut tx = self.begin_write().await?;
        if self.dialect == super::Dialect::Postgres {
            // Locks in the order the run's own appends take them — its run row, then the
            // tenant's feed (the triggers) — so an answer and the run's stream committing
            // together wait for each other rather than deadlock.
            sqlx::query(
                "SELECT r.id FROM runs r JOIN asks a ON a.tenant_id = r.tenant_id                  AND a.run_id = r.id WHERE a.tenant_id = $1 AND a.key = $2 FOR UPDATE OF r",
            )
            .bind(tenant_id)
            .bind(key)
            .fetch_optional(&mut *tx)
            .await?;
        }
        // The conditional update is the whole exactly-once guarantee: only one
        // transaction can move the row out of `pending`.
        let won = sqlx::query(
            "UPDATE asks SET state = $1, resolution = $2, answered_by = $3, closed_at_ms = $4 \
             WHERE tenant_id = $5 AND key = $6 AND state = 'pending' \
             RETURNING run_id, ask_id, kind",
        )
        .bind(state.label())
        .bind(&resolution)
        .bind(actor)
        .bind(now_ms)
        .bind(tenant_id)
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(won) = won else {
            tx.rollback().await?;
            sqlx::query(
                "INSERT INTO receipts (tenant_id, ask_key, actor, outcome, receipt, at_ms) \
                 VALUES ($1, $2, $3, 'conflict', $4, $5)",
            )
            .bind(tenant_id)
            .bind(key)
            .bind(actor)
            .bind(json_text(receipt))
            .bind(now_ms)
            .execute(&self.pool)
            .await?;
            return match self.get_ask(tenant_id, key).await? {
                Some(record) => Ok(Resolution::AlreadyClosed(Box::new(record))),
                None => Err(StoreError::Corrupt(format!("ask {key:?} vanished"))),
            };
        };
        let run_id: String = won.try_get("run_id")?;
        let ask_id: String = won.try_get("ask_id")?;
        let kind: String = won.try_get("kind")?;
        let ask_kind = serde_json::from_value(Value::String(kind))
            .map_err(|error| StoreError::Corrupt(format!("ask kind: {error}")))?;
        let (sequence, thread_id) = take_sequences(&mut tx, tenant_id, &run_id, 1, 0).await?;
        let event = RunEvent::from_draft(
            &Arc::new(RunRef::new(tenant_id, &thread_id, &run_id)),
            sequence,
            EventDraft::new(
                EventBody::AskClosed {
                    ask_id,
                    ask_kind,
                    state: Box::new(state),
                },
                Some(now_ms),
                None,
            ),
            now_ms,
        );
        let text = serde_json::to_string(&event)
            .map_err(|error| StoreError::Corrupt(error.to_string()))?;
        sqlx::query(
            "INSERT INTO events (tenant_id, run_id, sequence, channel, kind, event, upstream, ts) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)",
        )
        .bind(tenant_id)
        .bind(&run_id)
        .bind(to_i64(event.sequence))
        .bind(event.channel.as_str())
        .bind(event.kind())
        .bind(text)
        .bind(event.ts)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO receipts (tenant_id, ask_key, actor, outcome, receipt, at_ms) \
             VALUES ($1, $2, $3, 'accepted', $4, $5)",
        )
        .bind(tenant_id)
        .bind(key)
        .bind(actor)
        .bind(json_text(receipt))
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO deliveries (ask_key, tenant_id, run_id, state, secret, created_at_ms) \
             VALUES ($1, $2, $3, 'pending', $4, $5) \
             ON CONFLICT (ask_key) DO UPDATE SET state = 'pending', secret = excluded.secret, \
             created_at_ms = excluded.created_at_ms, settled_at_ms = NULL, note = NULL",
        )
        .bind(key)
        .bind(tenant_id)
        .bind(&run_id)
        .bind(i64::from(secret))
        .bind(now_ms)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Resolution::Won(Box::new(event)))
    }

    pub(super) async fn record_refused_receipt(
        &self,
        tenant_id: &str,
        key: &str,
        actor: &str,
        outcome: &str,
        receipt: &Value,
        now_ms: i64,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO receipts (tenant_id, ask_key, actor, outcome, receipt, at_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(tenant_id)
        .bind(key)
        .bind(actor)
        .bind(outcome)
        .bind(json_text(receipt))
        .bind(now_ms)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
