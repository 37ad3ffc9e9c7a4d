//! The store's SQL, written once for SQLite and PostgreSQL alike (`$N` placeholders,
//! `RETURNING`, `ON CONFLICT`); `impl_store!` instantiates it for each backend.

use app::model::ThreadSummary;
use app::protocol::ask::{Ask, AskState};
use app::protocol::channel::RunEvent;
use app::protocol::status::RunStatus;
use serde_json::Value;

use super::{AskRecord, RunRecord, StoreError, UpstreamEvent};

/// Rows per multi-row INSERT: well under SQLite's bound-variable limit.
pub const INSERT_CHUNK: usize = 400;

pub fn to_u64(value: i64, what: &str) -> Result<u64, StoreError> {
    u64::try_from(value).map_err(|_| StoreError::Corrupt(format!("{what} is negative: {value}")))
}

pub fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|error| StoreError::Corrupt(format!("{what}: {error}")))
}

/// The state an ask row describes.
pub fn ask_state(state: &str, resolution: Option<&str>) -> Result<AskState, StoreError> {
    match (state, resolution) {
        ("pending", _) => Ok(AskState::Pending),
        (_, Some(resolution)) => parse_json(resolution, "ask resolution"),
        (other, None) => Err(StoreError::Corrupt(format!(
            "ask in state {other:?} has no resolution"
        ))),
    }
}

pub struct ThreadRow {
    pub id: String,
    pub tenant_id: String,
    pub title: String,
    pub created_at_ms: i64,
}

impl From<ThreadRow> for ThreadSummary {
    fn from(row: ThreadRow) -> Self {
        ThreadSummary {
            id: row.id,
            tenant_id: row.tenant_id,
            title: row.title,
            created_at_ms: row.created_at_ms,
        }
    }
}

pub struct RunRow {
    pub id: String,
    pub tenant_id: String,
    pub thread_id: String,
    pub agent: String,
    pub status: String,
    pub input: String,
    pub last_sequence: i64,
    pub upstream_count: i64,
    pub created_at_ms: i64,
    pub finished_at_ms: Option<i64>,
}

impl TryFrom<RunRow> for RunRecord {
    type Error = StoreError;

    fn try_from(row: RunRow) -> Result<Self, StoreError> {
        let status = RunStatus::from_label(&row.status).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "run {:?} has unknown status {:?}",
                row.id, row.status
            ))
        })?;
        Ok(RunRecord {
            status,
            input: parse_json(&row.input, "run input")?,
            last_sequence: to_u64(row.last_sequence, "last_sequence")?,
            upstream_count: to_u64(row.upstream_count, "upstream_count")?,
            id: row.id,
            tenant_id: row.tenant_id,
            thread_id: row.thread_id,
            agent: row.agent,
            created_at_ms: row.created_at_ms,
            finished_at_ms: row.finished_at_ms,
        })
    }
}

pub struct AskRow {
    pub key: String,
    pub tenant_id: String,
    pub thread_id: String,
    pub run_id: String,
    pub state: String,
    pub ask: String,
    pub resolution: Option<String>,
    pub answered_by: Option<String>,
    pub opened_sequence: i64,
    pub created_at_ms: i64,
    pub closed_at_ms: Option<i64>,
}

impl TryFrom<AskRow> for AskRecord {
    type Error = StoreError;

    fn try_from(row: AskRow) -> Result<Self, StoreError> {
        let mut ask: Ask = parse_json(&row.ask, "ask")?;
        ask.state = ask_state(&row.state, row.resolution.as_deref())?;
        Ok(AskRecord {
            key: row.key,
            tenant_id: row.tenant_id,
            thread_id: row.thread_id,
            run_id: row.run_id,
            ask,
            answered_by: row.answered_by,
            opened_sequence: to_u64(row.opened_sequence, "opened_sequence")?,
            created_at_ms: row.created_at_ms,
            closed_at_ms: row.closed_at_ms,
        })
    }
}

pub fn event_from_text(text: &str) -> Result<RunEvent, StoreError> {
    parse_json(text, "event")
}

pub fn upstream_from(position: i64, body: String) -> Result<UpstreamEvent, StoreError> {
    Ok(UpstreamEvent {
        position: to_u64(position, "upstream position")?,
        body,
    })
}

pub fn json_text(value: &Value) -> String {
    value.to_string()
}

pub const THREAD_COLUMNS: &str = "id, tenant_id, title, created_at_ms";
pub const RUN_COLUMNS: &str = "id, tenant_id, thread_id, agent, status, input, last_sequence, \
                               upstream_count, created_at_ms, finished_at_ms";
pub const ASK_COLUMNS: &str = "key, tenant_id, thread_id, run_id, state, ask, resolution, \
                               answered_by, opened_sequence, created_at_ms, closed_at_ms";

/// Implements [`super::Store`] for a struct with a `pool: sqlx::Pool<$db>` field.
macro_rules! impl_store {
    ($store:ident, $db:ty) => {
        mod store_impl {
            use std::sync::Arc;

            use app::model::ThreadSummary;
            use app::protocol::ask::AskState;
            use app::protocol::channel::{EventBody, EventDraft, RunEvent, RunRef};
            use serde_json::Value;
            use sqlx::Row;

            use super::super::sql::*;
            use super::super::{
                AppendRequest, AskRecord, DeliveryOutcome, DeliveryRecord, NewRun, Resolution, RunRecord, Store,
                StoreError, UpstreamEvent, ask_key,
            };
            use app::protocol::status::RunStatus;

            type Db = $db;
            type DbRow = <Db as sqlx::Database>::Row;

            fn thread_row(row: &DbRow) -> Result<ThreadSummary, sqlx::Error> {
                Ok(ThreadRow {
                    id: row.try_get("id")?,
                    tenant_id: row.try_get("tenant_id")?,
                    title: row.try_get("title")?,
                    created_at_ms: row.try_get("created_at_ms")?,
                }
                .into())
            }

            fn run_row(row: &DbRow) -> Result<RunRecord, StoreError> {
                RunRow {
                    id: row.try_get("id")?,
                    tenant_id: row.try_get("tenant_id")?,
                    thread_id: row.try_get("thread_id")?,
                    agent: row.try_get("agent")?,
                    status: row.try_get("status")?,
                    input: row.try_get("input")?,
                    last_sequence: row.try_get("last_sequence")?,
                    upstream_count: row.try_get("upstream_count")?,
                    created_at_ms: row.try_get("created_at_ms")?,
                    finished_at_ms: row.try_get("finished_at_ms")?,
                }
                .try_into()
            }

            fn ask_row(row: &DbRow) -> Result<AskRecord, StoreError> {
                AskRow {
                    key: row.try_get("key")?,
                    tenant_id: row.try_get("tenant_id")?,
                    thread_id: row.try_get("thread_id")?,
                    run_id: row.try_get("run_id")?,
                    state: row.try_get("state")?,
                    ask: row.try_get("ask")?,
                    resolution: row.try_get("resolution")?,
                    answered_by: row.try_get("answered_by")?,
                    opened_sequence: row.try_get("opened_sequence")?,
                    created_at_ms: row.try_get("created_at_ms")?,
                    closed_at_ms: row.try_get("closed_at_ms")?,
                }
                .try_into()
            }

            /// Inserts events (and keeps the ask table in step) inside a transaction.
            async fn insert_events(
                tx: &mut sqlx::Transaction<'_, Db>,
                events: &[RunEvent],
                now_ms: i64,
            ) -> Result<(), StoreError> {
                for chunk in events.chunks(INSERT_CHUNK) {
                    let mut insert = sqlx::QueryBuilder::<Db>::new(
                        "INSERT INTO events (tenant_id, run_id, sequence, channel, kind, event, upstream, ts) ",
                    );
                    let mut texts = Vec::with_capacity(chunk.len());
                    for event in chunk {
                        texts.push(
                            serde_json::to_string(event)
                                .map_err(|error| StoreError::Corrupt(error.to_string()))?,
                        );
                    }
                    insert.push_values(chunk.iter().zip(texts), |mut row, (event, text)| {
                        row.push_bind(event.tenant_id().to_string())
                            .push_bind(event.run_id().to_string())
                            .push_bind(to_i64(event.sequence))
                            .push_bind(event.channel.as_str())
                            .push_bind(event.kind())
                            .push_bind(text)
                            .push_bind(event.upstream.map(to_i64))
                            .push_bind(event.ts);
                    });
                    insert.build().execute(&mut **tx).await?;
                }
                for event in events {
                    match &event.body {
                        EventBody::AskOpened { ask } => {
                            let text = serde_json::to_string(&**ask)
                                .map_err(|error| StoreError::Corrupt(error.to_string()))?;
                            sqlx::query(
                                "INSERT INTO asks (key, tenant_id, thread_id, run_id, ask_id, kind, state, ask, \
                                 opened_sequence, created_at_ms) \
                                 VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9) \
                                 ON CONFLICT (key) DO UPDATE SET ask = excluded.ask, \
                                 opened_sequence = excluded.opened_sequence \
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
                        sqlx::query(
                            "UPDATE runs SET status = $1, finished_at_ms = $2 WHERE id = $3 AND tenant_id = $4",
                        )
                        .bind(status.label())
                        .bind(finished)
                        .bind(event.run_id().to_string())
                        .bind(event.tenant_id().to_string())
                        .execute(&mut **tx)
                        .await?;
                    }
                }
                Ok(())
            }

            /// Takes the next `count` sequences of a run; returns (first, thread id).
            async fn take_sequences(
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
            async fn append_in(
                tx: &mut sqlx::Transaction<'_, Db>,
                tenant_id: &str,
                run_id: &str,
                upstream: &[UpstreamEvent],
                drafts: Vec<EventDraft>,
                now_ms: i64,
            ) -> Result<Vec<RunEvent>, StoreError> {
                let (first, thread_id) =
                    take_sequences(tx, tenant_id, run_id, drafts.len(), upstream.len()).await?;
                for chunk in upstream.chunks(INSERT_CHUNK) {
                    let mut insert = sqlx::QueryBuilder::<Db>::new(
                        "INSERT INTO upstream_events (tenant_id, run_id, position, body, received_at_ms) ",
                    );
                    insert.push_values(chunk, |mut row, raw| {
                        row.push_bind(tenant_id)
                            .push_bind(run_id)
                            .push_bind(to_i64(raw.position))
                            .push_bind(raw.body.as_str())
                            .push_bind(now_ms);
                    });
                    insert.build().execute(&mut **tx).await?;
                }
                let run = Arc::new(RunRef::new(tenant_id, &thread_id, run_id));
                let events: Vec<RunEvent> = drafts
                    .into_iter()
                    .enumerate()
                    .map(|(offset, draft)| RunEvent::from_draft(&run, first + offset as u64, draft, now_ms))
                    .collect();
                insert_events(tx, &events, now_ms).await?;
                Ok(events)
            }

            #[async_trait::async_trait]
            impl Store for super::$store {
                async fn list_threads(&self, tenant_id: &str) -> Result<Vec<ThreadSummary>, StoreError> {
                    let rows = sqlx::query(&format!(
                        "SELECT {THREAD_COLUMNS} FROM threads WHERE tenant_id = $1 \
                         ORDER BY created_at_ms DESC, seq DESC"
                    ))
                    .bind(tenant_id)
                    .fetch_all(&self.pool)
                    .await?;
                    Ok(rows.iter().map(thread_row).collect::<Result<_, _>>()?)
                }

                async fn list_tenants(&self) -> Result<Vec<String>, StoreError> {
                    let rows = sqlx::query("SELECT id FROM tenants ORDER BY id")
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(rows
                        .iter()
                        .map(|row| row.try_get::<String, _>("id"))
                        .collect::<Result<_, _>>()?)
                }

                async fn create_tenant(&self, tenant_id: &str, created_at_ms: i64) -> Result<bool, StoreError> {
                    let result = sqlx::query(
                        "INSERT INTO tenants (id, name, created_at_ms) VALUES ($1, $1, $2) \
                         ON CONFLICT (id) DO NOTHING",
                    )
                    .bind(tenant_id)
                    .bind(created_at_ms)
                    .execute(&self.pool)
                    .await?;
                    Ok(result.rows_affected() == 1)
                }

                async fn tenant_exists(&self, tenant_id: &str) -> Result<bool, StoreError> {
                    let row = sqlx::query("SELECT 1 AS found FROM tenants WHERE id = $1")
                        .bind(tenant_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(row.is_some())
                }

                async fn create_thread(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                    created_at_ms: i64,
                ) -> Result<ThreadSummary, StoreError> {
                    let row = sqlx::query(&format!(
                        "INSERT INTO threads (id, tenant_id, title, created_at_ms) \
                         VALUES ($1, $2, 'Thread ' || (SELECT COUNT(*) + 1 FROM threads WHERE tenant_id = $2), $3) \
                         RETURNING {THREAD_COLUMNS}"
                    ))
                    .bind(thread_id)
                    .bind(tenant_id)
                    .bind(created_at_ms)
                    .fetch_one(&self.pool)
                    .await?;
                    Ok(thread_row(&row)?)
                }

                async fn get_thread(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                ) -> Result<Option<ThreadSummary>, StoreError> {
                    let row = sqlx::query(&format!(
                        "SELECT {THREAD_COLUMNS} FROM threads WHERE tenant_id = $1 AND id = $2"
                    ))
                    .bind(tenant_id)
                    .bind(thread_id)
                    .fetch_optional(&self.pool)
                    .await?;
                    Ok(row.as_ref().map(thread_row).transpose()?)
                }

                async fn rename_thread(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                    title: &str,
                ) -> Result<Option<ThreadSummary>, StoreError> {
                    let row = sqlx::query(&format!(
                        "UPDATE threads SET title = $1 WHERE tenant_id = $2 AND id = $3 RETURNING {THREAD_COLUMNS}"
                    ))
                    .bind(title)
                    .bind(tenant_id)
                    .bind(thread_id)
                    .fetch_optional(&self.pool)
                    .await?;
                    Ok(row.as_ref().map(thread_row).transpose()?)
                }

                async fn thread_agent(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                ) -> Result<Option<String>, StoreError> {
                    let row = sqlx::query("SELECT agent FROM threads WHERE tenant_id = $1 AND id = $2")
                        .bind(tenant_id)
                        .bind(thread_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(match row {
                        Some(row) => row.try_get("agent")?,
                        None => None,
                    })
                }

                async fn bind_thread_agent(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                    agent: &str,
                ) -> Result<(), StoreError> {
                    sqlx::query("UPDATE threads SET agent = $1 WHERE tenant_id = $2 AND id = $3")
                        .bind(agent)
                        .bind(tenant_id)
                        .bind(thread_id)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                }

                async fn thread_session(&self, tenant_id: &str, thread_id: &str) -> Result<Option<String>, StoreError> {
                    let row = sqlx::query("SELECT agent_session FROM threads WHERE tenant_id = $1 AND id = $2")
                        .bind(tenant_id)
                        .bind(thread_id)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(match row {
                        Some(row) => row.try_get("agent_session")?,
                        None => None,
                    })
                }

                async fn set_thread_session(&self, tenant_id: &str, thread_id: &str, session: &str) -> Result<(), StoreError> {
                    sqlx::query("UPDATE threads SET agent_session = $1 WHERE tenant_id = $2 AND id = $3")
                        .bind(session)
                        .bind(tenant_id)
                        .bind(thread_id)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                }

                async fn create_run(&self, run: &NewRun) -> Result<RunRecord, StoreError> {
                    let row = sqlx::query(&format!(
                        "INSERT INTO runs (id, tenant_id, thread_id, agent, status, input, created_at_ms) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {RUN_COLUMNS}"
                    ))
                    .bind(&run.id)
                    .bind(&run.tenant_id)
                    .bind(&run.thread_id)
                    .bind(&run.agent)
                    .bind(RunStatus::Running.label())
                    .bind(json_text(&run.input))
                    .bind(run.created_at_ms)
                    .fetch_one(&self.pool)
                    .await?;
                    run_row(&row)
                }

                async fn get_run(
                    &self,
                    tenant_id: &str,
                    run_id: &str,
                ) -> Result<Option<RunRecord>, StoreError> {
                    let row = sqlx::query(&format!(
                        "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND id = $2"
                    ))
                    .bind(tenant_id)
                    .bind(run_id)
                    .fetch_optional(&self.pool)
                    .await?;
                    row.as_ref().map(run_row).transpose()
                }

                async fn list_runs(
                    &self,
                    tenant_id: &str,
                    thread_id: &str,
                ) -> Result<Vec<RunRecord>, StoreError> {
                    let rows = sqlx::query(&format!(
                        "SELECT {RUN_COLUMNS} FROM runs WHERE tenant_id = $1 AND thread_id = $2 \
                         ORDER BY created_at_ms, id"
                    ))
                    .bind(tenant_id)
                    .bind(thread_id)
                    .fetch_all(&self.pool)
                    .await?;
                    rows.iter().map(run_row).collect()
                }

                async fn running_runs(&self) -> Result<Vec<RunRecord>, StoreError> {
                    let rows = sqlx::query(&format!(
                        "SELECT {RUN_COLUMNS} FROM runs WHERE status = $1 ORDER BY created_at_ms"
                    ))
                    .bind(RunStatus::Running.label())
                    .fetch_all(&self.pool)
                    .await?;
                    rows.iter().map(run_row).collect()
                }

                async fn append(
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
                    let mut tx = self.pool.begin().await?;
                    let events = append_in(&mut tx, tenant_id, run_id, upstream, drafts, now_ms).await?;
                    tx.commit().await?;
                    Ok(events)
                }

                async fn append_batch(
                    &self,
                    batch: Vec<AppendRequest>,
                    now_ms: i64,
                ) -> Result<Vec<Vec<RunEvent>>, StoreError> {
                    // Few statements whatever the batch size: one UPDATE takes every run's
                    // sequences, one multi-row INSERT stores the raw events, one the events.
                    let mut totals: Vec<(String, String, u64, u64)> = Vec::new();
                    for request in &batch {
                        match totals.iter_mut().find(|(_, run, _, _)| *run == request.run_id) {
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
                    let mut tx = self.pool.begin().await?;
                    let mut update = sqlx::QueryBuilder::<Db>::new("UPDATE runs SET last_sequence = last_sequence + CASE id");
                    for (_, run, events, _) in &totals {
                        update.push(" WHEN ").push_bind(run.clone()).push(" THEN ").push_bind(to_i64(*events));
                    }
                    update.push(" ELSE 0 END, upstream_count = upstream_count + CASE id");
                    for (_, run, _, upstream) in &totals {
                        update.push(" WHEN ").push_bind(run.clone()).push(" THEN ").push_bind(to_i64(*upstream));
                    }
                    update.push(" ELSE 0 END WHERE id IN (");
                    let mut ids = update.separated(", ");
                    for (_, run, _, _) in &totals {
                        ids.push_bind(run.clone());
                    }
                    update.push(") RETURNING id, tenant_id, thread_id, last_sequence");
                    let rows = update.build().fetch_all(&mut *tx).await?;
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
                        let mut insert = sqlx::QueryBuilder::<Db>::new(
                            "INSERT INTO upstream_events (tenant_id, run_id, position, body, received_at_ms) ",
                        );
                        insert.push_values(chunk, |mut row, (request, raw)| {
                            row.push_bind(request.tenant_id.as_str())
                                .push_bind(request.run_id.as_str())
                                .push_bind(to_i64(raw.position))
                                .push_bind(raw.body.as_str())
                                .push_bind(now_ms);
                        });
                        insert.build().execute(&mut *tx).await?;
                    }
                    let mut all: Vec<RunEvent> = Vec::new();
                    let mut lengths = Vec::with_capacity(batch.len());
                    for request in batch {
                        let Some((_, thread_id, sequence)) = next.iter_mut().find(|(run, _, _)| *run == request.run_id) else {
                            return Err(StoreError::UnknownRun(request.run_id));
                        };
                        let run = Arc::new(RunRef::new(&request.tenant_id, thread_id, &request.run_id));
                        lengths.push(request.drafts.len());
                        for draft in request.drafts {
                            all.push(RunEvent::from_draft(&run, *sequence, draft, now_ms));
                            *sequence += 1;
                        }
                    }
                    insert_events(&mut tx, &all, now_ms).await?;
                    tx.commit().await?;
                    let mut rest = all.into_iter();
                    Ok(lengths.into_iter().map(|length| rest.by_ref().take(length).collect()).collect())
                }

                async fn events(
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

                async fn upstream_events(
                    &self,
                    tenant_id: &str,
                    run_id: &str,
                ) -> Result<Vec<UpstreamEvent>, StoreError> {
                    let rows = sqlx::query(
                        "SELECT position, body FROM upstream_events WHERE tenant_id = $1 AND run_id = $2 \
                         ORDER BY position",
                    )
                    .bind(tenant_id)
                    .bind(run_id)
                    .fetch_all(&self.pool)
                    .await?;
                    rows.iter()
                        .map(|row| upstream_from(row.try_get("position")?, row.try_get("body")?))
                        .collect()
                }

                async fn list_asks(
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

                async fn get_ask(&self, tenant_id: &str, key: &str) -> Result<Option<AskRecord>, StoreError> {
                    let row = sqlx::query(&format!(
                        "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND key = $2"
                    ))
                    .bind(tenant_id)
                    .bind(key)
                    .fetch_optional(&self.pool)
                    .await?;
                    row.as_ref().map(ask_row).transpose()
                }

                async fn run_asks(&self, tenant_id: &str, run_id: &str) -> Result<Vec<AskRecord>, StoreError> {
                    let rows = sqlx::query(&format!(
                        "SELECT {ASK_COLUMNS} FROM asks WHERE tenant_id = $1 AND run_id = $2 ORDER BY opened_sequence"
                    ))
                    .bind(tenant_id)
                    .bind(run_id)
                    .fetch_all(&self.pool)
                    .await?;
                    rows.iter().map(ask_row).collect()
                }

                async fn claim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError> {
                    let done = sqlx::query(
                        "UPDATE runs SET status = $1 WHERE tenant_id = $2 AND id = $3 AND status = $4",
                    )
                    .bind(RunStatus::Resumed.label())
                    .bind(tenant_id)
                    .bind(run_id)
                    .bind(RunStatus::Interrupted.label())
                    .execute(&self.pool)
                    .await?;
                    Ok(done.rows_affected() == 1)
                }

                async fn unclaim_resume(&self, tenant_id: &str, run_id: &str) -> Result<bool, StoreError> {
                    let done = sqlx::query(
                        "UPDATE runs SET status = $1 WHERE tenant_id = $2 AND id = $3 AND status = $4",
                    )
                    .bind(RunStatus::Interrupted.label())
                    .bind(tenant_id)
                    .bind(run_id)
                    .bind(RunStatus::Resumed.label())
                    .execute(&self.pool)
                    .await?;
                    Ok(done.rows_affected() == 1)
                }

                async fn pending_deliveries(&self) -> Result<Vec<DeliveryRecord>, StoreError> {
                    let rows = sqlx::query(
                        "SELECT ask_key, tenant_id, run_id, secret, created_at_ms FROM deliveries \
                         WHERE state = 'pending' ORDER BY created_at_ms, ask_key",
                    )
                    .fetch_all(&self.pool)
                    .await?;
                    rows.iter()
                        .map(|row| {
                            Ok(DeliveryRecord {
                                ask_key: row.try_get("ask_key")?,
                                tenant_id: row.try_get("tenant_id")?,
                                run_id: row.try_get("run_id")?,
                                secret: row.try_get("secret")?,
                                created_at_ms: row.try_get("created_at_ms")?,
                            })
                        })
                        .collect()
                }

                async fn settle_delivery(
                    &self,
                    tenant_id: &str,
                    ask_key: &str,
                    outcome: DeliveryOutcome,
                    note: Option<&str>,
                    now_ms: i64,
                ) -> Result<(), StoreError> {
                    sqlx::query(
                        "UPDATE deliveries SET state = $1, note = $2, settled_at_ms = $3 \
                         WHERE tenant_id = $4 AND ask_key = $5 AND state = 'pending'",
                    )
                    .bind(outcome.label())
                    .bind(note)
                    .bind(now_ms)
                    .bind(tenant_id)
                    .bind(ask_key)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                }

                async fn close_ask(
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
                    let mut tx = self.pool.begin().await?;
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
                    .bind(secret)
                    .bind(now_ms)
                    .execute(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    Ok(Resolution::Won(Box::new(event)))
                }

                async fn record_refused_receipt(
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
        }
    };
}

pub(crate) use impl_store;
