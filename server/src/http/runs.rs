//! `/api/v1/runs`: a run with its projection, its events live from any point, Stop and
//! Retry.

use std::sync::Arc;

use app::error::ApiError;
use app::model::Role::Operator;
use app::projection::{RunView, ViewPolicy};
use app::protocol::status::RunStatus;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::{EventsQuery, Query, UrlPath};
use super::context::Context;
use super::error::HttpError;
use super::limits::StreamOpening;
use super::operations::{Answer, Operation, schema};
use crate::live;
use crate::runs::{RunOptions, Runs};
use crate::store::RunRecord;

pub const OPERATIONS: &[Operation] = &[
    Operation::get("/api/v1/runs/{run_id}", "a run and its projection")
        .query(schema::<ViewQuery>)
        .answers(200, schema::<RunWithView>)
        .by(|verb| on(verb, get_run)),
    Operation::get(
        "/api/v1/runs/{run_id}/events",
        "a run's events live, resuming after Last-Event-ID or ?after=",
    )
    .query(schema::<EventsQuery>)
    .answer(Answer::Events)
    .by(|verb| on(verb, run_events)),
    Operation::post("/api/v1/runs/{run_id}/cancel", "stop a run")
        .needs(Operator)
        .records("run.cancel")
        .answers(200, schema::<RunStarted>)
        .by(|verb| on(verb, cancel_run)),
    Operation::post(
        "/api/v1/runs/{run_id}/retry",
        "send the run's turn again: a new run in its place",
    )
    .needs(Operator)
    .records("run.retry")
    .answers(202, schema::<RunStarted>)
    .by(|verb| on(verb, retry_run)),
];

type ApiResult = Result<Response, HttpError>;

/// A run as the API shows it.
#[derive(Serialize, JsonSchema)]
pub struct RunJson {
    pub id: String,
    pub thread_id: String,
    pub agent: String,
    pub status: RunStatus,
    /// The sequence of its last stored event.
    pub last_sequence: u64,
    pub created_at_ms: i64,
    pub finished_at_ms: Option<i64>,
}

impl From<&RunRecord> for RunJson {
    fn from(run: &RunRecord) -> Self {
        Self {
            id: run.id.clone(),
            thread_id: run.thread_id.clone(),
            agent: run.agent.clone(),
            status: run.status,
            last_sequence: run.last_sequence,
            created_at_ms: run.created_at_ms,
            finished_at_ms: run.finished_at_ms,
        }
    }
}

/// `{"run": …}`: what starting, retrying and stopping a run answer.
#[derive(Serialize, JsonSchema)]
pub struct RunStarted {
    pub run: RunJson,
}

impl From<&RunRecord> for RunStarted {
    fn from(run: &RunRecord) -> Self {
        Self {
            run: RunJson::from(run),
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct RunWithView {
    pub run: RunJson,
    pub view: RunView,
}

#[derive(Deserialize, JsonSchema)]
pub struct ViewQuery {
    /// Include the agent's reasoning in the view.
    #[serde(default)]
    pub show_reasoning: bool,
}

async fn find_run(runs: &Runs, tenant: &str, run_id: &str) -> Result<RunRecord, HttpError> {
    runs.store()
        .get_run(tenant, run_id)
        .await?
        .ok_or_else(|| HttpError(ApiError::NotFound(format!("run {run_id:?} does not exist"))))
}

async fn get_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
    Query(query): Query<ViewQuery>,
) -> ApiResult {
    let tenant = context.tenant;
    let run = find_run(&runs, &tenant, &run_id).await?;
    let events = runs.store().events(&tenant, &run_id, 0, None).await?;
    let view = RunView::from_events(
        ViewPolicy {
            show_reasoning: query.show_reasoning,
        },
        &events,
    );
    Ok(axum::Json(RunWithView {
        run: RunJson::from(&run),
        view,
    })
    .into_response())
}

async fn run_events(
    State(runs): State<Arc<Runs>>,
    UrlPath(run_id): UrlPath<String>,
    opening: StreamOpening,
) -> ApiResult {
    find_run(&runs, &opening.tenant, &run_id).await?;
    Ok(live::event_stream(
        runs.store().clone(),
        runs.live().clone(),
        opening.tenant,
        run_id,
        opening.after,
        opening.access_ends,
        opening.permit,
    )
    .into_response())
}

async fn cancel_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
) -> ApiResult {
    let run = runs.cancel(&context.tenant, &run_id).await?;
    Ok(axum::Json(RunStarted::from(&run)).into_response())
}

/// Sends the thread's last message again in place of the turn the run belongs to.
async fn retry_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
) -> ApiResult {
    let run = runs
        .retry(&context.tenant, &run_id, RunOptions::default())
        .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(RunStarted::from(&run))).into_response())
}
