//! `/api/v1/tools`: the workspace tools agents may call with the tenant's policy for each
//! (`free` runs at once, `ask` waits for an operator), and `PUT /api/v1/tools/{name}
//! {policy}` for owners.

use std::sync::Arc;

use app::api::service::ToolsService;
use app::workspace_tools::ToolPolicy;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use serde::Deserialize;

use super::AppState;
use super::api::parse_body;
use super::context::Context;
use super::error::HttpError;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/tools", get(list))
        .route("/api/v1/tools/{name}", put(set))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyBody {
    policy: ToolPolicy,
}

async fn list(
    State(tools): State<Arc<dyn ToolsService>>,
    Context(context): Context,
) -> Result<Response, HttpError> {
    let tools = tools.tool_settings(&context).await?;
    Ok(axum::Json(serde_json::json!({ "tools": tools })).into_response())
}

async fn set(
    State(tools): State<Arc<dyn ToolsService>>,
    Context(context): Context,
    UrlPath(name): UrlPath<String>,
    body: Bytes,
) -> Result<Response, HttpError> {
    let body: PolicyBody = parse_body(&body)?;
    let tools = tools.set_tool_policy(&context, &name, body.policy).await?;
    Ok(axum::Json(serde_json::json!({ "tools": tools })).into_response())
}
