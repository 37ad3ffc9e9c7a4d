//! `/api/v1/agents`, `/api/v1/tenants` and `/api/v1/threads`: the configured agents, the
//! caller's tenants (and founding one), and the tenant's threads — listed or searched,
//! started, read with their runs, archived or restored, sent a message or a surface's
//! action.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use app::model::Role::{Operator, Owner};
use app::model::{AgentEnvironment, Membership, Role, ThreadSummary};
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
use super::runs::{RunJson, RunStarted};
use super::state::AppState;
use crate::auth::Accounts;
use crate::runs::{RunOptions, Runs};

pub const OPERATIONS: &[Operation] = &[
    Operation::get(
        "/api/v1/agents",
        "the configured agents and how each is reached",
    )
    .answers(200, schema::<AgentList>)
    .by(|verb| on(verb, list_agents)),
    Operation::get(
        "/api/v1/tenants",
        "the caller's tenants and the role held in each",
    )
    .answers(200, schema::<TenantList>)
    .by(|verb| on(verb, list_tenants)),
    Operation::post(
        "/api/v1/tenants",
        "found a tenant, with the caller as its owner",
    )
    .needs(Owner)
    .recorded_by_handler()
    .json(schema::<NewTenant>, r#"{"name":"probe-tenant"}"#)
    .answers(201, schema::<TenantFounded>)
    .by(|verb| on(verb, create_tenant)),
    Operation::get(
        "/api/v1/threads",
        "the tenant's threads, newest first, or those a search finds",
    )
    .query(schema::<ThreadQuery>)
    .answers(200, schema::<ThreadList>)
    .by(|verb| on(verb, list_threads)),
    Operation::post("/api/v1/threads", "start a thread with an agent")
        .needs(Operator)
        .records("thread.create")
        .json(schema::<NewThread>, "{}")
        .answers(201, schema::<ThreadCreated>)
        .creates("/api/v1/threads", "/thread/id")
        .by(|verb| on(verb, create_thread)),
    Operation::get(
        "/api/v1/threads/{thread_id}",
        "a thread, its agent and its runs",
    )
    .answers(200, schema::<ThreadWithRuns>)
    .by(|verb| on(verb, get_thread)),
    Operation::patch("/api/v1/threads/{thread_id}", "archive or restore a thread")
        .needs(Operator)
        .records("thread.archive")
        .json(schema::<ThreadChange>, r#"{"archived":false}"#)
        .answers(200, schema::<ThreadChanged>)
        .by(|verb| on(verb, change_thread)),
    Operation::post(
        "/api/v1/threads/{thread_id}/messages",
        "send a message: a new run",
    )
    .needs(Operator)
    .records("run.start")
    .json(schema::<Message>, r#"{"text":"probe"}"#)
    .answers(202, schema::<RunStarted>)
    .creates("/api/v1/runs", "/run/id")
    .by(|verb| on(verb, send_message)),
    Operation::post(
        "/api/v1/threads/{thread_id}/surface-actions",
        "act on a surface an agent drew: a new run",
    )
    .needs(Operator)
    .records("surface.action")
    .json(
        schema::<app::a2ui::action::ActionRequest>,
        r#"{"surfaceId":"board-watch","sourceComponentId":"root","name":"probe"}"#,
    )
    .answers(202, schema::<RunStarted>)
    .by(|verb| on(verb, send_surface_action)),
];

type ApiResult = Result<Response, HttpError>;

#[derive(Serialize, JsonSchema)]
pub struct AgentList {
    /// Names, the default agent first.
    pub agents: Vec<String>,
    pub environments: Vec<AgentEnvironment>,
}

async fn list_agents(State(runs): State<Arc<Runs>>) -> Response {
    let environments = runs
        .agents()
        .iter()
        .map(|agent| agent.environment())
        .collect();
    axum::Json(AgentList {
        agents: runs.agents().names(),
        environments,
    })
    .into_response()
}

#[derive(Deserialize, JsonSchema)]
pub struct ThreadQuery {
    /// Words a thread's title or messages must all hold.
    pub q: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ThreadList {
    pub threads: Vec<ThreadSummary>,
}

/// The tenant's threads, newest first; with `q`, those whose title or messages hold every
/// word of it.
async fn list_threads(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    Context(context): Context,
    Query(query): Query<ThreadQuery>,
) -> ApiResult {
    let threads = match query.q.as_deref().map(str::trim) {
        Some(words) if !words.is_empty() => {
            workspace.search_threads(&context.tenant, words).await?
        }
        _ => workspace.list_threads(&context.tenant).await?,
    };
    Ok(axum::Json(ThreadList { threads }).into_response())
}

#[derive(Serialize, JsonSchema)]
pub struct TenantList {
    /// The tenant the request acts in.
    pub current: String,
    pub tenants: Vec<Membership>,
}

/// The caller's tenants and the role held in each: no one learns of a tenant they do
/// not belong to (a token, of its own tenant only).
async fn list_tenants(Context(context): Context) -> ApiResult {
    Ok(axum::Json(TenantList {
        current: context.tenant,
        tenants: context.memberships,
    })
    .into_response())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTenant {
    /// Letters, digits, `-` and `_`; 1 to 64 characters.
    pub name: String,
}

#[derive(Serialize, JsonSchema)]
pub struct TenantFounded {
    pub tenant: String,
    pub role: Role,
}

/// Creates a tenant with the caller as its owner: 201, or 409 when the name is taken.
async fn create_tenant(
    State(accounts): State<Accounts>,
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let request: NewTenant = parse_body(&body)?;
    accounts
        .found_tenant(&context.user_id, &request.name)
        .await?;
    tracing::info!(user = %context.actor, tenant = %request.name, "a tenant was created");
    super::audit::write_in(
        runs.store(),
        &context,
        &request.name,
        "tenant.create",
        format!("tenant={}", request.name),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        axum::Json(TenantFounded {
            tenant: request.name,
            role: Role::Owner,
        }),
    )
        .into_response())
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewThread {
    /// The agent the thread talks to; the project's or the console's default when absent.
    pub agent: Option<String>,
    /// The project the thread belongs to.
    pub project_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ThreadCreated {
    pub thread: ThreadSummary,
    /// The agent the thread is bound to.
    pub agent: Option<String>,
}

async fn create_thread(
    State(state): State<AppState>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let request: NewThread = if body.is_empty() {
        NewThread::default()
    } else {
        parse_body(&body)?
    };
    let thread = state
        .workspace
        .create_thread(
            &context.tenant,
            request.agent.as_deref(),
            request.project_id.as_deref(),
        )
        .await?;
    let agent = state
        .runs
        .store()
        .thread_agent(&context.tenant, &thread.id)
        .await?;
    Ok((
        StatusCode::CREATED,
        axum::Json(ThreadCreated { thread, agent }),
    )
        .into_response())
}

#[derive(Serialize, JsonSchema)]
pub struct ThreadWithRuns {
    pub thread: ThreadSummary,
    pub agent: Option<String>,
    /// Oldest first.
    pub runs: Vec<RunJson>,
}

async fn get_thread(
    State(state): State<AppState>,
    Context(context): Context,
    UrlPath(thread_id): UrlPath<String>,
) -> ApiResult {
    let tenant = context.tenant;
    let thread = state.workspace.get_thread(&tenant, &thread_id).await?;
    let runs = state.runs.store().list_runs(&tenant, &thread_id).await?;
    let agent = state.runs.store().thread_agent(&tenant, &thread_id).await?;
    Ok(axum::Json(ThreadWithRuns {
        thread,
        agent,
        runs: runs.iter().map(RunJson::from).collect(),
    })
    .into_response())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreadChange {
    /// True archives the thread, false restores it.
    pub archived: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct ThreadChanged {
    pub thread: ThreadSummary,
}

/// `PATCH /api/v1/threads/{id}` with `{"archived": true|false}`: archives or restores.
async fn change_thread(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    Context(context): Context,
    UrlPath(thread_id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let change: ThreadChange = parse_body(&body)?;
    let thread = workspace
        .archive_thread(&context.tenant, &thread_id, change.archived)
        .await?;
    Ok(axum::Json(ThreadChanged { thread }).into_response())
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    pub text: String,
    /// Take the agent's stream as it comes, without checking its order.
    #[serde(default)]
    pub skip_verification: bool,
}

async fn send_message(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(thread_id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let message: Message = parse_body(&body)?;
    let run = runs
        .send_message(
            &context.tenant,
            &thread_id,
            &message.text,
            RunOptions {
                skip_verification: message.skip_verification,
            },
        )
        .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(RunStarted::from(&run))).into_response())
}

/// An operator's action on an A2UI surface: `{surfaceId, sourceComponentId, name, context}`.
async fn send_surface_action(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(thread_id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let request: app::a2ui::action::ActionRequest = parse_body(&body)?;
    let run = runs
        .send_surface_action(&context.tenant, &thread_id, &request)
        .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(RunStarted::from(&run))).into_response())
}
