//! A card as SQL rows hold it, and the writes every card change shares: the card over
//! the row as it was read, what it depends on, and its log entry.

use app::model::kanban::Card;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};

use super::rows::{from_word, parse_json, to_json as json, word};
use crate::store::StoreError;
use crate::store::kanban::NewEvent;

pub(super) const CARD_COLUMNS: &str = "id, board_id, title, body, agent, priority, labels, \
     links, lane, position, blocked_reason, last_block, failures, attempt_id, summary, \
     created_by, created_at_ms, updated_at_ms";

pub(super) fn card_of(row: &AnyRow) -> Result<Card, StoreError> {
    let priority: i64 = row.try_get("priority")?;
    let failures: i64 = row.try_get("failures")?;
    Ok(Card {
        id: row.try_get("id")?,
        board_id: row.try_get("board_id")?,
        title: row.try_get("title")?,
        body: row.try_get("body")?,
        agent: row.try_get("agent")?,
        priority: u8::try_from(priority).unwrap_or(0),
        labels: parse_json(&row.try_get::<String, _>("labels")?, "card labels")?,
        lane: from_word(row.try_get("lane")?, "card lane")?,
        position: row.try_get("position")?,
        blocked_reason: row.try_get("blocked_reason")?,
        last_block: row.try_get("last_block")?,
        failures: u32::try_from(failures).unwrap_or(0),
        attempt_id: row.try_get("attempt_id")?,
        summary: row.try_get("summary")?,
        depends_on: Vec::new(),
        links: parse_json(&row.try_get::<String, _>("links")?, "card links")?,
        needs_you: None,
        created_by: row.try_get("created_by")?,
        created_at_ms: row.try_get("created_at_ms")?,
        updated_at_ms: row.try_get("updated_at_ms")?,
    })
}

/// Appends `event` to the card's log on `connection`.
pub(super) async fn log_event(
    connection: &mut AnyConnection,
    tenant_id: &str,
    card_id: &str,
    event: &NewEvent,
    now_ms: i64,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO card_events (tenant_id, card_id, kind, attempt_id, actor, detail, at_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(tenant_id)
    .bind(card_id)
    .bind(event.kind)
    .bind(event.attempt_id.as_deref())
    .bind(&event.actor)
    .bind(event.detail.to_string())
    .bind(now_ms)
    .execute(&mut *connection)
    .await?;
    Ok(())
}

/// Replaces what the card depends on.
pub(super) async fn write_deps(
    connection: &mut AnyConnection,
    tenant_id: &str,
    card: &Card,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM card_deps WHERE tenant_id = $1 AND card_id = $2")
        .bind(tenant_id)
        .bind(&card.id)
        .execute(&mut *connection)
        .await?;
    for parent in &card.depends_on {
        sqlx::query(
            "INSERT INTO card_deps (tenant_id, card_id, depends_on) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(tenant_id)
        .bind(&card.id)
        .bind(parent)
        .execute(&mut *connection)
        .await?;
    }
    Ok(())
}

/// Writes the card's fields over the row still at `expected`; false when it moved on.
pub(super) async fn update_card_on(
    connection: &mut AnyConnection,
    tenant_id: &str,
    card: &Card,
    expected: i64,
) -> Result<bool, StoreError> {
    let done = sqlx::query(
        "UPDATE cards SET title = $1, body = $2, agent = $3, priority = $4, labels = $5, \
         links = $6, lane = $7, position = $8, blocked_reason = $9, last_block = $10, \
         failures = $11, attempt_id = $12, summary = $13, updated_at_ms = $14 \
         WHERE tenant_id = $15 AND id = $16 AND updated_at_ms = $17",
    )
    .bind(&card.title)
    .bind(&card.body)
    .bind(card.agent.as_deref())
    .bind(i64::from(card.priority))
    .bind(json(&card.labels)?)
    .bind(json(&card.links)?)
    .bind(word(&card.lane))
    .bind(card.position)
    .bind(card.blocked_reason.as_deref())
    .bind(card.last_block.as_deref())
    .bind(i64::from(card.failures))
    .bind(card.attempt_id.as_deref())
    .bind(card.summary.as_deref())
    .bind(card.updated_at_ms)
    .bind(tenant_id)
    .bind(&card.id)
    .bind(expected)
    .execute(&mut *connection)
    .await?;
    if done.rows_affected() != 1 {
        return Ok(false);
    }
    write_deps(connection, tenant_id, card).await?;
    Ok(true)
}
