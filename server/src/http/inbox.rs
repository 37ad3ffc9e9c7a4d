//! `/api/v1/inbox`: every pending ask of the tenant and its runs in progress, and
//! `/api/v1/inbox/events`, the one live stream a tab keeps for both.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use app::model::inbox::Inbox;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::on;

use super::body::EventsQuery;
use super::context::Context;
use super::error::HttpError;
use super::limits::StreamOpening;
use super::operations::{Answer, Operation, schema};
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

async fn events(State(runs): State<Arc<Runs>>, opening: StreamOpening) -> Response {
    inbox_stream(
        runs.store().clone(),
        runs.live().clone(),
        opening.tenant,
        opening.after,
        opening.access_ends,
        opening.permit,
    )
}
