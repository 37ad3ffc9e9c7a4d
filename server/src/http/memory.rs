//! `/api/v1/memory`: a scope's entries (`?scope=tenant|project|user`, `&project_id=`), a
//! batch of Hermes-style operations (`POST`), one entry read, edited (`PATCH`) or removed,
//! the review queue of what agents propose (`/review`, accept or reject), and the
//! tenant's memory settings.

use std::sync::Arc;

use app::api::service::MemoryService;
use app::error::ApiError;
use app::memory::ScopeKind;
use app::model::Role::{Operator, Owner};
use app::model::memory::{
    MemoryBatch, MemoryEdit, MemoryEntry, MemoryProposal, MemoryScope, MemorySettings, NewProposal,
    ProposalOutcome,
};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::{Query, UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get("/api/v1/memory", "a memory scope's entries")
        .query(schema::<ScopeQuery>)
        .answers(200, schema::<MemoryScope>)
        .by(|verb| on(verb, scope)),
    Operation::post("/api/v1/memory", "a batch of memory operations, applied at once")
        .needs(Operator)
        .records("memory.change")
        .json(
            schema::<MemoryBatch>,
            r#"{"scope":"tenant","operations":[{"action":"add","content":"a probed fact"}]}"#,
        )
        .answers(200, schema::<MemoryScope>)
        .by(|verb| on(verb, change)),
    Operation::get("/api/v1/memory/review", "the changes agents proposed")
        .query(schema::<ReviewQuery>)
        .answers(200, schema::<ProposalList>)
        .by(|verb| on(verb, review)),
    Operation::post("/api/v1/memory/proposals", "propose a change for review")
        .needs(Operator)
        .records("memory.propose")
        .json(
            schema::<NewProposal>,
            r#"{"scope":"tenant","operations":[{"action":"add","content":"a proposed fact"}],"proposed_by":"a probe"}"#,
        )
        .answers(201, schema::<ProposalOutcome>)
        .creates("/api/v1/memory/review", "/proposal/id")
        .or_status(200)
        .by(|verb| on(verb, propose)),
    Operation::post("/api/v1/memory/review/{id}/accept", "accept a proposed change")
        .needs(Operator)
        .records("memory.accept")
        .answers(200, schema::<MemoryProposal>)
        .by(|verb| on(verb, accept)),
    Operation::post("/api/v1/memory/review/{id}/reject", "reject a proposed change")
        .needs(Operator)
        .records("memory.reject")
        .answers(200, schema::<MemoryProposal>)
        .by(|verb| on(verb, reject)),
    Operation::get("/api/v1/memory/settings", "the tenant's memory settings")
        .answers(200, schema::<MemorySettings>)
        .by(|verb| on(verb, settings)),
    Operation::put("/api/v1/memory/settings", "set the tenant's memory settings")
        .needs(Owner)
        .records("memory.settings")
        .json(schema::<MemorySettings>, r#"{"auto_accept":false}"#)
        .answers(200, schema::<MemorySettings>)
        .by(|verb| on(verb, set_settings)),
    Operation::get("/api/v1/memory/{id}", "a memory entry")
        .answers(200, schema::<MemoryEntry>)
        .by(|verb| on(verb, read)),
    Operation::patch("/api/v1/memory/{id}", "edit a memory entry's text")
        .needs(Operator)
        .records("memory.edit")
        .json(schema::<MemoryEdit>, r#"{"text":"probe edited"}"#)
        .answers(200, schema::<MemoryEntry>)
        .by(|verb| on(verb, edit)),
    Operation::delete("/api/v1/memory/{id}", "remove a memory entry")
        .needs(Operator)
        .records("memory.delete")
        .by(|verb| on(verb, delete)),
];

#[derive(Serialize, JsonSchema)]
pub struct ProposalList {
    pub proposals: Vec<MemoryProposal>,
}

#[derive(Deserialize, JsonSchema)]
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

#[derive(Deserialize, JsonSchema)]
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
    Ok(axum::Json(ProposalList { proposals }).into_response())
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
