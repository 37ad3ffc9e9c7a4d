//! A card's attempts in SQL, and the claim that hands cards to their agents: each card
//! moved to running over the row the dispatcher read, with its attempt, its `claimed`
//! event and its job, in one transaction.

use app::model::kanban::Attempt;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::SqlStore;
use super::jobs::enqueue_on;
use super::kanban_rows::{log_event, update_card_on};
use crate::store::StoreError;
use crate::store::kanban::{Claim, NewEvent};

const ATTEMPT_COLUMNS: &str = "id, card_id, number, agent, job_id, thread_id, run_id, state, \
     started_at_ms, ended_at_ms, last_sign_ms, note";

fn attempt_of(row: &AnyRow) -> Result<Attempt, StoreError> {
    let number: i64 = row.try_get("number")?;
    Ok(Attempt {
        id: row.try_get("id")?,
        card_id: row.try_get("card_id")?,
        number: u32::try_from(number).unwrap_or(0),
        agent: row.try_get("agent")?,
        job_id: row.try_get("job_id")?,
        thread_id: row.try_get("thread_id")?,
        run_id: row.try_get("run_id")?,
        state: row.try_get("state")?,
        started_at_ms: row.try_get("started_at_ms")?,
        ended_at_ms: row.try_get("ended_at_ms")?,
        last_sign_ms: row.try_get("last_sign_ms")?,
        note: row.try_get("note")?,
    })
}

pub(super) async fn claim_cards(
    store: &SqlStore,
    (tenant_id, board_id): (&str, &str),
    running: usize,
    claims: &[Claim],
    now_ms: i64,
) -> Result<bool, StoreError> {
    let mut transaction = store
        .begin_write_on(&format!("board:{tenant_id}:{board_id}"))
        .await?;
    let counted: i64 = sqlx::query(
        "SELECT COUNT(*) AS n FROM cards WHERE tenant_id = $1 AND board_id = $2 \
         AND lane = 'running'",
    )
    .bind(tenant_id)
    .bind(board_id)
    .fetch_one(&mut *transaction)
    .await?
    .try_get("n")?;
    if usize::try_from(counted).ok() != Some(running) {
        transaction.rollback().await?;
        return Ok(false);
    }
    for claim in claims {
        if !update_card_on(
            &mut transaction,
            tenant_id,
            &claim.card,
            claim.expected_updated_at_ms,
        )
        .await?
        {
            transaction.rollback().await?;
            return Ok(false);
        }
        let attempt = &claim.attempt;
        sqlx::query(&format!(
            "INSERT INTO card_attempts (tenant_id, {ATTEMPT_COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        ))
        .bind(tenant_id)
        .bind(&attempt.id)
        .bind(&attempt.card_id)
        .bind(i64::from(attempt.number))
        .bind(&attempt.agent)
        .bind(&attempt.job_id)
        .bind(attempt.thread_id.as_deref())
        .bind(attempt.run_id.as_deref())
        .bind(&attempt.state)
        .bind(attempt.started_at_ms)
        .bind(attempt.ended_at_ms)
        .bind(attempt.last_sign_ms)
        .bind(attempt.note.as_deref())
        .execute(&mut *transaction)
        .await?;
        let event = NewEvent {
            attempt_id: Some(attempt.id.clone()),
            ..NewEvent::new(
                "claimed",
                "the dispatcher",
                serde_json::json!({"agent": attempt.agent, "attempt": attempt.number}),
            )
        };
        log_event(&mut transaction, tenant_id, &claim.card.id, &event, now_ms).await?;
        enqueue_on(&mut transaction, &claim.job, now_ms).await?;
    }
    if !claims.is_empty() {
        store.announce_jobs(&mut transaction).await?;
    }
    transaction.commit().await?;
    Ok(true)
}

pub(super) async fn attempts(
    store: &SqlStore,
    tenant_id: &str,
    card_id: &str,
) -> Result<Vec<Attempt>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM card_attempts WHERE tenant_id = $1 AND card_id = $2 \
         ORDER BY number DESC"
    ))
    .bind(tenant_id)
    .bind(card_id)
    .fetch_all(&store.pool)
    .await?;
    rows.iter().map(attempt_of).collect()
}

/// The attempt whose `column` (`id` or `thread_id`) is `value`; for a thread, its latest.
pub(super) async fn attempt(
    store: &SqlStore,
    tenant_id: &str,
    column: &'static str,
    value: &str,
) -> Result<Option<Attempt>, StoreError> {
    let row = sqlx::query(&format!(
        "SELECT {ATTEMPT_COLUMNS} FROM card_attempts WHERE tenant_id = $1 AND {column} = $2 \
         ORDER BY seq DESC LIMIT 1"
    ))
    .bind(tenant_id)
    .bind(value)
    .fetch_optional(&store.pool)
    .await?;
    row.as_ref().map(attempt_of).transpose()
}

pub(super) async fn write_attempt(
    store: &SqlStore,
    tenant_id: &str,
    attempt: &Attempt,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE card_attempts SET thread_id = $1, run_id = $2, state = $3, ended_at_ms = $4, \
         last_sign_ms = $5, note = $6 WHERE tenant_id = $7 AND id = $8",
    )
    .bind(attempt.thread_id.as_deref())
    .bind(attempt.run_id.as_deref())
    .bind(&attempt.state)
    .bind(attempt.ended_at_ms)
    .bind(attempt.last_sign_ms)
    .bind(attempt.note.as_deref())
    .bind(tenant_id)
    .bind(&attempt.id)
    .execute(&store.pool)
    .await?;
    Ok(())
}
