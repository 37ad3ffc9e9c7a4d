//! The audit trail over HTTP: a middleware that records every state-changing request that
//! succeeded — who (user and token), what (the route table's action), to which ids — and
//! `GET /api/v1/audit` that lists a tenant's trail for its owners. Only ids are recorded:
//! never a message, a receipt or anything else typed.

use std::sync::Arc;

use app::model::{AuditEntry, RequestContext, Role};
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::body::Query;
use super::context::Context;
use super::error::HttpError;
use super::limits::BODY_LIMIT;
use super::operations::{Audit, Called, Operation, schema};
use super::state::AppState;
use crate::clock::now_ms;
use crate::store::Store;

/// Form fields of the console's requests that name what is acted on: the only ones kept
/// (a first password given with a new member, for one, never is).
const ID_FIELDS: &[&str] = &[
    "thread_id",
    "run_id",
    "ask_id",
    "agent",
    "tenant",
    "user",
    "role",
    "token_id",
    "note_id",
    "project_id",
    "entry_id",
    "proposal_id",
    "accept",
    "version",
];

/// How many entries a listing shows at most.
const MOST: u32 = 500;

pub const OPERATIONS: &[Operation] =
    &[
        Operation::get("/api/v1/audit", "the tenant's audit trail, newest first")
            .needs(Role::Owner)
            .query(schema::<ListQuery>)
            .answers(200, schema::<AuditTrail>)
            .by(|verb| on(verb, list)),
    ];

#[derive(Serialize, JsonSchema)]
pub struct AuditTrail {
    pub tenant: String,
    pub entries: Vec<AuditEntry>,
}

#[derive(Deserialize, JsonSchema)]
struct ListQuery {
    /// At most this many entries (1 to 500; 100 when not given).
    limit: Option<u32>,
}

async fn list(
    State(state): State<AppState>,
    Context(context): Context,
    Query(query): Query<ListQuery>,
) -> Result<Response, HttpError> {
    context.require(Role::Owner, "reading the audit trail")?;
    let limit = query.limit.unwrap_or(100).clamp(1, MOST);
    let entries = state.runs.store().audit(&context.tenant, limit).await?;
    Ok(axum::Json(AuditTrail {
        tenant: context.tenant,
        entries,
    })
    .into_response())
}

/// Appends one entry for the request's user, logging (not failing the request) when the
/// store cannot take it: the change itself has happened.
pub async fn write(store: &Arc<dyn Store>, context: &RequestContext, action: &str, target: String) {
    write_in(store, context, &context.tenant, action, target).await;
}

/// [`write`] in the trail of `tenant`, for a change that concerns another tenant than the
/// one the request acts in (entering it, founding it, answering its invitation): the
/// trail of the tenant acted from must not name the member's other tenants.
pub async fn write_in(
    store: &Arc<dyn Store>,
    context: &RequestContext,
    tenant: &str,
    action: &str,
    target: String,
) {
    let entry = AuditEntry {
        at_ms: now_ms(),
        user: context.actor.clone(),
        token: context.token_id.clone(),
        action: action.to_owned(),
        target,
    };
    if let Err(error) = store.record_audit(tenant, &context.user_id, &entry).await {
        tracing::error!(%error, action, "an audit entry could not be written");
    }
}

/// Middleware (inside the request context): records each audited request that succeeds.
pub async fn record(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let Some(Audit::Records(action)) = request
        .extensions()
        .get::<Called>()
        .map(|called| called.0.audit)
    else {
        return next.run(request).await;
    };
    let Some(context) = request.extensions().get::<RequestContext>().cloned() else {
        return next.run(request).await;
    };
    let (request, target) = if path.starts_with("/api/") {
        let target = path.trim_start_matches("/api/v1/").to_owned();
        (request, target)
    } else {
        match form_ids(request).await {
            Ok(read) => read,
            Err(response) => return response,
        }
    };
    let response = next.run(request).await;
    if succeeded(&response) {
        write(state.runs.store(), &context, action, target).await;
    }
    response
}

/// A success, or a form's redirect that does not carry an error back.
fn succeeded(response: &Response) -> bool {
    let status = response.status();
    status.is_success()
        || status == StatusCode::SEE_OTHER
            && !response
                .headers()
                .get(header::LOCATION)
                .and_then(|value| value.to_str().ok())
                .is_some_and(|location| location.contains("error="))
}

/// Reads a form body for its id fields, then hands the request on with the body intact.
async fn form_ids(request: Request) -> Result<(Request, String), Response> {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, BODY_LIMIT).await.map_err(|_| {
        let error = json!({"error": {"kind": "payload_too_large",
            "message": format!("a request body is at most {BODY_LIMIT} bytes")}});
        (StatusCode::PAYLOAD_TOO_LARGE, axum::Json(error)).into_response()
    })?;
    let target = form_urlencoded::parse(&bytes)
        .filter(|(key, _)| ID_FIELDS.contains(&key.as_ref()))
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(" ");
    Ok((Request::from_parts(parts, Body::from(bytes)), target))
}
