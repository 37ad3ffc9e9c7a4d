//! `/api/v1/memory`: a scope's entries (`?scope=tenant|project|user`, `&project_id=`), a
//! batch of Hermes-style operations (`POST`), one entry read, edited (`PATCH`) or removed,
//! the review queue of what agents propose (`/review`, accept or reject), and the
//! tenant's memory settings.

use std::sync::Arc;

use app::api::service::MemoryService;
use app::error::ApiError;
use app::memory::ScopeKind;
use app::model::memory::{MemoryBatch, MemoryEdit, MemorySettings, NewProposal, ProposalOutcome};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;

use super::AppState;
use super::api::parse_body;
use super::context::Context;
use super::error::HttpError;

type ApiResult = Result<Response, HttpError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/memory", get(scope).post(change))
        .route("/api/v1/memory/review", get(review))
        .route("/api/v1/memory/proposals", post(propose))
        .route("/api/v1/memory/review/{id}/accept", post(accept))
        .route("/api/v1/memory/review/{id}/reject", post(reject))
        .route("/api/v1/memory/settings", get(settings).put(set_settings))
        .route("/api/v1/memory/{id}", get(read).patch(edit).delete(delete))
}

#[derive(Deserialize)]
struct ScopeQuery {
    scope: Option<String>,
    project_id: Option<String>,
    q: Option<String>,
}

async fn scope(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    Query(query): Query<ScopeQuery>,
) -> ApiResult {
    let kind = ScopeKind::parse(query.scope.as_deref().unwrap_or("tenant"))
        .map_err(|message| HttpError(ApiError::BadRequest(message)))?;
    let view = memory
        .memory(&context, kind, query.project_id.as_deref())
        .await?
        .matching(query.q.as_deref().unwrap_or_default());
    Ok(axum::Json(view).into_response())
}

async fn change(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let batch: MemoryBatch = parse_body(&body)?;
    Ok(axum::Json(memory.change_memory(&context, batch).await?).into_response())
}

async fn read(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(memory.memory_entry(&context, &id).await?).into_response())
}

async fn edit(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let edit: MemoryEdit = parse_body(&body)?;
    Ok(axum::Json(memory.edit_memory(&context, &id, &edit.text).await?).into_response())
}

async fn delete(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    memory.delete_memory(&context, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[derive(Deserialize)]
struct ReviewQuery {
    state: Option<String>,
}

async fn review(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    Query(query): Query<ReviewQuery>,
) -> ApiResult {
    let state = query.state.as_deref().unwrap_or("pending");
    let state = (state != "all").then_some(state);
    let proposals = memory.proposals(&context, state).await?;
    Ok(axum::Json(json!({ "proposals": proposals })).into_response())
}

/// 201 with the queued proposal, or 200 with the scope when it applied at once.
async fn propose(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let proposal: NewProposal = parse_body(&body)?;
    let outcome = memory.propose_memory(&context, proposal).await?;
    let status = match outcome {
        ProposalOutcome::Queued { .. } => StatusCode::CREATED,
        ProposalOutcome::Applied { .. } => StatusCode::OK,
    };
    Ok((status, axum::Json(outcome)).into_response())
}

async fn accept(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(memory.decide_proposal(&context, &id, true).await?).into_response())
}

async fn reject(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(memory.decide_proposal(&context, &id, false).await?).into_response())
}

async fn settings(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(memory.memory_settings(&context).await?).into_response())
}

async fn set_settings(
    State(memory): State<Arc<dyn MemoryService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let settings: MemorySettings = parse_body(&body)?;
    Ok(axum::Json(memory.set_memory_settings(&context, settings).await?).into_response())
}
