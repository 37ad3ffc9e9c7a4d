//! The demo OpenAI-compatible endpoint: a scripted model behind `/openai/v1` (Responses
//! and Chat Completions) and `/openai-chat/v1` (Chat Completions only, so negotiation has
//! something to fall back from), `/openai-chat-500/v1` (its Responses API fails with 500,
//! as a LiteLLM proxy's does for a model it cannot serve that way); `/runtime/v1` is a runtime whose bootstrap document offers
//! AG-UI (the demo agent), `/runtime-broken/v1` one whose offered AG-UI answers 404. It answers only to the demo key (the console's door checks it), streams like the hosted
//! APIs do, and keeps the requests it was sent for tests to read. It keeps its latest
//! responses (`store: true`) until it restarts: a request naming one
//! (`previous_response_id`) continues it, one naming a response it does not have is
//! refused with 400. `/stateful/v1` is the same model behind a bootstrap document that
//! offers that resume form.
//!
//! What it does follows the last user message: `note` calls the workspace tool
//! `notes_search`, `colour` the console's `change_background`, `parallel` both at once,
//! `approve` asks for an MCP approval (Responses), `busy` answers 429 once, `cut` stops
//! mid-stream, `fail` reports an error mid-stream, `refuse` refuses, `slow` never ends;
//! anything else is echoed with a reasoning summary. A request ending in tool results or
//! an approval answer is answered by saying what came back.

mod wire;

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use wire::{Api, Step};

/// Words the demo model understands, offered on an empty thread.
pub const SCENARIOS: [(&str, &str); 8] = [
    ("note", "The model searches the workspace's notes"),
    ("colour", "The model changes the thread's colour"),
    ("parallel", "Both tools at once"),
    ("approve", "An MCP tool call that waits for your approval"),
    ("busy", "Rate limited once, then the answer"),
    ("cut", "A stream cut off midway"),
    ("fail", "An error midway through the stream"),
    ("refuse", "The model refuses"),
];

/// The most requests kept for `/requests`.
const KEPT: usize = 200;
/// The most responses kept to be continued.
const KEPT_RESPONSES: usize = 1000;

/// Responses the model streams at once; past it, it answers 503.
const MOST_STREAMS: usize = 32;
/// Messages remembered as answered with 429 once.
const BUSY_REMEMBERED: usize = 1000;

#[derive(Clone)]
pub struct DemoModel {
    inner: Arc<Mutex<Seen>>,
    streams: Arc<tokio::sync::Semaphore>,
}

impl Default for DemoModel {
    fn default() -> Self {
        Self {
            inner: Arc::default(),
            streams: Arc::new(tokio::sync::Semaphore::new(MOST_STREAMS)),
        }
    }
}

#[derive(Default)]
struct Seen {
    requests: Vec<Value>,
    /// Messages already answered with 429 once.
    busy: HashSet<String>,
    /// The latest responses streamed (kept, as the hosted API keeps them): a request
    /// may continue one by its id. Forgotten when the server restarts.
    kept: VecDeque<String>,
    /// Responses numbered so far.
    numbered: u64,
}

/// The routes, to be mounted under `/demo`.
pub fn router() -> Router {
    let model = DemoModel::default();
    Router::new()
        .route("/openai/v1/models", get(models))
        .route("/openai/v1/responses", post(responses))
        .route("/openai/v1/chat/completions", post(chat))
        .route("/openai/v1/requests", get(requests))
        .route("/openai-chat/v1/models", get(models))
        .route("/openai-chat/v1/chat/completions", post(chat))
        // What a server without the Responses API answers (the console's own fallback
        // would answer for an unknown route otherwise).
        .route("/openai-chat/v1/responses", post(no_responses))
        .route("/openai-chat-500/v1/models", get(models))
        .route("/openai-chat-500/v1/chat/completions", post(chat))
        .route("/openai-chat-500/v1/responses", post(failing_responses))
        .route("/openai/v1/bootstrap", get(no_bootstrap))
        // A runtime whose bootstrap document offers AG-UI (the demo AG-UI agent), and one
        // whose offered AG-UI URL answers 404.
        .route("/runtime/v1/bootstrap", get(runtime_bootstrap))
        .route("/runtime/v1/models", get(models))
        .route("/runtime/v1/responses", post(responses))
        .route("/runtime-broken/v1/bootstrap", get(broken_bootstrap))
        .route("/runtime-broken/v1/models", get(models))
        .route("/runtime-broken/v1/responses", post(responses))
        .route("/runtime-broken/agui-gone", post(no_agui))
        // A runtime whose document offers its own resume form: a paused response is
        // continued by its id.
        .route("/stateful/v1/bootstrap", get(stateful_bootstrap))
        .route("/stateful/v1/models", get(models))
        .route("/stateful/v1/responses", post(responses))
        .with_state(model)
}

fn error(status: StatusCode, message: &str, code: &str) -> Response {
    let body =
        json!({"error": {"message": message, "type": "invalid_request_error", "code": code}});
    (status, Json(body)).into_response()
}

async fn models() -> Response {
    Json(json!({"object": "list", "data": [{"id": "demo-model", "object": "model", "owned_by": "agent-os"}]}))
        .into_response()
}

async fn no_bootstrap() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "No bootstrap document here",
        "not_found",
    )
}

async fn runtime_bootstrap() -> Response {
    Json(json!({
        "transports": {"agui": {"url": "../../agent"}, "responses": {}},
        "capabilities": {"approvals": false, "reasoning": true},
    }))
    .into_response()
}

async fn stateful_bootstrap() -> Response {
    Json(json!({"transports": {"responses": {}}, "resume": "previous_response_id"})).into_response()
}

async fn broken_bootstrap() -> Response {
    Json(json!({"transports": ["responses", {"type": "ag-ui", "url": "../agui-gone"}]}))
        .into_response()
}

async fn no_agui() -> Response {
    error(StatusCode::NOT_FOUND, "AG-UI moved away", "not_found")
}

async fn no_responses() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "Unknown route POST /v1/responses",
        "not_found",
    )
}

/// What LiteLLM 1.108 answered for a mock model on /responses: a 500 whose body is an
/// SSE-framed error (fixtures/openai/captured/).
async fn failing_responses() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/event-stream")],
        "data: {\"error\": {\"message\": \"Error processing stream start\", \"type\": \"None\", \"param\": \"None\", \"code\": \"500\"}}\n\n",
    )
        .into_response()
}

async fn requests(State(model): State<DemoModel>) -> Response {
    let seen = model
        .inner
        .lock()
        .map(|seen| seen.requests.clone())
        .unwrap_or_default();
    Json(Value::Array(seen)).into_response()
}

async fn responses(State(model): State<DemoModel>, body: Bytes) -> Response {
    answer(model, body, Api::Responses).await
}

async fn chat(State(model): State<DemoModel>, body: Bytes) -> Response {
    answer(model, body, Api::Chat).await
}

async fn answer(model: DemoModel, body: Bytes, api: Api) -> Response {
    let request: Value = match serde_json::from_slice(&body) {
        Ok(Value::Object(request)) => Value::Object(request),
        _ => {
            return error(
                StatusCode::BAD_REQUEST,
                "the body must be a JSON object",
                "invalid_body",
            );
        }
    };
    if request.get("stream") != Some(&json!(true)) {
        return error(
            StatusCode::BAD_REQUEST,
            "the demo model only streams: set stream to true",
            "stream_required",
        );
    }
    let previous = request
        .get("previous_response_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let last = wire::last_entry(api, &request);
    let busy_first =
        matches!(&last, wire::Last::User(text) if text.to_lowercase().contains("busy"));
    let mut response_id = String::new();
    if let Ok(mut seen) = model.inner.lock() {
        if seen.requests.len() >= KEPT {
            seen.requests.remove(0);
        }
        if let Some(previous) = &previous
            && !seen.kept.contains(previous)
        {
            seen.requests
                .push(json!({"api": api.name(), "body": request, "response_id": null}));
            return error(
                StatusCode::BAD_REQUEST,
                &format!("Previous response with id '{previous}' not found."),
                "previous_response_not_found",
            );
        }
        seen.numbered += 1;
        response_id = format!("resp_demo_{}", seen.numbered);
        if seen.kept.len() >= KEPT_RESPONSES {
            seen.kept.pop_front();
        }
        seen.kept.push_back(response_id.clone());
        seen.requests
            .push(json!({"api": api.name(), "body": request, "response_id": response_id}));
        if busy_first
            && let wire::Last::User(text) = &last
            && (seen.busy.len() < BUSY_REMEMBERED || {
                seen.busy.clear();
                true
            })
            && seen.busy.insert(text.clone())
        {
            let mut response = error(
                StatusCode::TOO_MANY_REQUESTS,
                "Rate limit reached; try again shortly.",
                "rate_limit_exceeded",
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("0"));
            return response;
        }
    }
    let Ok(slot) = model.streams.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the demo model is streaming as many responses as it serves at once",
            "overloaded",
        );
    };
    wire::stream(api, script(&last), &response_id, slot)
}

/// What the model does for the conversation's last entry.
fn script(last: &wire::Last) -> Vec<Step> {
    match last {
        wire::Last::ToolResults(results) => {
            let said: Vec<String> = results
                .iter()
                .map(|(name, output)| format!("{name} gave {}", wire::short(output)))
                .collect();
            vec![Step::Text(format!("The tools answered: {}.", said.join("; ")))]
        }
        wire::Last::Approval { approve: true, .. } => vec![
            Step::Hosted {
                name: "read_wiki".into(),
                server: "wiki".into(),
                arguments: r#"{"page":"Release checklist"}"#.into(),
                output: "1. Tag the release. 2. Publish the notes.".into(),
            },
            Step::Text("Approved, so I read the release checklist: tag the release, then publish the notes.".into()),
        ],
        wire::Last::Approval { approve: false, .. } => vec![Step::Text(
            "Understood: the wiki was not read, as you declined.".into(),
        )],
        wire::Last::User(text) => {
            let lower = text.to_lowercase();
            let has = |word: &str| lower.contains(word);
            if has("parallel") {
                vec![
                    Step::Text("Looking in two places at once.".into()),
                    notes_search("release"),
                    Step::Call {
                        name: "change_background".into(),
                        arguments: r##"{"color": "#e6f4f1"}"##.into(),
                    },
                ]
            } else if has("note") {
                vec![
                    Step::Reasoning("The operator wants notes; search them.".into()),
                    notes_search("release"),
                ]
            } else if has("colour") || has("color") {
                vec![Step::Call {
                    name: "change_background".into(),
                    arguments: r##"{"color": "#e6f4f1"}"##.into(),
                }]
            } else if has("approve") {
                vec![
                    Step::Text("I need to read the team wiki for that.".into()),
                    Step::Approval {
                        name: "read_wiki".into(),
                        server: "wiki".into(),
                        arguments: r#"{"page":"Release checklist"}"#.into(),
                    },
                ]
            } else if has("cut") {
                vec![
                    Step::Text("This answer will stop half".into()),
                    Step::Cut,
                ]
            } else if has("fail") {
                vec![
                    Step::Text("Starting, then".into()),
                    Step::Fail("The model crashed while answering.".into()),
                ]
            } else if has("refuse") {
                vec![Step::Refusal("I can't help with that.".into())]
            } else if has("slow") {
                vec![Step::Text("Thinking for a long time".into()), Step::Hang]
            } else {
                vec![
                    Step::Reasoning("A plain message: answer it.".into()),
                    Step::Text(format!("You said: **{}**", text.trim())),
                ]
            }
        }
        wire::Last::Nothing => vec![Step::Text("There is no message to answer.".into())],
    }
}

fn notes_search(query: &str) -> Step {
    Step::Call {
        name: "notes_search".into(),
        arguments: json!({ "query": query }).to_string(),
    }
}
