//! The axum router: Leptos pages and server functions, the JSON API under `/api/v1`,
//! the live event streams, static assets, the demo agent and a health check.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use app::api::service::{Workspace, WorkspaceService};
use app::error::ApiError;
use app::projection::{RunView, ViewPolicy};
use app::protocol::receipts::ReceiptEnvelope;
use app::{App, shell};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRef, Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use leptos::config::LeptosOptions;
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_http::trace::TraceLayer;

use crate::live;
use crate::runs::{ReceiptOutcome, RunOptions, Runs};
use crate::store::{AskRecord, RunRecord, StoreError};

/// File stem of the browser bundle: `/pkg/agent_os.js`, `agent_os_bg.wasm`, `agent_os.css`.
pub const OUTPUT_NAME: &str = "agent_os";

/// Request bodies larger than this are refused with 413.
pub const BODY_LIMIT: usize = 1024 * 1024;

pub use app::model::TENANT_HEADER;
pub const ACTOR_HEADER: &str = "x-agent-os-actor";

#[derive(Clone, FromRef)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub workspace: Arc<dyn WorkspaceService>,
    pub runs: Arc<Runs>,
}

impl AppState {
    pub fn new(
        addr: SocketAddr,
        site_root: &Path,
        workspace: Arc<dyn WorkspaceService>,
        runs: Arc<Runs>,
    ) -> Self {
        let leptos_options = LeptosOptions::builder()
            .output_name(OUTPUT_NAME)
            .site_root(site_root.to_string_lossy().into_owned())
            .site_pkg_dir("pkg")
            .site_addr(addr)
            .build();
        Self {
            leptos_options,
            workspace,
            runs,
        }
    }
}

pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let workspace = state.workspace.clone();
    let options = state.leptos_options.clone();
    let api = Router::new()
        .route("/api/v1/agents", get(list_agents))
        .route("/api/v1/tenants", get(list_tenants).post(create_tenant))
        .route("/api/v1/threads", get(list_threads).post(create_thread))
        .route("/api/v1/threads/{thread_id}", get(get_thread))
        .route("/api/v1/threads/{thread_id}/messages", post(send_message))
        .route("/api/v1/runs/{run_id}", get(get_run))
        .route("/api/v1/runs/{run_id}/events", get(run_events))
        .route("/api/v1/runs/{run_id}/cancel", post(cancel_run))
        .route("/api/v1/asks", get(list_asks))
        .route("/api/v1/asks/{key}", get(get_ask))
        .route("/api/v1/asks/{key}/receipt", post(post_receipt))
        .layer(DefaultBodyLimit::max(BODY_LIMIT));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .merge(api)
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(Workspace(workspace.clone())),
            move || shell(options.clone()),
        )
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// An API error as JSON with its status: `{"error": {"kind", "message"}}`.
pub struct HttpError(pub ApiError);

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.0.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, axum::Json(json!({ "error": self.0 }))).into_response()
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> Self {
        HttpError(error)
    }
}

impl From<StoreError> for HttpError {
    fn from(error: StoreError) -> Self {
        tracing::error!(%error, "store operation failed");
        HttpError(ApiError::Storage(error.to_string()))
    }
}

type ApiResult = Result<Response, HttpError>;

fn tenant(headers: &HeaderMap) -> String {
    let value_of = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    app::model::tenant_of(
        value_of(TENANT_HEADER),
        value_of(axum::http::header::COOKIE.as_str()),
    )
}

fn actor(headers: &HeaderMap) -> String {
    headers
        .get(ACTOR_HEADER)
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.is_empty())
        .unwrap_or("operator")
        .to_owned()
}

/// Parses a JSON body, naming what is wrong with it.
fn parse_body<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, HttpError> {
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
    axum::Json(json!({ "agents": runs.agents().names() })).into_response()
}

async fn list_threads(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    headers: HeaderMap,
) -> ApiResult {
    let threads = workspace.list_threads(&tenant(&headers)).await?;
    Ok(axum::Json(json!({ "threads": threads })).into_response())
}

async fn list_tenants(State(workspace): State<Arc<dyn WorkspaceService>>) -> ApiResult {
    let tenants = workspace.list_tenants().await?;
    Ok(axum::Json(json!({ "tenants": tenants })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewTenantBody {
    /// Letters, digits, `-` and `_`; 1 to 64 characters.
    name: String,
}

/// Creates a tenant; 201 when new, 200 when it already existed.
async fn create_tenant(
    State(workspace): State<Arc<dyn WorkspaceService>>,
    body: Bytes,
) -> ApiResult {
    let request: NewTenantBody = parse_body(&body)?;
    let created = workspace.create_tenant(&request.name).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        axum::Json(json!({ "tenant": request.name, "created": created })),
    )
        .into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NewThreadBody {
    /// The agent the thread talks to; the default agent when absent.
    agent: Option<String>,
}

async fn create_thread(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let request: NewThreadBody = if body.is_empty() {
        NewThreadBody::default()
    } else {
        parse_body(&body)?
    };
    let tenant = tenant(&headers);
    if let Some(agent) = &request.agent
        && state.runs.agents().get(agent).is_none()
    {
        return Err(HttpError(ApiError::BadRequest(format!(
            "agent {agent:?} is not configured; configured: {}",
            state.runs.agents().names().join(", ")
        ))));
    }
    let thread = state.workspace.create_thread(&tenant).await?;
    if let Some(agent) = &request.agent {
        state
            .runs
            .store()
            .bind_thread_agent(&tenant, &thread.id, agent)
            .await?;
    }
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({ "thread": thread, "agent": request.agent })),
    )
        .into_response())
}

async fn get_thread(
    State(state): State<AppState>,
    headers: HeaderMap,
    UrlPath(thread_id): UrlPath<String>,
) -> ApiResult {
    let tenant = tenant(&headers);
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
struct MessageBody {
    text: String,
    #[serde(default)]
    skip_verification: bool,
}

async fn send_message(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
    UrlPath(thread_id): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let message: MessageBody = parse_body(&body)?;
    let run = runs
        .send_message(
            &tenant(&headers),
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
    headers: HeaderMap,
    UrlPath(run_id): UrlPath<String>,
    Query(query): Query<ViewQuery>,
) -> ApiResult {
    let tenant = tenant(&headers);
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
struct EventsQuery {
    after: Option<u64>,
}

async fn run_events(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
    UrlPath(run_id): UrlPath<String>,
    Query(query): Query<EventsQuery>,
) -> ApiResult {
    let tenant = tenant(&headers);
    find_run(&runs, &tenant, &run_id).await?;
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
    let after = last_event_id.or(query.after).unwrap_or(0);
    Ok(live::event_stream(
        runs.store().clone(),
        runs.live().clone(),
        tenant,
        run_id,
        after,
    )
    .into_response())
}

async fn cancel_run(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
    UrlPath(run_id): UrlPath<String>,
) -> ApiResult {
    let run = runs.cancel(&tenant(&headers), &run_id).await?;
    Ok(axum::Json(json!({ "run": run_json(&run) })).into_response())
}

#[derive(Deserialize)]
struct AsksQuery {
    state: Option<String>,
}

async fn list_asks(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
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
        .list_asks(&tenant(&headers), query.state.as_deref())
        .await?;
    Ok(
        axum::Json(json!({ "asks": asks.iter().map(ask_json).collect::<Vec<_>>() }))
            .into_response(),
    )
}

async fn get_ask(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
    UrlPath(key): UrlPath<String>,
) -> ApiResult {
    let record = runs
        .store()
        .get_ask(&tenant(&headers), &key)
        .await?
        .ok_or_else(|| HttpError(ApiError::NotFound(format!("ask {key:?} does not exist"))))?;
    Ok(axum::Json(json!({ "ask": ask_json(&record) })).into_response())
}

async fn post_receipt(
    State(runs): State<Arc<Runs>>,
    headers: HeaderMap,
    UrlPath(key): UrlPath<String>,
    body: Bytes,
) -> ApiResult {
    let envelope = ReceiptEnvelope::parse(&body)
        .map_err(|error| HttpError(ApiError::BadRequest(error.to_string())))?;
    match runs.answer(&tenant(&headers), &key, &actor(&headers), &envelope).await? {
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
