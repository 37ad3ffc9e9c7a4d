//! `/api/v1/asks`: the tenant's asks (by state), one ask, and the receipt that answers it
//! — the first valid one wins; a later one is told who answered, with 409.

use std::sync::Arc;

use app::error::ApiError;
use app::model::Role::Operator;
use app::protocol::ask::{Ask, AskState};
use app::protocol::receipts::ReceiptEnvelope;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::{Query, UrlPath};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};
use crate::runs::{Answerer, ReceiptOutcome, Runs};
use crate::store::AskRecord;

pub const OPERATIONS: &[Operation] = &[
    Operation::get("/api/v1/asks", "the tenant's asks, newest first")
        .query(schema::<AsksQuery>)
        .answers(200, schema::<AskList>)
        .by(|verb| on(verb, list_asks)),
    Operation::get("/api/v1/asks/{key}", "one ask, by its key (`run:ask`)")
        .answers(200, schema::<OneAsk>)
        .by(|verb| on(verb, get_ask)),
    Operation::post(
        "/api/v1/asks/{key}/receipt",
        "answer an ask with a typed receipt: the first valid one wins",
    )
    .needs(Operator)
    .records("ask.answer")
    .json(
        schema::<ReceiptEnvelope>,
        r#"{"channel":"tool-result","receipt":{"toolCallId":"approve-budget","component":"approval_card","action":"once","data":{},"ts":"2026-12-04T12:00:00Z"}}"#,
    )
    .answers(200, schema::<OneAsk>)
    .by(|verb| on(verb, post_receipt)),
];

type ApiResult = Result<Response, HttpError>;

/// An ask as the API shows it.
#[derive(Serialize, JsonSchema)]
pub struct AskJson {
    /// `run:ask`.
    pub key: String,
    pub thread_id: String,
    pub run_id: String,
    pub ask: Ask,
    pub answered_by: Option<String>,
    pub created_at_ms: i64,
    pub closed_at_ms: Option<i64>,
}

impl From<&AskRecord> for AskJson {
    fn from(record: &AskRecord) -> Self {
        Self {
            key: record.key.clone(),
            thread_id: record.thread_id.clone(),
            run_id: record.run_id.clone(),
            ask: record.ask.clone(),
            answered_by: record.answered_by.clone(),
            created_at_ms: record.created_at_ms,
            closed_at_ms: record.closed_at_ms,
        }
    }
}

#[derive(Serialize, JsonSchema)]
pub struct AskList {
    pub asks: Vec<AskJson>,
}

#[derive(Serialize, JsonSchema)]
pub struct OneAsk {
    pub ask: AskJson,
}

/// A receipt for an ask closed already: 409 with who and how it was closed.
#[derive(Serialize, JsonSchema)]
pub struct AlreadyClosed {
    pub error: ApiError,
    pub resolution: AskState,
    pub ask: AskJson,
}

#[derive(Deserialize, JsonSchema)]
pub struct AsksQuery {
    /// `pending`, `resolved`, `expired` or `cancelled`.
    pub state: Option<String>,
}

async fn list_asks(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    Query(query): Query<AsksQuery>,
) -> ApiResult {
    if let Some(state) = &query.state
        && !["pending", "resolved", "expired", "cancelled"].contains(&state.as_str())
    {
        return Err(HttpError(ApiError::BadRequest(format!(
            "state {state:?} is not one of pending, resolved, expired, cancelled"
        ))));
    }
    let asks = runs
        .store()
        .list_asks(&context.tenant, query.state.as_deref())
        .await?;
    Ok(axum::Json(AskList {
        asks: asks.iter().map(AskJson::from).collect(),
    })
    .into_response())
}

async fn get_ask(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(key): UrlPath<String>,
) -> ApiResult {
    let record = runs
        .store()
        .get_ask(&context.tenant, &key)
        .await?
        .ok_or_else(|| HttpError(ApiError::NotFound(format!("ask {key:?} does not exist"))))?;
    Ok(axum::Json(OneAsk {
        ask: AskJson::from(&record),
    })
    .into_response())
}

async fn post_receipt(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(key): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let envelope = ReceiptEnvelope::parse(&body)
        .map_err(|error| HttpError(ApiError::BadRequest(error.to_string())))?;
    match runs
        .answer(&context.tenant, &key, &Answerer::of(&context), &envelope)
        .await?
    {
        ReceiptOutcome::Accepted(record) => Ok(axum::Json(OneAsk {
            ask: AskJson::from(&*record),
        })
        .into_response()),
        ReceiptOutcome::AlreadyClosed(record) => Ok((
            StatusCode::CONFLICT,
            axum::Json(AlreadyClosed {
                error: ApiError::Conflict(format!(
                    "ask {key:?} is already {}",
                    record.ask.state.label()
                )),
                resolution: record.ask.state.clone(),
                ask: AskJson::from(&*record),
            }),
        )
            .into_response()),
    }
}
