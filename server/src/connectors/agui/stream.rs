//! An AG-UI run's stream: POST the RunAgentInput, read Server-Sent Events, normalize them
//! and store them in batches while reading on, within the agent timeouts and a bound on
//! what waits for the store.

use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::limits::excerpt;
use app::protocol::sse::{SseDecoder, SseFrames};
use futures_util::StreamExt;
use serde_json::Value;

use crate::clock::now_ms;
use crate::connectors::{Host, RunOptions};
use crate::store::{StoreError, UpstreamEvent};

/// An append on its way to the store.
type Pending<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), StoreError>> + Send + 'a>>;

/// Normalizes decoded SSE frames, keeping each raw frame at its upstream position;
/// returns the bytes of raw frames kept.
fn normalize_frames(
    normalizer: &mut AgUiNormalizer,
    frames: &mut SseFrames,
    upstream: &mut Vec<UpstreamEvent>,
    drafts: &mut Vec<EventDraft>,
) -> usize {
    let mut kept = 0;
    for frame in frames.iter() {
        let body = match &frame {
            Ok(frame) => frame.data.to_owned(),
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

/// Reads one AG-UI response into the store. Never panics and never hangs on a
/// broken agent: every way it can end becomes an event.
pub(super) async fn drive(
    host: &Host,
    tenant_id: &str,
    run_id: &str,
    url: &str,
    input: Value,
    options: RunOptions,
) {
    let config = AgUiConfig {
        verify: !options.skip_verification,
        ..AgUiConfig::from_run_input(&input)
    };
    let outcome = stream(host, tenant_id, run_id, url, &input, config).await;
    if let Err(message) = outcome {
        let failed = EventDraft::new(
            EventBody::RunFailed {
                message,
                code: Some("agent_unreachable".into()),
            },
            Some(now_ms()),
            None,
        );
        if let Err(error) = host.record(tenant_id, run_id, &[], vec![failed]).await {
            tracing::error!(%run_id, %error, "could not record the run's failure");
        }
    }
}

async fn stream(
    host: &Host,
    tenant_id: &str,
    run_id: &str,
    url: &str,
    input: &Value,
    config: AgUiConfig,
) -> Result<(), String> {
    let request = host
        .http
        .post(url)
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .json(input)
        .send();
    // What runs, logs and responses may say of the agent: a URL's user, password, query
    // and fragment can hold its credentials, and reqwest's errors would repeat them.
    let shown = crate::connectors::reach::url_without_credentials(url);
    let response = tokio::time::timeout(host.timeouts.first_byte, request)
        .await
        .map_err(|_| {
            format!(
                "the agent at {shown} did not answer within {} s",
                host.timeouts.first_byte.as_secs_f64()
            )
        })?
        .map_err(|error| {
            let error = error.without_url().to_string();
            format!(
                "the agent at {shown} is unreachable: {}",
                crate::connectors::reach::scrub_url(&error, url)
            )
        })?;
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        return Err(format!(
            "the agent answered HTTP {status}: {}",
            excerpt(&body, 300)
        ));
    }
    if input.get("parentRunId").is_some() {
        crate::fault::crash_point("after-resume-sent");
    }
    let mut normalizer = AgUiNormalizer::new(config);
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
                            crate::connectors::reach::scrub_url(&error, url)
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
                held_bytes += normalize_frames(&mut normalizer, &mut frames, &mut upstream, &mut drafts);
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
}
