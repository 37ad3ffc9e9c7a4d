//! `/api/v1/threads/{id}/context` and `/api/v1/projects/{id}/context`: what a thread or a
//! project pins for its runs — `GET` reads it, `PUT {notes: [ids], memory: [ids]}`
//! replaces it.

use std::sync::Arc;

use app::api::service::ContextService;
use app::model::Role::Operator;
use app::model::context::{Pinned, Pins, ThreadContext};
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::on;

use super::body::{UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/threads/{id}/context",
        "what a thread pins for its runs, with its project's",
    )
    .answers(200, schema::<ThreadContext>)
    .by(|verb| on(verb, thread_context)),
    Operation::put("/api/v1/threads/{id}/context", "replace what a thread pins")
        .needs(Operator)
        .records("thread.pin")
        .json(schema::<Pins>, r#"{"notes":[],"memory":[]}"#)
        .answers(200, schema::<ThreadContext>)
        .by(|verb| on(verb, pin_to_thread)),
    Operation::get(
        "/api/v1/projects/{id}/context",
        "what a project pins for its threads' runs",
    )
    .answers(200, schema::<Pinned>)
    .by(|verb| on(verb, project_context)),
    Operation::put(
        "/api/v1/projects/{id}/context",
        "replace what a project pins",
    )
    .needs(Operator)
    .records("project.pin")
    .json(schema::<Pins>, r#"{"notes":[],"memory":[]}"#)
    .answers(200, schema::<Pinned>)
    .by(|verb| on(verb, pin_to_project)),
];

async fn thread_context(
    State(contexts): State<Arc<dyn ContextService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(contexts.thread_context(&context, &id).await?).into_response())
}

async fn pin_to_thread(
    State(contexts): State<Arc<dyn ContextService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let pins: Pins = parse_body(&body)?;
    Ok(axum::Json(contexts.pin_to_thread(&context, &id, pins).await?).into_response())
}

async fn project_context(
    State(contexts): State<Arc<dyn ContextService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(contexts.project_context(&context, &id).await?).into_response())
}

async fn pin_to_project(
    State(contexts): State<Arc<dyn ContextService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let pins: Pins = parse_body(&body)?;
    Ok(axum::Json(contexts.pin_to_project(&context, &id, pins).await?).into_response())
}
