//! An agent's streamed HTTP answer: POST the request (retrying a busy endpoint only where
//! sending twice is harmless), read Server-Sent Events, normalize them and store them in
//! batches while reading on, within the agent timeouts and a bound on what waits for the
//! store. Every connector that speaks SSE over HTTP reads through here.

use std::time::Duration;

use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::limits::excerpt;
use app::protocol::sse::{FrameNormalizer, SseDecoder, SseFrames};
use futures_util::StreamExt;
use serde_json::Value;

use crate::clock::now_ms;
use crate::connectors::Host;
use crate::connectors::reach::{scrub_url, url_without_credentials};
use crate::store::{StoreError, UpstreamEvent};

/// One request to send.
pub struct StreamRequest<'a> {
    pub url: &'a str,
    pub body: &'a Value,
    /// Sent as `Authorization: Bearer …`; never logged, stored or shown.
    pub bearer: Option<&'a str>,
    /// How often a 429 or 5xx answer is tried again before any byte of a stream arrived.
    /// 0 where one request starts work on the agent's side (an AG-UI run), so it is
    /// never sent twice.
    pub retries: u32,
}

/// Why a request got no stream.
#[derive(Debug)]
pub enum SendError {
    /// The endpoint answered with an error status; `detail` is what its body said.
    Status { status: u16, detail: String },
    /// No answer: unreachable, or silent past the first-byte timeout.
    Unanswered(String),
}

/// The first wait before trying a busy endpoint again; it doubles each time.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait the console accepts from `Retry-After`.
const LONGEST_BACKOFF: Duration = Duration::from_secs(20);

/// Whether a status is worth trying again: the endpoint is busy or broke for now.
fn retryable(status: u16) -> bool {
    status == 429 || (500..600).contains(&status)
}

/// How long to wait before try `attempt` (1-based): the endpoint's `Retry-After` seconds
/// when it gives them (capped), else an exponential backoff.
fn backoff(attempt: u32, retry_after: Option<&str>) -> Duration {
    let given = retry_after
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(Duration::from_secs_f64);
    given
        .unwrap_or_else(|| FIRST_BACKOFF * 2u32.saturating_pow(attempt.saturating_sub(1)))
        .min(LONGEST_BACKOFF)
}

/// What an error body says, briefly: an OpenAI-style `error.message` (also from the first
/// frame of an error sent as a stream), else its text on one line.
fn error_detail(body: &str) -> String {
    let json = match body.trim_start().strip_prefix("data:") {
        Some(framed) => framed.lines().next().unwrap_or_default(),
        None => body,
    };
    let said = serde_json::from_str::<Value>(json.trim())
        .ok()
        .and_then(|value| {
            value
                .pointer("/error/message")
                .or_else(|| value.get("message"))
                .or_else(|| value.get("error"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let text = said.as_deref().unwrap_or(body);
    excerpt(&text.split_whitespace().collect::<Vec<_>>().join(" "), 300)
}

/// Sends `request`, trying a busy endpoint again (see [`StreamRequest::retries`]).
pub async fn send(
    host: &Host,
    request: &StreamRequest<'_>,
) -> Result<reqwest::Response, SendError> {
    // What runs, logs and responses may say of the agent: a URL's user, password, query
    // and fragment can hold its credentials, and reqwest's errors would repeat them.
    let shown = url_without_credentials(request.url);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut builder = host
            .http
            .post(request.url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(request.body);
        if let Some(key) = request.bearer {
            builder = builder.bearer_auth(key);
        }
        let response = tokio::time::timeout(host.timeouts.first_byte, builder.send())
            .await
            .map_err(|_| {
                SendError::Unanswered(format!(
                    "the agent at {shown} did not answer within {} s",
                    host.timeouts.first_byte.as_secs_f64()
                ))
            })?
            .map_err(|error| {
                let error = error.without_url().to_string();
                SendError::Unanswered(format!(
                    "the agent at {shown} is unreachable: {}",
                    scrub_url(&error, request.url)
                ))
            })?;
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(response);
        }
        if retryable(status) && attempt <= request.retries {
            let wait = backoff(
                attempt,
                response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|value| value.to_str().ok()),
            );
            tracing::info!(status, attempt, wait_ms = wait.as_millis() as u64, agent = %shown, "the agent is busy; trying again");
            tokio::time::sleep(wait).await;
            continue;
        }
        let body = response.text().await.unwrap_or_default();
        let mut detail = error_detail(&body);
        if let Some(key) = request.bearer {
            detail = detail.replace(key, "[key]");
        }
        return Err(SendError::Status { status, detail });
    }
}

/// Ends run `run_id` as failed with `message`.
pub async fn fail(host: &Host, tenant_id: &str, run_id: &str, message: String, code: &str) {
    let failed = EventDraft::new(
        EventBody::RunFailed {
            message,
            code: Some(code.into()),
        },
        Some(now_ms()),
        None,
    );
    if let Err(error) = host.record(tenant_id, run_id, &[], vec![failed]).await {
        tracing::error!(%run_id, %error, "could not record the run's failure");
    }
}

/// An append on its way to the store.
type Pending<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), StoreError>> + Send + 'a>>;

/// Normalizes decoded SSE frames, keeping each raw frame at its upstream position;
/// returns the bytes of raw frames kept.
fn normalize_frames(
    normalizer: &mut dyn FrameNormalizer,
    frames: &mut SseFrames,
    upstream: &mut Vec<UpstreamEvent>,
    drafts: &mut Vec<EventDraft>,
) -> usize {
    let mut kept = 0;
    for frame in frames.iter() {
        let body = match &frame {
            Ok(frame) => frame.kept_text(),
            Err(error) => format!("(undecodable SSE frame: {error})"),
        };
        kept += body.len();
        upstream.push(UpstreamEvent {
            position: normalizer.upstream_count(),
            body,
        });
        normalizer.push_frame(frame, drafts);
    }
    frames.clear();
    kept
}

/// The most raw upstream bytes read and held while the previous batch is being stored;
/// past it the agent's stream is not read until the store catches up.
const MAX_BUFFERED_BYTES: usize = 16 * 1024 * 1024;
/// The most normalized events held the same way.
const MAX_BUFFERED_EVENTS: usize = 16 * 1024;

/// Whether the reader may take more from the agent while a store write is in flight.
fn has_room(held_bytes: usize, held_events: usize) -> bool {
    held_events < MAX_BUFFERED_EVENTS && held_bytes < MAX_BUFFERED_BYTES
}

/// Reads `response` into the store through `normalizer`. Never panics and never hangs on
/// a broken agent: every way the stream can end becomes an event. An error is the reason
/// the run could not be stored.
pub async fn read(
    host: &Host,
    tenant_id: &str,
    run_id: &str,
    url: &str,
    response: reqwest::Response,
    normalizer: &mut (dyn FrameNormalizer + Send),
) -> Result<(), String> {
    let mut decoder = SseDecoder::new();
    let mut body = response.bytes_stream();
    let mut frames = SseFrames::new();
    let mut broken = None;
    // Reading never waits for the store: while one append is in flight, whatever
    // arrives meanwhile is normalized and goes into the next one (batching under load).
    let mut upstream: Vec<UpstreamEvent> = Vec::new();
    let mut drafts: Vec<EventDraft> = Vec::new();
    let mut in_flight: Option<Pending<'_>> = None;
    let mut reading = true;
    let mut held_bytes = 0;
    loop {
        tokio::select! {
            chunk = tokio::time::timeout(host.timeouts.idle, body.next()), if reading && has_room(held_bytes, drafts.len()) => {
                match chunk {
                    Ok(Some(Ok(bytes))) => decoder.feed(&bytes, &mut frames),
                    Ok(Some(Err(error))) => {
                        let error = error.without_url().to_string();
                        broken = Some(format!(
                            "the agent's connection broke: {}",
                            scrub_url(&error, url)
                        ));
                        reading = false;
                    }
                    Ok(None) => reading = false,
                    Err(_) => {
                        broken = Some(format!(
                            "the agent sent nothing for {} s; the console stopped waiting",
                            host.timeouts.idle.as_secs_f64()
                        ));
                        reading = false;
                    }
                }
                if !reading {
                    decoder.finish(&mut frames);
                }
                held_bytes += normalize_frames(normalizer, &mut frames, &mut upstream, &mut drafts);
                if !reading {
                    if let Some(message) = broken.take() {
                        drafts.push(EventDraft::new(
                            EventBody::Notice { level: Level::Error, text: message, source: "transport".into() },
                            Some(now_ms()),
                            None,
                        ));
                    }
                    normalizer.finish(&mut drafts);
                }
            }
            stored = async { in_flight.as_mut().expect("guarded").await }, if in_flight.is_some() => {
                in_flight = None;
                stored.map_err(|error| format!("the run could not be stored: {}", app::error::ApiError::from(error)))?;
            }
        }
        if in_flight.is_none() && !(upstream.is_empty() && drafts.is_empty()) {
            let batch_upstream = std::mem::take(&mut upstream);
            held_bytes = 0;
            let batch_drafts = std::mem::take(&mut drafts);
            in_flight = Some(Box::pin(async move {
                host.record(tenant_id, run_id, &batch_upstream, batch_drafts)
                    .await
            }));
        }
        if !reading && in_flight.is_none() {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_is_not_read_while_too_much_waits_for_the_store() {
        assert!(has_room(0, 0));
        assert!(has_room(MAX_BUFFERED_BYTES - 1, MAX_BUFFERED_EVENTS - 1));
        assert!(!has_room(MAX_BUFFERED_BYTES, 0));
        assert!(!has_room(0, MAX_BUFFERED_EVENTS));
    }

    #[test]
    fn only_a_busy_or_broken_endpoint_is_tried_again() {
        assert!(retryable(429));
        assert!(retryable(500) && retryable(503));
        assert!(!retryable(400) && !retryable(401) && !retryable(404));
    }

    #[test]
    fn the_wait_doubles_and_follows_retry_after_within_a_cap() {
        assert_eq!(backoff(1, None), Duration::from_millis(500));
        assert_eq!(backoff(3, None), Duration::from_secs(2));
        assert_eq!(backoff(1, Some("2")), Duration::from_secs(2));
        assert_eq!(backoff(1, Some("3600")), LONGEST_BACKOFF);
        assert_eq!(backoff(2, Some("soon")), Duration::from_secs(1));
    }

    #[test]
    fn an_error_body_is_told_by_its_message() {
        assert_eq!(
            error_detail(r#"{"error": {"message": "Rate limit reached", "type": "rate_limit"}}"#),
            "Rate limit reached"
        );
        assert_eq!(error_detail("plain text\n"), "plain text");
        // LiteLLM's answer when a stream fails before it starts (HTTP 500).
        assert_eq!(
            error_detail(
                "data: {\"error\": {\"message\": \"Error processing stream start\", \"code\": \"500\"}}\n\ndata: [DONE]\n\n"
            ),
            "Error processing stream start"
        );
    }
}
