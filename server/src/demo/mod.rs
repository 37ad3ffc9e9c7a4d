//! The built-in demo agents: an AG-UI agent over HTTP and a Hermes-style gateway over
//! stdio, so the console has real peers to talk to without a key or a network.

pub mod agent;
pub mod gateway;
pub mod ksadk;
pub mod openai;

use std::time::Duration;

use axum::Router;
use axum::routing::{any, get, post};

pub use agent::DemoAgent;

/// The demo agent's routes: `POST /agent`, `/raw/{scenario}`, `/cancellations`,
/// `/resumes`, `/tools`; the demo model's under `/openai/v1` and `/openai-chat/v1`; and
/// the recorded KsADK runtime's under `/ksadk`.
/// `agent-os serve` mounts them under `/demo`; `agent-os demo-agent` serves them at the root.
pub fn router(agent: DemoAgent) -> Router {
    Router::new()
        .route("/agent", post(agent::run))
        .route("/raw/{scenario}", any(agent::raw))
        .route("/cancellations", get(agent::cancellations))
        .route("/resumes", get(agent::resumes))
        .route("/tools", get(agent::tools))
        .route("/health", get(|| async { "ok" }))
        .with_state(agent)
        .merge(openai::router())
        .merge(ksadk::router())
}

/// A response streaming what `frames` receives as Server-Sent Events, until its sender
/// is dropped.
pub fn sse_response(
    mut frames: tokio::sync::mpsc::Receiver<axum::body::Bytes>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let body = futures_util::stream::poll_fn(move |cx| {
        frames
            .poll_recv(cx)
            .map(|next| next.map(Ok::<_, std::convert::Infallible>))
    });
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// The pause between demo events: long enough to watch text stream in a browser.
pub fn default_delay() -> Duration {
    Duration::from_millis(
        std::env::var("AGENT_OS_DEMO_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .unwrap_or(25),
    )
}
