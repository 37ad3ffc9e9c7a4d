//! `/api/v1/curator`: the knowledge curator's settings, its passes (asked for now, listed,
//! read with their reports) and the ledger of the changes made on its proposals, with the
//! undo of one change.

use std::sync::Arc;

use app::api::service::CuratorService;
use app::model::Role::{Operator, Owner};
use app::model::curator::{
    CuratorChange, CuratorLedger, CuratorPass, CuratorPasses, CuratorSettings, PassStarted,
    StartPass,
};
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
        "/api/v1/curator/settings",
        "when the curator passes over the tenant's knowledge, and what it looks for",
    )
    .answers(200, schema::<CuratorSettings>)
    .by(|verb| on(verb, settings)),
    Operation::put(
        "/api/v1/curator/settings",
        "set when the curator passes and what it looks for",
    )
    .needs(Owner)
    .records("curator.settings")
    .json(
        schema::<CuratorSettings>,
        r#"{"weekly":true,"idle_minutes":30,"near_percent":80,"unused_days":90}"#,
    )
    .answers(200, schema::<CuratorSettings>)
    .by(|verb| on(verb, set_settings)),
    Operation::get(
        "/api/v1/curator/passes",
        "the curator's latest passes with their reports",
    )
    .answers(200, schema::<CuratorPasses>)
    .by(|verb| on(verb, passes)),
    Operation::post(
        "/api/v1/curator/passes",
        "ask for a pass over memory and notes now (a dry run proposes nothing)",
    )
    .needs(Operator)
    .records("curator.pass")
    .json(schema::<StartPass>, r#"{"dry_run":true}"#)
    .answers(202, schema::<PassStarted>)
    .creates("/api/v1/curator/passes", "/pass_id")
    .by(|verb| on(verb, start)),
    Operation::get("/api/v1/curator/passes/{id}", "a pass and its report")
        .answers(200, schema::<CuratorPass>)
        .by(|verb| on(verb, pass)),
    Operation::get(
        "/api/v1/curator/changes",
        "every change made on the curator's proposals, and every undo, newest first",
    )
    .answers(200, schema::<CuratorLedger>)
    .by(|verb| on(verb, ledger)),
    Operation::post(
        "/api/v1/curator/changes/{id}/undo",
        "put a memory entry back exactly as it was before a curator's change",
    )
    .needs(Operator)
    .records("curator.undo")
    .answers(200, schema::<CuratorChange>)
    .by(|verb| on(verb, undo)),
];

async fn settings(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(curator.curator_settings(&context).await?).into_response())
}

async fn set_settings(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let settings: CuratorSettings = parse_body(&body)?;
    Ok(axum::Json(curator.set_curator_settings(&context, settings).await?).into_response())
}

async fn passes(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(curator.passes(&context).await?).into_response())
}

async fn start(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let start: StartPass = parse_body(&body)?;
    let started = curator.start_pass(&context, start).await?;
    Ok((StatusCode::ACCEPTED, axum::Json(started)).into_response())
}

async fn pass(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(curator.pass(&context, &id).await?).into_response())
}

async fn ledger(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
) -> ApiResult {
    Ok(axum::Json(curator.ledger(&context).await?).into_response())
}

async fn undo(
    State(curator): State<Arc<dyn CuratorService>>,
    Context(context): Context,
    UrlPath(id): UrlPath<String>,
) -> ApiResult {
    Ok(axum::Json(curator.undo_change(&context, &id).await?).into_response())
}
