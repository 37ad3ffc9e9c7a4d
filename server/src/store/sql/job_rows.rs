//! Reading job rows, and the filters the job listings and bulk actions share.

use app::model::jobs::{Job, JobCounts, JobFilter, JobProgress};
use serde_json::Value;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::rows::{parse_json, to_u64};
use super::statement::Statement;
use crate::store::StoreError;
use crate::store::jobs::{Selection, state_of};

pub(super) const COLUMNS: &str = "id, tenant_id, kind, payload, state, run_at_ms, attempts, max_attempts, \
    lease_owner, lease_until_ms, heartbeat_at_ms, progress, result, error, idempotency_key, \
    created_by, cancel_requested_at_ms, created_at_ms, updated_at_ms, finished_at_ms, agent, \
    project_id";

/// The states of a job that waits to be claimed.
pub(super) const WAITING: &str = "('scheduled', 'available', 'retryable')";

pub(super) fn job_of(row: &AnyRow) -> Result<(String, Job), StoreError> {
    let count = |name: &str| -> Result<u32, StoreError> {
        let value: i64 = row.try_get(name)?;
        u32::try_from(value).map_err(|_| StoreError::Corrupt(format!("job {name} {value}")))
    };
    let json = |name: &str| -> Result<Option<Value>, StoreError> {
        let text: Option<String> = row.try_get(name)?;
        text.map(|text| parse_json(&text, name)).transpose()
    };
    let progress: Option<String> = row.try_get("progress")?;
    let state: String = row.try_get("state")?;
    Ok((
        row.try_get("tenant_id")?,
        Job {
            id: row.try_get("id")?,
            kind: row.try_get("kind")?,
            payload: json("payload")?.unwrap_or(Value::Null),
            state: state_of(&state)?,
            run_at_ms: row.try_get("run_at_ms")?,
            attempts: count("attempts")?,
            max_attempts: count("max_attempts")?,
            lease_owner: row.try_get("lease_owner")?,
            lease_until_ms: row.try_get("lease_until_ms")?,
            heartbeat_at_ms: row.try_get("heartbeat_at_ms")?,
            progress: progress
                .map(|text| parse_json::<JobProgress>(&text, "job progress"))
                .transpose()?,
            result: json("result")?,
            error: row.try_get("error")?,
            idempotency_key: row.try_get("idempotency_key")?,
            created_by: row.try_get("created_by")?,
            cancel_requested_at_ms: row.try_get("cancel_requested_at_ms")?,
            created_at_ms: row.try_get("created_at_ms")?,
            updated_at_ms: row.try_get("updated_at_ms")?,
            finished_at_ms: row.try_get("finished_at_ms")?,
            agent: row.try_get("agent")?,
            project_id: row.try_get("project_id")?,
        },
    ))
}

/// `filter` as conditions after a `WHERE tenant_id = …`; the state's unless `with_state`
/// is false.
pub(super) fn push_filter(statement: &mut Statement<'_>, filter: &JobFilter, with_state: bool) {
    if let (Some(state), true) = (filter.state, with_state) {
        statement.push(" AND state = ").push_bind(state.as_str());
    }
    if let Some(kind) = filter.kind.as_deref().filter(|kind| !kind.is_empty()) {
        statement.push(" AND kind = ").push_bind(kind.to_owned());
    }
    if let Some(agent) = filter.agent.as_deref().filter(|agent| !agent.is_empty()) {
        statement.push(" AND agent = ").push_bind(agent.to_owned());
    }
    if let Some(project) = filter.project_id.as_deref().filter(|id| !id.is_empty()) {
        statement
            .push(" AND project_id = ")
            .push_bind(project.to_owned());
    }
    let text = filter.text.as_deref().unwrap_or_default();
    for word in text.split_whitespace() {
        let pattern = format!("%{}%", escape_like(&word.to_lowercase()));
        statement.push(" AND LOWER(kind || ' ' || created_by || ' ' || COALESCE(error, '') || ' ' || payload) LIKE ")
            .push_bind(pattern)
            .push(" ESCAPE '\\'");
    }
}

fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub(super) fn push_selection(statement: &mut Statement<'_>, selection: &Selection) {
    match selection {
        Selection::One(id) => {
            statement.push(" AND id = ").push_bind(id.clone());
        }
        Selection::Matching(filter) => push_filter(statement, filter, true),
    }
}

pub(super) fn counts_of(rows: Vec<AnyRow>) -> Result<JobCounts, StoreError> {
    let mut counts = JobCounts::default();
    for row in rows {
        let state: String = row.try_get("state")?;
        let n: i64 = row.try_get("n")?;
        counts.add(state_of(&state)?, to_u64(n, "job count")?);
    }
    Ok(counts)
}
