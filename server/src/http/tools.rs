//! `/api/v1/tools`: the workspace tools agents may call with the tenant's policy for each
//! (`free` runs at once, `ask` waits for an operator), and `PUT /api/v1/tools/{name}
//! {policy}` for owners.

use std::sync::Arc;

use app::api::service::ToolsService;
use app::model::Role::Owner;
use app::workspace_tools::{ToolPolicy, ToolSetting};
use axum::body::Bytes;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::{UrlPath, parse_body};
use super::context::Context;
use super::error::HttpError;
use super::operations::{Operation, schema};

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/tools",
        "the workspace tools agents may call, with the tenant's policy",
    )
    .answers(200, schema::<ToolList>)
    .by(|verb| on(verb, list)),
    Operation::put(
        "/api/v1/tools/{name}",
        "whether a tool runs freely or waits for an operator",
    )
    .needs(Owner)
    .records("tools.policy")
    .json(schema::<PolicyBody>, r#"{"policy":"ask"}"#)
    .answers(200, schema::<ToolList>)
    .by(|verb| on(verb, set)),
];

#[derive(Serialize, JsonSchema)]
pub struct ToolList {
    pub tools: Vec<ToolSetting>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PolicyBody {
    policy: ToolPolicy,
}

async fn list(
    State(tools): State<Arc<dyn ToolsService>>,
    Context(context): Context,
) -> Result<Response, HttpError> {
    let tools = tools.tool_settings(&context).await?;
    Ok(axum::Json(ToolList { tools }).into_response())
}

async fn set(
    State(tools): State<Arc<dyn ToolsService>>,
    Context(context): Context,
    UrlPath(name): UrlPath<String>,
    body: Bytes,
) -> Result<Response, HttpError> {
    let body: PolicyBody = parse_body(&body)?;
    let tools = tools.set_tool_policy(&context, &name, body.policy).await?;
    Ok(axum::Json(ToolList { tools }).into_response())
}
