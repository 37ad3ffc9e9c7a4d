//! A KsADK-style runtime as KsADK 0.8.5 answered when it was recorded
//! (`fixtures/peers/ksadk/`, compiled in): its bootstrap (its Responses transport only,
//! as a runtime without the AG-UI extra lists it), its model list and its Responses
//! streams, replayed frame by frame under `/ksadk`. `delete` in the last user message
//! raises its approval interrupt, `weather` runs its own tool, anything else is its text
//! turn. Each conversation gets its own session and interrupt ids; an interrupt is
//! answered once with its `ksadk_resume` item, and a second answer gets the empty 200
//! KsADK sends. Like every demo route it answers only to the demo key.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;

/// Words the runtime's scripted model understands, offered on an empty thread.
pub const SCENARIOS: [(&str, &str); 3] = [
    (
        "delete the old report",
        "A tool call that waits for your approval",
    ),
    ("weather in Paris", "The runtime runs its own tool"),
    ("hello", "A plain answer"),
];

/// The ids the recorded approval streams carry, replaced by each conversation's own.
const RECORDED_SESSION: &str = "sess-54cf248410f34cc4";
const RECORDED_INTERRUPT: &str = "48fd13277ac62321f2cb999bab2898da";
/// The rejection was recorded in another session.
const RECORDED_REJECTING_SESSION: &str = "sess-0fbe163f6225448b";
/// The reason the rejection was recorded with.
const RECORDED_REASON: &str = "not allowed";
/// Interrupts held at once; past it the oldest is forgotten (as answered).
const MOST_HELD: usize = 1000;

macro_rules! recorded {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/peers/ksadk/",
            $name
        ))
    };
}

const BOOTSTRAP: &str = recorded!("05_bootstrap.response.json");
const MODELS: &str = recorded!("04_v1_models.response.json");
const TEXT: &str = recorded!("10_responses_text_stream.response.sse");
const TOOL: &str = recorded!("12_responses_tool_stream.response.sse");
const APPROVAL: &str = recorded!("14_responses_approval_stream.response.sse");
const APPROVED: &str = recorded!("15_responses_approval_resume_stream.response.sse");
const REJECTED: &str = recorded!("19_responses_approval2_reject_stream.response.sse");

#[derive(Clone, Default)]
struct Held {
    /// Interrupts not yet answered, with their session, oldest first.
    interrupts: Arc<Mutex<Vec<(String, String)>>>,
    numbered: Arc<AtomicU64>,
}

/// The routes, to be mounted under `/demo`.
pub fn router() -> Router {
    Router::new()
        .route(
            "/ksadk/agentengine/api/v1/GetAgentUiBootstrap",
            post(bootstrap),
        )
        .route("/ksadk/v1/models", get(models))
        .route("/ksadk/v1/responses", post(responses))
        .with_state(Held::default())
}

fn json(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn bootstrap() -> Response {
    let mut answer: Value = serde_json::from_str(BOOTSTRAP).unwrap_or_default();
    if let Some(transports) = answer
        .pointer_mut("/Data/HostedChat/Transports")
        .and_then(Value::as_array_mut)
    {
        transports.retain(|transport| transport["Protocol"] != "ag-ui");
    }
    if let Some(hosted) = answer.pointer_mut("/Data/HostedChat") {
        hosted["PreferredTransport"] = "responses".into();
    }
    json(answer.to_string())
}

async fn models() -> Response {
    json(MODELS.to_owned())
}

async fn responses(State(held): State<Held>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            json(r#"{"detail":"the body must be JSON"}"#.to_owned()),
        )
            .into_response();
    };
    let first = &request["input"][0];
    if first["type"] == "ksadk_resume" {
        let interrupt = first["interrupt_id"].as_str().unwrap_or_default();
        let session = request["session_id"].as_str().unwrap_or_default();
        let Some(session) = held.take(interrupt, session) else {
            // What KsADK streams for an interrupt it no longer holds: nothing.
            return ([(header::CONTENT_TYPE, "text/event-stream")], "").into_response();
        };
        let decision = &first["value"]["decisions"][0];
        return stream(match decision["type"].as_str() {
            Some("approve") => APPROVED.replace(RECORDED_SESSION, &session),
            // The reason the rejection was recorded with, as the operator gave it.
            _ => REJECTED
                .replace(RECORDED_REJECTING_SESSION, &session)
                .replace(
                    RECORDED_REASON,
                    json_text(decision["message"].as_str().unwrap_or("rejected")).as_str(),
                ),
        });
    }
    let said = request["input"].to_string().to_lowercase();
    if said.contains("delete") {
        let (session, interrupt) = held.open();
        stream(
            APPROVAL
                .replace(RECORDED_SESSION, &session)
                .replace(RECORDED_INTERRUPT, &interrupt),
        )
    } else if said.contains("weather") {
        stream(TOOL.to_owned())
    } else {
        stream(TEXT.to_owned())
    }
}

impl Held {
    /// A new session holding a new interrupt.
    fn open(&self) -> (String, String) {
        let number = self.numbered.fetch_add(1, Ordering::Relaxed) + 1;
        let session = format!("sess-demo{number:011x}");
        let interrupt = format!("{:032x}", uuid::Uuid::new_v4().as_u128());
        if let Ok(mut interrupts) = self.interrupts.lock() {
            if interrupts.len() >= MOST_HELD {
                interrupts.remove(0);
            }
            interrupts.push((interrupt.clone(), session.clone()));
        }
        (session, interrupt)
    }

    /// Lets go of an interrupt its session still holds; the session, if it did.
    fn take(&self, interrupt: &str, session: &str) -> Option<String> {
        let mut interrupts = self.interrupts.lock().ok()?;
        let position = interrupts
            .iter()
            .position(|(id, held_by)| id == interrupt && held_by == session)?;
        Some(interrupts.remove(position).1)
    }
}

/// `text` as it stands inside a JSON string.
fn json_text(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The recorded frames, one at a time at the demo's pace; the connection closes after
/// the last, as KsADK's does.
fn stream(bytes: String) -> Response {
    let (frames, receiver) = tokio::sync::mpsc::channel(16);
    let delay = super::default_delay();
    tokio::spawn(async move {
        for frame in bytes.split_inclusive("\n\n") {
            if frames.send(Bytes::from(frame.to_owned())).await.is_err() {
                return;
            }
            tokio::time::sleep(delay).await;
        }
    });
    super::sse_response(receiver)
}
