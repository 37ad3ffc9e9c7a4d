//! `/api/v1/agent-jobs`: the agents' own scheduled jobs (a Hermes gateway's `cron.manage`),
//! listed with the paused ones the gateway no longer lists; added, paused, resumed and
//! removed by owners.

use std::sync::Arc;

use app::api::service::GatewayJobsService;
use app::model::Role::Owner;
use app::model::gateway_jobs::{GatewayJob, GatewayJobs, NewGatewayJob};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;

use super::body::{UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/agent-jobs",
        "each agent's own scheduled jobs, paused ones included",
    )
    .answers(200, schema::<Vec<GatewayJobs>>)
    .by(|verb| on(verb, list)),
    Operation::post(
        "/api/v1/agent-jobs/{agent}",
        "add a job to an agent's own scheduler",
    )
    .needs(Owner)
    .records("agent_job.add")
    .json(
        schema::<NewGatewayJob>,
        r#"{"name":"probe","schedule":"every 2h","prompt":"hello"}"#,
    )
    .answers(201, schema::<GatewayJob>)
    .by(|verb| on(verb, add)),
    Operation::post(
        "/api/v1/agent-jobs/{agent}/{id}/pause",
        "pause a job of an agent's own scheduler",
    )
    .needs(Owner)
    .records("agent_job.pause")
    .answers(200, schema::<GatewayJob>)
    .by(|verb| on(verb, pause)),
    Operation::post(
        "/api/v1/agent-jobs/{agent}/{id}/resume",
        "resume a job of an agent's own scheduler",
    )
    .needs(Owner)
    .records("agent_job.resume")
    .answers(200, schema::<GatewayJob>)
    .by(|verb| on(verb, resume)),
    Operation::delete(
        "/api/v1/agent-jobs/{agent}/{id}",
        "remove a job from an agent's own scheduler",
    )
    .needs(Owner)
    .records("agent_job.remove")
    .by(|verb| on(verb, remove)),
];

async fn list(
    State(jobs): State<Arc<dyn GatewayJobsService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(jobs.gateway_jobs(&context).await?).into_response())
}

async fn add(
    State(jobs): State<Arc<dyn GatewayJobsService>>,
    Context(context): Context,
    UrlPath(agent): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let job: NewGatewayJob = parse_body(&body)?;
    let added = jobs.add_gateway_job(&context, &agent, job).await?;
    Ok((StatusCode::CREATED, axum::Json(added)).into_response())
}

async fn pause(
    State(jobs): State<Arc<dyn GatewayJobsService>>,
    Context(context): Context,
    UrlPath((agent, id)): UrlPath<(String, String)>,
) -> ApiResult {
    Ok(axum::Json(jobs.pause_gateway_job(&context, &agent, &id).await?).into_response())
}

async fn resume(
    State(jobs): State<Arc<dyn GatewayJobsService>>,
    Context(context): Context,
    UrlPath((agent, id)): UrlPath<(String, String)>,
) -> ApiResult {
    Ok(axum::Json(jobs.resume_gateway_job(&context, &agent, &id).await?).into_response())
}

async fn remove(
    State(jobs): State<Arc<dyn GatewayJobsService>>,
    Context(context): Context,
    UrlPath((agent, id)): UrlPath<(String, String)>,
) -> ApiResult {
    jobs.remove_gateway_job(&context, &agent, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}
