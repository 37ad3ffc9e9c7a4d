//! The JSON API under `/api/v1`: thin handlers over the run and workspace services.

use std::sync::Arc;

use app::api::service::WorkspaceService;
use app::error::ApiError;
use app::projection::{RunView, ViewPolicy};
use app::protocol::receipts::ReceiptEnvelope;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::context::Context;
use super::error::{HttpError, api_not_found};
use super::limits::admit_stream;
use crate::auth::Accounts;
use crate::live::{self, StreamGate};
use crate::runs::{ReceiptOutcome, RunOptions, Runs};
use crate::store::{AskRecord, RunRecord};

/// Every `/api/v1` route; a path that names none answers a JSON 404.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/agents", get(list_agents))
        .route("/api/v1/tenants", get(list_tenants).post(create_tenant))
        .route("/api/v1/threads", get(list_threads).post(create_thread))
        .route(
            "/api/v1/threads/{thread_id}",
            get(get_thread).patch(change_thread),
        )
        .route("/api/v1/threads/{thread_id}/messages", post(send_message))
        .route(
            "/api/v1/threads/{thread_id}/surface-actions",
            post(send_surface_action),
        )
        .route("/api/v1/runs/{run_id}", get(get_run))
        .route("/api/v1/runs/{run_id}/events", get(run_events))
        .route("/api/v1/runs/{run_id}/cancel", post(cancel_run))
        .route("/api/v1/runs/{run_id}/retry", post(retry_run))
        .route("/api/v1/asks", get(list_asks))
        .route("/api/v1/asks/{key}", get(get_ask))
        .route("/api/v1/asks/{key}/receipt", post(post_receipt))
        .route("/api/v1", any(api_not_found))
        .route("/api/v1/{*rest}", any(api_not_found))
}

type ApiResult = Result<Response, HttpError>;

/// Parses a JSON body, naming what is wrong with it.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, HttpError> {
    serde_json::from_slice(body).map_err(|error| {
        HttpError(ApiError::BadRequest(format!(
            "request body is not valid: {error}"
        )))
    })
}

fn run_json(run: &RunRecord) -> Value {
    json!({
        "id": run.id,
        "thread_id": run.thread_id,
        "agent": run.agent,
        "status": run.status,
        "last_sequence": run.last_sequence,
        "created_at_ms": run.created_at_ms,
        "finished_at_ms": run.finished_at_ms,
    })
}

fn ask_json(record: &AskRecord) -> Value {
    json!({
        "key": record.key,
        "thread_id": record.thread_id,
        "run_id": record.run_id,
        "ask": record.ask,
        "answered_by": record.answered_by,
        "created_at_ms": record.created_at_ms,
        "closed_at_ms": record.closed_at_ms,
    })
}

async fn list_agents(State(runs): State<Arc<Runs>>) -> Response {
    let environments: Vec<_> = runs
        .agents()
        .iter()
        .map(|agent| agent.environment())
        .collect();
    axum::Json(json!({ "agents": runs.agents().names(), "environments": environments }))
        .into_response()
}

#[derive(Deserialize)]
struct ThreadQuery {
    q: Option<String>,
}

/// The tenant's threads, newest first; with `q`, those whose title or messages hold every
/// word of it.
async fn list_threads(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    Context(context): Context,
    axum::extract::Query(query): axum::extract::Query<ThreadQuery>,
) -> ApiResult {
    let threads = match query.q.as_deref().map(str::trim) {
        Some(words) if !words.is_empty() => {
            workspace.search_threads(&context.tenant, words).await?
        }
        _ => workspace.list_threads(&context.tenant).await?,
    };
    Ok(axum::Json(json!({ "threads": threads })).into_response())
}

/// The caller's tenants and the role held in each: no one learns of a tenant they do
/// not belong to.
async fn list_tenants(Context(context): Context) -> ApiResult {
    Ok(axum::Json(json!({
        "current": context.tenant,
        "tenants": context.memberships,
    }))
    .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewTenantBody {
    /// Letters, digits, `-` and `_`; 1 to 64 characters.
    name: String,
}

/// Creates a tenant with the caller as its owner: 201, or 409 when the name is taken.
async fn create_tenant(
    State(accounts): State<Accounts>,
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let request: NewTenantBody = parse_body(&body)?;
    let store = runs.store().clone();
    accounts
        .found_tenant(&context.user_id, &request.name)
        .await?;
    tracing::info!(user = %context.actor, tenant = %request.name, "a tenant was created");
    super::audit::write_in(
        &store,
        &context,
        &request.name,
        "tenant.create",
        format!("tenant={}", request.name),
    )
    .await;
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({ "tenant": request.name, "role": app::model::Role::Owner })),
    )
        .into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NewThreadBody {
    /// The agent the thread talks to; the project's or the console's default when absent.
    agent: Option<String>,
    /// The project the thread belongs to.
    project_id: Option<String>,
}

async fn create_thread(
    State(state): State<AppState>,
    Context(context): Context,
    body: Bytes,
) -> ApiResult {
    let request: NewThreadBody = if body.is_empty() {
        NewThreadBody::default()
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
        axum::Json(json!({ "thread": thread, "agent": agent })),
    )
        .into_response())
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
    Ok(axum::Json(json!({
        "thread": thread,
        "agent": agent,
        "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
    }))
    .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThreadChange {
    archived: bool,
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
    Ok(axum::Json(json!({ "thread": thread })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageBody {
    text: String,
    #[serde(default)]
    skip_verification: bool,
}

async fn send_message(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(thread_id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let message: MessageBody = parse_body(&body)?;
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
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(json!({ "run": run_json(&run) })),
    )
        .into_response())
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
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(json!({ "run": run_json(&run) })),
    )
        .into_response())
}

/// Sends the thread's last message again in place of the turn the run belongs to.
async fn retry_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
) -> ApiResult {
    let run = runs
        .retry(&context.tenant, &run_id, RunOptions::default())
        .await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(json!({ "run": run_json(&run) })),
    )
        .into_response())
}

async fn find_run(runs: &Runs, tenant: &str, run_id: &str) -> Result<RunRecord, HttpError> {
    runs.store()
        .get_run(tenant, run_id)
        .await?
        .ok_or_else(|| HttpError(ApiError::NotFound(format!("run {run_id:?} does not exist"))))
}

#[derive(Deserialize)]
struct ViewQuery {
    #[serde(default)]
    show_reasoning: bool,
}

async fn get_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
    Query(query): Query<ViewQuery>,
) -> ApiResult {
    let tenant = context.tenant;
    let run = find_run(&runs, &tenant, &run_id).await?;
    let events = runs.store().events(&tenant, &run_id, 0, None).await?;
    let view = RunView::from_events(
        ViewPolicy {
            show_reasoning: query.show_reasoning,
        },
        &events,
    );
    Ok(axum::Json(json!({ "run": run_json(&run), "view": view })).into_response())
}

#[derive(Deserialize)]
pub(super) struct EventsQuery {
    pub after: Option<u64>,
}

/// Where a live stream resumes: after the `Last-Event-ID` the browser sends on
/// reconnecting, else after `?after=`, else from the start.
pub(super) fn resume_point(headers: &HeaderMap, after: Option<u64>) -> Result<u64, HttpError> {
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    HttpError(ApiError::BadRequest(
                        "Last-Event-ID must be a sequence number".into(),
                    ))
                })?,
        ),
        None => None,
    };
    Ok(last_event_id.or(after).unwrap_or(0))
}

async fn run_events(
    State(runs): State<Arc<Runs>>,
    State(accounts): State<Accounts>,
    State(streams): State<Arc<StreamGate>>,
    Context(context): Context,
    headers: HeaderMap,
    UrlPath(run_id): UrlPath<String>,
    Query(query): Query<EventsQuery>,
) -> ApiResult {
    find_run(&runs, &context.tenant, &run_id).await?;
    let after = resume_point(&headers, query.after)?;
    let permit = match admit_stream(&streams, &context) {
        Ok(permit) => permit,
        Err(refused) => return Ok(refused.into_response()),
    };
    let tenant = context.tenant;
    let access_ends = super::credentials::access_ends(accounts, headers, tenant.clone());
    Ok(live::event_stream(
        runs.store().clone(),
        runs.live().clone(),
        tenant,
        run_id,
        after,
        access_ends,
        permit,
    )
    .into_response())
}

async fn cancel_run(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(run_id): UrlPath<String>,
) -> ApiResult {
    let run = runs.cancel(&context.tenant, &run_id).await?;
    Ok(axum::Json(json!({ "run": run_json(&run) })).into_response())
}

#[derive(Deserialize)]
struct AsksQuery {
    state: Option<String>,
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
    Ok(
        axum::Json(json!({ "asks": asks.iter().map(ask_json).collect::<Vec<_>>() }))
            .into_response(),
    )
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
    Ok(axum::Json(json!({ "ask": ask_json(&record) })).into_response())
}

async fn post_receipt(
    State(runs): State<Arc<Runs>>,
    Context(context): Context,
    UrlPath(key): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let envelope = ReceiptEnvelope::parse(&body)
        .map_err(|error| HttpError(ApiError::BadRequest(error.to_string())))?;
    match runs.answer(&context.tenant, &key, &context.acted_by(), &envelope).await? {
        ReceiptOutcome::Accepted(record) => Ok(axum::Json(json!({ "ask": ask_json(&record) })).into_response()),
        ReceiptOutcome::AlreadyClosed(record) => Ok((
            StatusCode::CONFLICT,
            axum::Json(json!({
                "error": ApiError::Conflict(format!("ask {key:?} is already {}", record.ask.state.label())),
                "resolution": record.ask.state,
                "ask": ask_json(&record),
            })),
        )
            .into_response()),
    }
}
