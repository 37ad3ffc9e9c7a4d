//! `/api/v1/threads/{id}/context` and `/api/v1/projects/{id}/context`: what a thread or a
//! project pins for its runs — `GET` reads it, `PUT {notes: [ids], memory: [ids]}`
//! replaces it.

use std::sync::Arc;

use app::api::service::ContextService;
use app::model::context::Pins;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::AppState;
use super::api::parse_body;
use super::context::Context;
use super::error::HttpError;

type ApiResult = Result<Response, HttpError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route(
            "/api/v1/threads/{id}/context",
            get(thread_context).put(pin_to_thread),
        )
        .route(
            "/api/v1/projects/{id}/context",
            get(project_context).put(pin_to_project),
        )
}

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
