//! `/api/v1/jobs`: the tenant's background jobs, filtered and paged with the count in each
//! state; one job with its attempts and log; cancel and retry of one job or of every job
//! matching a filter.

use std::sync::Arc;

use app::api::service::JobsService;
use app::model::Role::{Operator, Owner};
use app::model::jobs::{JobDetail, JobFilter, JobList, JobState, JobsTouched};
use app::model::retention::RetentionSettings;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::Deserialize;

use super::body::{Query, UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/jobs",
        "background jobs, latest change first, with the count in each state",
    )
    .query(schema::<ListQuery>)
    .answers(200, schema::<JobList>)
    .by(|verb| on(verb, list)),
    Operation::get("/api/v1/jobs/{id}", "a job with its attempts and its log")
        .answers(200, schema::<JobDetail>)
        .by(|verb| on(verb, read)),
    Operation::post(
        "/api/v1/jobs/{id}/cancel",
        "cancel a job (a running one is asked to stop)",
    )
    .needs(Operator)
    .records("job.cancel")
    .answers(200, schema::<JobsTouched>)
    .by(|verb| on(verb, cancel_one)),
    Operation::post(
        "/api/v1/jobs/{id}/retry",
        "run a failed or cancelled job again now",
    )
    .needs(Operator)
    .records("job.retry")
    .answers(200, schema::<JobsTouched>)
    .by(|verb| on(verb, retry_one)),
    Operation::post(
        "/api/v1/jobs/cancel",
        "cancel every job matching the filter",
    )
    .needs(Operator)
    .records("job.cancel")
    .json(schema::<JobFilter>, r#"{"kind":"probe.none"}"#)
    .answers(200, schema::<JobsTouched>)
    .by(|verb| on(verb, cancel_matching)),
    Operation::post(
        "/api/v1/jobs/retry",
        "run every failed or cancelled job matching the filter again now",
    )
    .needs(Operator)
    .records("job.retry")
    .json(schema::<JobFilter>, r#"{"kind":"probe.none"}"#)
    .answers(200, schema::<JobsTouched>)
    .by(|verb| on(verb, retry_matching)),
    Operation::get(
        "/api/v1/retention",
        "how long the tenant keeps raw frames and finished jobs",
    )
    .answers(200, schema::<RetentionSettings>)
    .by(|verb| on(verb, retention)),
    Operation::put(
        "/api/v1/retention",
        "set how long the tenant keeps raw frames and finished jobs",
    )
    .needs(Owner)
    .records("retention.set")
    .json(
        schema::<RetentionSettings>,
        r#"{"raw_events_days":30,"jobs_days":30}"#,
    )
    .answers(200, schema::<RetentionSettings>)
    .by(|verb| on(verb, set_retention)),
];

async fn retention(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(jobs.retention(&context).await?).into_response())
}

async fn set_retention(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let settings: RetentionSettings = parse_body(&body)?;
    Ok(axum::Json(jobs.set_retention(&context, settings).await?).into_response())
}

#[derive(Deserialize, JsonSchema)]
struct ListQuery {
    state: Option<JobState>,
    kind: Option<String>,
    /// The agent the jobs work with.
    agent: Option<String>,
    /// The project the jobs work for.
    project: Option<String>,
    q: Option<String>,
    #[serde(default)]
    offset: u32,
    limit: Option<u32>,
}

async fn list(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    Query(query): Query<ListQuery>,
) -> ApiResult {
    let filter = JobFilter {
        state: query.state,
        kind: query.kind,
        agent: query.agent,
        project_id: query.project,
        text: query.q,
    };
    let list = jobs
        .list_jobs(&context, &filter, query.offset, query.limit.unwrap_or(50))
        .await?;
    Ok(axum::Json(list).into_response())
}

async fn read(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(jobs.job(&context, &id).await?).into_response())
}

async fn cancel_one(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    let touched = jobs
        .cancel_jobs(&context, Some(&id), &JobFilter::default())
        .await?;
    Ok(axum::Json(touched).into_response())
}

async fn retry_one(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    let touched = jobs
        .retry_jobs(&context, Some(&id), &JobFilter::default())
        .await?;
    Ok(axum::Json(touched).into_response())
}

async fn cancel_matching(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let filter: JobFilter = parse_body(&body)?;
    Ok(axum::Json(jobs.cancel_jobs(&context, None, &filter).await?).into_response())
}

async fn retry_matching(
    State(jobs): State<Arc<dyn JobsService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let filter: JobFilter = parse_body(&body)?;
    Ok(axum::Json(jobs.retry_jobs(&context, None, &filter).await?).into_response())
}
