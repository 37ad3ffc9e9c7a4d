//! `/api/v1/inbox`: every pending ask of the tenant and its runs in progress, and
//! `/api/v1/inbox/events`, the one live stream a tab keeps for both.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::AppState;
use super::api::{EventsQuery, resume_point};
use super::context::Context;
use super::error::HttpError;
use super::limits::admit_stream;
use crate::auth::Accounts;
use crate::live::StreamGate;
use crate::live::inbox::inbox_stream;
use crate::runs::Runs;

type ApiResult = Result<Response, HttpError>;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/inbox", get(read))
        .route("/api/v1/inbox/events", get(events))
}

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
