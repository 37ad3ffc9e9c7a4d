//! Events: each run's dense sequence, assigned inside the transaction that stores the
//! events (and the raw upstream ones), with the ask table and run status kept in step.

use std::sync::Arc;

use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, EventDraft, RunEvent, RunRef};
use app::protocol::status::RunStatus;
use sqlx::Row;

use super::rows::*;
use super::statement::Statement;
use super::{Db, Dialect, SqlStore};
use crate::store::{AppendRequest, StoreError, UpstreamEvent, ask_key};

/// Inserts events (and keeps the ask table in step) inside a transaction.
pub(super) async fn insert_events(
    tx: &mut sqlx::Transaction<'_, Db>,
    dialect: Dialect,
    events: &[RunEvent],
    now_ms: i64,
) -> Result<(), StoreError> {
    for chunk in events.chunks(INSERT_CHUNK) {
        let mut insert = Statement::new(
            dialect,
            "INSERT INTO events (tenant_id, run_id, sequence, channel, kind, event, upstream, ts) ",
        );
        let mut texts = Vec::with_capacity(chunk.len());
        for event in chunk {
            texts.push(
                serde_json::to_string(event)
                    .map_err(|error| StoreError::Corrupt(error.to_string()))?,
            );
        }
        insert.push_values(chunk.iter().zip(texts), |row, (event, text)| {
            row.push_bind(event.tenant_id().to_string())
                .push_bind(event.run_id().to_string())
                .push_bind(to_i64(event.sequence))
                .push_bind(event.channel.as_str())
                .push_bind(event.kind())
                .push_bind(text)
                .push_bind(event.upstream.map(to_i64))
                .push_bind(event.ts);
        });
        insert.execute(&mut **tx).await?;
    }
    for event in events {
        match &event.body {
            EventBody::AskOpened { ask } => {
                let text = serde_json::to_string(&**ask)
                    .map_err(|error| StoreError::Corrupt(error.to_string()))?;
                sqlx::query(
                    "INSERT INTO asks (key, tenant_id, thread_id, run_id, ask_id, kind, state, ask, \
                     opened_sequence, created_at_ms, expires_at_ms) \
                     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $10) \
                     ON CONFLICT (key) DO UPDATE SET ask = excluded.ask, \
                     opened_sequence = excluded.opened_sequence, \
                     expires_at_ms = excluded.expires_at_ms \
                     WHERE asks.state = 'pending'",
                )
                .bind(ask_key(event.run_id(), &ask.id))
                .bind(event.tenant_id().to_string())
                .bind(event.thread_id().to_string())
                .bind(event.run_id().to_string())
                .bind(&ask.id)
                .bind(ask.kind.as_str())
                .bind(text)
                .bind(to_i64(event.sequence))
                .bind(now_ms)
                .bind(ask.expires_at_ms)
                .execute(&mut **tx)
                .await?;
            }
            // The console reopens an ask whose answer was lost before it
            // reached the agent.
            EventBody::AskClosed { ask_id, state, .. } if state.is_pending() => {
                sqlx::query(
                    "UPDATE asks SET state = 'pending', resolution = NULL, answered_by = NULL, \
                     closed_at_ms = NULL WHERE key = $1 AND tenant_id = $2",
                )
                .bind(ask_key(event.run_id(), ask_id))
                .bind(event.tenant_id().to_string())
                .execute(&mut **tx)
                .await?;
            }
            EventBody::AskClosed { ask_id, state, .. } => {
                let resolution = serde_json::to_string(&**state)
                    .map_err(|error| StoreError::Corrupt(error.to_string()))?;
                sqlx::query(
                    "UPDATE asks SET state = $1, resolution = $2, closed_at_ms = $3 \
                     WHERE key = $4 AND tenant_id = $5 AND state = 'pending'",
                )
                .bind(state.label())
                .bind(resolution)
                .bind(now_ms)
                .bind(ask_key(event.run_id(), ask_id))
                .bind(event.tenant_id().to_string())
                .execute(&mut **tx)
                .await?;
            }
            _ => {}
        }
        if let Some(status) = RunStatus::after(&event.body) {
            let finished = status.is_terminal().then_some(now_ms);
            // A run that has ended keeps its ending: what arrives after it (a stream's
            // last words after the operator stopped it) is kept but moves nothing.
            let moved = sqlx::query(
                "UPDATE runs SET status = $1, finished_at_ms = $2 WHERE id = $3 AND tenant_id = $4 \
                 AND status IN ('pending', 'running')",
            )
            .bind(status.label())
            .bind(finished)
            .bind(event.run_id().to_string())
            .bind(event.tenant_id().to_string())
            .execute(&mut **tx)
            .await?
            .rows_affected()
                > 0;
            if moved && status == RunStatus::Failed {
                close_asks_of_failed_run(tx, event, now_ms).await?;
            }
        }
    }
    Ok(())
}

/// The asks still open when their run fails close with it, as the projection closes
/// them from the same event ([`AskState::closed_by_failed_run`]).
async fn close_asks_of_failed_run(
    tx: &mut sqlx::Transaction<'_, Db>,
    failed: &RunEvent,
    now_ms: i64,
) -> Result<(), StoreError> {
    let state = AskState::closed_by_failed_run();
    let resolution =
        serde_json::to_string(&state).map_err(|error| StoreError::Corrupt(error.to_string()))?;
    sqlx::query(
        "UPDATE asks SET state = $1, resolution = $2, closed_at_ms = $3 \
         WHERE tenant_id = $4 AND run_id = $5 AND state = 'pending'",
    )
    .bind(state.label())
    .bind(resolution)
    .bind(now_ms)
    .bind(failed.tenant_id().to_string())
    .bind(failed.run_id().to_string())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Takes the next `count` sequences of a run; returns (first, thread id).
pub(super) async fn take_sequences(
    tx: &mut sqlx::Transaction<'_, Db>,
    tenant_id: &str,
    run_id: &str,
    count: usize,
    upstream: usize,
) -> Result<(u64, String), StoreError> {
    let row = sqlx::query(
        "UPDATE runs SET last_sequence = last_sequence + $1, upstream_count = upstream_count + $2 \
         WHERE tenant_id = $3 AND id = $4 RETURNING last_sequence, thread_id",
    )
    .bind(to_i64(count as u64))
    .bind(to_i64(upstream as u64))
    .bind(tenant_id)
    .bind(run_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| StoreError::UnknownRun(run_id.to_owned()))?;
    let last = to_u64(row.try_get("last_sequence")?, "last_sequence")?;
    Ok((last + 1 - count as u64, row.try_get("thread_id")?))
}

/// Appends one run's events inside an open transaction.
pub(super) async fn append_in(
    tx: &mut sqlx::Transaction<'_, Db>,
    dialect: Dialect,
    tenant_id: &str,
    run_id: &str,
    upstream: &[UpstreamEvent],
    drafts: Vec<EventDraft>,
    now_ms: i64,
) -> Result<Vec<RunEvent>, StoreError> {
    let (first, thread_id) =
        take_sequences(tx, tenant_id, run_id, drafts.len(), upstream.len()).await?;
    for chunk in upstream.chunks(INSERT_CHUNK) {
        let mut insert = Statement::new(
            dialect,
            "INSERT INTO upstream_events (tenant_id, run_id, position, body, received_at_ms) ",
        );
        insert.push_values(chunk, |row, raw| {
            row.push_bind(tenant_id)
                .push_bind(run_id)
                .push_bind(to_i64(raw.position))
                .push_bind(raw.body.as_str())
                .push_bind(now_ms);
        });
        insert.execute(&mut **tx).await?;
    }
    let run = Arc::new(RunRef::new(tenant_id, &thread_id, run_id));
    let events: Vec<RunEvent> = drafts
        .into_iter()
        .enumerate()
        .map(|(offset, draft)| RunEvent::from_draft(&run, first + offset as u64, draft, now_ms))
        .collect();
    insert_events(tx, dialect, &events, now_ms).await?;
    Ok(events)
}

impl SqlStore {
    pub(super) async fn append(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Vec<RunEvent>, StoreError> {
        if drafts.is_empty() && upstream.is_empty() {
            return Ok(Vec::new());
        }
        let mut tx = self.begin_write().await?;
        let events = append_in(
            &mut tx,
            self.dialect,
            tenant_id,
            run_id,
            upstream,
            drafts,
            now_ms,
        )
        .await?;
        tx.commit().await?;
        Ok(events)
    }

    pub(super) async fn append_while_running(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError> {
        self.append_while(tenant_id, run_id, RunStatus::Running, None, drafts, now_ms)
            .await
    }

    pub(super) async fn give_up_resume(
        &self,
        tenant_id: &str,
        run_id: &str,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError> {
        let failed = Some(RunStatus::Failed);
        self.append_while(
            tenant_id,
            run_id,
            RunStatus::Resumed,
            failed,
            drafts,
            now_ms,
        )
        .await
    }

    /// Appends `drafts` only while the run is `status`, in one transaction with the check,
    /// then moves the run to `then` if given; `None` when it was not in `status`.
    async fn append_while(
        &self,
        tenant_id: &str,
        run_id: &str,
        status: RunStatus,
        then: Option<RunStatus>,
        drafts: Vec<EventDraft>,
        now_ms: i64,
    ) -> Result<Option<Vec<RunEvent>>, StoreError> {
        let mut tx = self.begin_write().await?;
        let lock = match self.dialect {
            Dialect::Postgres => " FOR UPDATE",
            Dialect::Sqlite => "",
        };
        let found: Option<String> = sqlx::query(&format!(
            "SELECT status FROM runs WHERE tenant_id = $1 AND id = $2{lock}"
        ))
        .bind(tenant_id)
        .bind(run_id)
        .fetch_optional(&mut *tx)
        .await?
        .map(|row| row.try_get("status"))
        .transpose()?;
        match found {
            None => return Err(StoreError::UnknownRun(run_id.to_owned())),
            Some(found) if found != status.label() => return Ok(None),
            Some(_) => {}
        }
        let events = append_in(
            &mut tx,
            self.dialect,
            tenant_id,
            run_id,
            &[],
            drafts,
            now_ms,
        )
        .await?;
        if let Some(then) = then {
            let finished = then.is_terminal().then_some(now_ms);
            sqlx::query(
                "UPDATE runs SET status = $1, finished_at_ms = $2 WHERE tenant_id = $3 AND id = $4",
            )
            .bind(then.label())
            .bind(finished)
            .bind(tenant_id)
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Some(events))
    }

    pub(super) async fn append_batch(
        &self,
        batch: Vec<AppendRequest>,
        now_ms: i64,
    ) -> Result<Vec<Vec<RunEvent>>, StoreError> {
        // Few statements whatever the batch size: one UPDATE takes every run's
        // sequences, one multi-row INSERT stores the raw events, one the events.
        let mut totals: Vec<(String, String, u64, u64)> = Vec::new();
        for request in &batch {
            match totals
                .iter_mut()
                .find(|(_, run, _, _)| *run == request.run_id)
            {
                Some(total) => {
                    total.2 += request.drafts.len() as u64;
                    total.3 += request.upstream.len() as u64;
                }
                None => totals.push((
                    request.tenant_id.clone(),
                    request.run_id.clone(),
                    request.drafts.len() as u64,
                    request.upstream.len() as u64,
                )),
            }
        }
        let mut tx = self.begin_write().await?;
        let mut update = Statement::new(
            self.dialect,
            "UPDATE runs SET last_sequence = last_sequence + CASE id",
        );
        for (_, run, events, _) in &totals {
            update
                .push(" WHEN ")
                .push_bind(run.clone())
                .push(" THEN ")
                .push_bind(to_i64(*events));
        }
        update.push(" ELSE 0 END, upstream_count = upstream_count + CASE id");
        for (_, run, _, upstream) in &totals {
            update
                .push(" WHEN ")
                .push_bind(run.clone())
                .push(" THEN ")
                .push_bind(to_i64(*upstream));
        }
        update.push(" ELSE 0 END WHERE id IN (");
        for (index, (_, run, _, _)) in totals.iter().enumerate() {
            if index > 0 {
                update.push(", ");
            }
            update.push_bind(run.clone());
        }
        update.push(") RETURNING id, tenant_id, thread_id, last_sequence");
        let rows = update.fetch_all(&mut *tx).await?;
        let mut next: Vec<(String, String, u64)> = Vec::with_capacity(totals.len());
        for (tenant, run, events, _) in &totals {
            let row = rows
                .iter()
                .find(|row| row.try_get::<String, _>("id").ok().as_deref() == Some(run.as_str()))
                .ok_or_else(|| StoreError::UnknownRun(run.clone()))?;
            if row.try_get::<String, _>("tenant_id")? != *tenant {
                return Err(StoreError::UnknownRun(run.clone()));
            }
            let last = to_u64(row.try_get("last_sequence")?, "last_sequence")?;
            next.push((run.clone(), row.try_get("thread_id")?, last + 1 - events));
        }
        let upstream: Vec<(&AppendRequest, &UpstreamEvent)> = batch
            .iter()
            .flat_map(|request| request.upstream.iter().map(move |raw| (request, raw)))
            .collect();
        for chunk in upstream.chunks(INSERT_CHUNK) {
            let mut insert = Statement::new(
                self.dialect,
                "INSERT INTO upstream_events (tenant_id, run_id, position, body, received_at_ms) ",
            );
            insert.push_values(chunk, |row, (request, raw)| {
                row.push_bind(request.tenant_id.as_str())
                    .push_bind(request.run_id.as_str())
                    .push_bind(to_i64(raw.position))
                    .push_bind(raw.body.as_str())
                    .push_bind(now_ms);
            });
            insert.execute(&mut *tx).await?;
        }
        let mut all: Vec<RunEvent> = Vec::new();
        let mut lengths = Vec::with_capacity(batch.len());
        for request in batch {
            let Some((_, thread_id, sequence)) =
                next.iter_mut().find(|(run, _, _)| *run == request.run_id)
            else {
                return Err(StoreError::UnknownRun(request.run_id));
            };
            let run = Arc::new(RunRef::new(&request.tenant_id, thread_id, &request.run_id));
            lengths.push(request.drafts.len());
            for draft in request.drafts {
                all.push(RunEvent::from_draft(&run, *sequence, draft, now_ms));
                *sequence += 1;
            }
        }
        insert_events(&mut tx, self.dialect, &all, now_ms).await?;
        tx.commit().await?;
        let mut rest = all.into_iter();
        Ok(lengths
            .into_iter()
            .map(|length| rest.by_ref().take(length).collect())
            .collect())
    }

    pub(super) async fn events(
        &self,
        tenant_id: &str,
        run_id: &str,
        after: u64,
        before: Option<u64>,
    ) -> Result<Vec<RunEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT event FROM events WHERE tenant_id = $1 AND run_id = $2 \
             AND sequence > $3 AND sequence < $4 ORDER BY sequence",
        )
        .bind(tenant_id)
        .bind(run_id)
        .bind(to_i64(after))
        .bind(before.map_or(i64::MAX, to_i64))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| event_from_text(&row.try_get::<String, _>("event")?))
            .collect()
    }

    pub(super) async fn upstream_events(
        &self,
        tenant_id: &str,
        run_id: &str,
        first: Option<u32>,
    ) -> Result<Vec<UpstreamEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT position, body FROM upstream_events WHERE tenant_id = $1 AND run_id = $2 \
             ORDER BY position LIMIT $3",
        )
        .bind(tenant_id)
        .bind(run_id)
        .bind(first.map_or(i64::MAX, i64::from))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| upstream_from(row.try_get("position")?, row.try_get("body")?))
            .collect()
    }
}
