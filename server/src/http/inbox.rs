//! `/api/v1/inbox`: every pending ask of the tenant and its runs in progress, and
//! `/api/v1/inbox/events`, the one live stream a tab keeps for both.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use app::model::inbox::Inbox;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::on;

use super::body::{EventsQuery, Query, resume_point};
use super::context::Context;
use super::error::HttpError;
use super::limits::admit_stream;
use super::operations::{Answer, Operation, schema};
use crate::auth::Accounts;
use crate::live::StreamGate;
use crate::live::inbox::inbox_stream;
use crate::runs::Runs;

type ApiResult = Result<Response, HttpError>;

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/inbox",
        "every pending ask of the tenant and its runs in progress",
    )
    .answers(200, schema::<Inbox>)
    .by(|verb| on(verb, read)),
    Operation::get(
        "/api/v1/inbox/events",
        "the inbox's changes live, resuming after Last-Event-ID or ?after=",
    )
    .query(schema::<EventsQuery>)
    .answer(Answer::Events)
    .by(|verb| on(verb, events)),
];

async fn read(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    Context(context): Context,
) -> ApiResult {
    let inbox = workspace.inbox(&context.tenant).await?;
    Ok(axum::Json(inbox).into_response())
}

async fn events(
    State(runs): State<Arc<Runs>>,
    State(accounts): State<Accounts>,
    State(streams): State<Arc<StreamGate>>,
    Context(context): Context,
    headers: HeaderMap,
    Query(query): Query<EventsQuery>,
) -> ApiResult {
    let after = resume_point(&headers, query.after)?;
    let permit = match admit_stream(&streams, &context) {
        Ok(permit) => permit,
        Err(refused) => return Ok(refused.into_response()),
    };
    let tenant = context.tenant;
    let access_ends = super::credentials::access_ends(accounts, headers, tenant.clone());
    Ok(inbox_stream(
        runs.store().clone(),
        runs.live().clone(),
        tenant,
        after,
        access_ends,
        permit,
    ))
}
