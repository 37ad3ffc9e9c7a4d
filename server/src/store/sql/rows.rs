//! Reading rows into records, and the conversions every aggregate's SQL shares.

use app::model::ThreadSummary;
use app::protocol::ask::{Ask, AskState};
use app::protocol::channel::RunEvent;
use app::protocol::status::RunStatus;
use serde_json::Value;

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::store::{AskRecord, RunRecord, StoreError, UpstreamEvent};

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
    pub project_id: Option<String>,
    pub archived_at_ms: Option<i64>,
}

impl From<ThreadRow> for ThreadSummary {
    fn from(row: ThreadRow) -> Self {
        ThreadSummary {
            id: row.id,
            tenant_id: row.tenant_id,
            title: row.title,
            created_at_ms: row.created_at_ms,
            project_id: row.project_id,
            archived_at_ms: row.archived_at_ms,
            project_name: None,
            active_at_ms: None,
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

/// A `LIKE` pattern (with `ESCAPE '\'`) for text containing `words`, lower-cased.
pub fn contains_pattern(words: &str) -> String {
    let escaped = words
        .trim()
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

pub fn json_text(value: &Value) -> String {
    value.to_string()
}

/// A value as a JSON column keeps it.
pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|error| StoreError::Corrupt(error.to_string()))
}

pub const THREAD_COLUMNS: &str = "id, tenant_id, title, created_at_ms, project_id, archived_at_ms";
pub const RUN_COLUMNS: &str = "id, tenant_id, thread_id, agent, status, input, last_sequence, \
                               upstream_count, created_at_ms, finished_at_ms";
pub const ASK_COLUMNS: &str = "key, tenant_id, thread_id, run_id, state, ask, resolution, \
                               answered_by, opened_sequence, created_at_ms, closed_at_ms";

pub(super) fn thread_row(row: &AnyRow) -> Result<ThreadSummary, sqlx::Error> {
    Ok(ThreadRow {
        id: row.try_get("id")?,
        tenant_id: row.try_get("tenant_id")?,
        title: row.try_get("title")?,
        created_at_ms: row.try_get("created_at_ms")?,
        project_id: row.try_get("project_id")?,
        archived_at_ms: row.try_get("archived_at_ms")?,
    }
    .into())
}

pub(super) fn run_row(row: &AnyRow) -> Result<RunRecord, StoreError> {
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

pub(super) fn ask_row(row: &AnyRow) -> Result<AskRecord, StoreError> {
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

/// An enum that serializes to one word, as a column keeps it.
pub fn word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(word)) => word,
        _ => String::new(),
    }
}

/// The enum a column's word names.
pub fn from_word<T: serde::de::DeserializeOwned>(
    text: String,
    what: &str,
) -> Result<T, StoreError> {
    serde_json::from_value(Value::String(text))
        .map_err(|error| StoreError::Corrupt(format!("{what}: {error}")))
}
