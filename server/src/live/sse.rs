//! A run's events as Server-Sent Events: the stored backlog page by page, then live
//! events as they commit, with heartbeats; resumable from any sequence (`Last-Event-ID`).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use app::protocol::channel::{EventBody, RunEvent};
use axum::body::Bytes;
use tokio::sync::broadcast;

use super::{Live, StreamPermit};
use crate::store::{Store, StoreError};

/// Whether a stream of this run can end: its run is over and no ask waits. Asks are
/// followed as the projection follows them: an ask opened again after its answer stays
/// answered, the console reopens one by closing it as pending, and a run that fails
/// closes those still open.
#[derive(Default)]
struct Progress {
    terminal: bool,
    /// Each ask seen, and whether it waits.
    asks: std::collections::HashMap<String, bool>,
}

impl Progress {
    fn see(&mut self, event: &RunEvent) {
        match &event.body {
            EventBody::RunFailed { .. } => {
                if !self.terminal {
                    self.asks.values_mut().for_each(|waits| *waits = false);
                }
                self.terminal = true;
            }
            EventBody::RunFinished { .. } => self.terminal = true,
            EventBody::RunStarted { .. } => self.terminal = false,
            EventBody::AskOpened { ask } => {
                self.asks.entry(ask.id.clone()).or_insert(true);
            }
            EventBody::AskClosed { ask_id, state, .. } => {
                let waits = state.is_pending();
                if let Some(known) = self.asks.get_mut(ask_id)
                    && (*known || waits)
                {
                    *known = waits;
                }
            }
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.terminal && !self.asks.values().any(|waits| *waits)
    }
}

/// Appends one event as an SSE frame (`id: <sequence>`, one `data:` line of JSON).
fn push_frame(out: &mut String, event: &RunEvent) {
    use std::fmt::Write;
    match serde_json::to_string(event) {
        Ok(data) => {
            let _ = write!(out, "id: {}\ndata: {data}\n\n", event.sequence);
        }
        Err(error) => {
            let _ = write!(
                out,
                "id: {}\nevent: error\ndata: event {} could not be encoded: {error}\n\n",
                event.sequence, event.sequence
            );
        }
    }
}

/// How often an idle stream says it is alive.
pub(super) const HEARTBEAT: Duration = Duration::from_secs(10);

/// The SSE response for a run's events after `after`: the stored backlog, then live
/// events, with heartbeat comments; it ends once the run is over and no ask is pending.
/// Whatever is ready goes out in one write, so a busy run costs few syscalls.
pub fn event_stream(
    store: Arc<dyn Store>,
    live: Live,
    tenant_id: String,
    run_id: String,
    after: u64,
    access_ends: impl std::future::Future<Output = ()> + Send + 'static,
    permit: StreamPermit,
) -> axum::response::Response {
    let (subscribing, releasing, run) = (live.clone(), live.clone(), run_id.clone());
    serve(
        live,
        "event stream",
        &tenant_id.clone(),
        access_ends,
        permit,
        move |tx| async move {
            let mut receiver = subscribing.subscribe(&run_id);
            pump(&*store, &mut receiver, &tenant_id, &run_id, after, &tx).await
        },
        move || releasing.release(&run),
    )
}

/// An SSE response fed by `pump` (handed the sending side) until it ends, the server
/// stops (the browser's EventSource notices at once and reconnects, to a restarted server,
/// from its last id) or the viewer loses access (signed out, revoked, removed); then
/// `released` runs. A pump that fails is logged in full with an incident id, and the
/// client told only that, as `event: error` naming the `stream`.
///
/// Every connection opens with `event: tenant` naming the tenant it streams: a page
/// drawn for another one (the session switched tenants in another tab since) reloads
/// rather than show this tenant's changes as its own.
///
/// The body holds the stream's `permit`, so its place is freed the moment the client goes.
pub(super) fn serve<Fut>(
    live: Live,
    stream: &'static str,
    tenant: &str,
    access_ends: impl std::future::Future<Output = ()> + Send + 'static,
    permit: StreamPermit,
    pump: impl FnOnce(tokio::sync::mpsc::Sender<Bytes>) -> Fut,
    released: impl FnOnce() + Send + 'static,
) -> axum::response::Response
where
    Fut: std::future::Future<Output = Result<(), StoreError>> + Send + 'static,
{
    use axum::response::IntoResponse;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    // The channel is empty: the first frame always fits.
    let _ = tx.try_send(Bytes::from(format!("event: tenant\ndata: {tenant}\n\n")));
    let pumping = pump(tx.clone());
    tokio::spawn(async move {
        let pumped = tokio::select! {
            pumped = pumping => pumped,
            () = live.closed() => Ok(()),
            () = access_ends => Ok(()),
        };
        released();
        if let Err(error) = pumped {
            let told = app::error::ApiError::from(error);
            tracing::warn!(stream, "live stream stopped");
            let _ = tx
                .send(Bytes::from(format!(
                    "event: error\ndata: the {stream} failed: {told}\n\n"
                )))
                .await;
        }
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        let _held = &permit;
        rx.poll_recv(cx).map(|next| next.map(Ok::<_, Infallible>))
    });
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
            // A proxy that buffers responses (nginx does by default) would hold events back.
            (
                axum::http::HeaderName::from_static("x-accel-buffering"),
                "no",
            ),
        ],
        axum::body::Body::from_stream(body),
    )
        .into_response()
}

/// Sends what `out` holds as one chunk; false once the client is gone.
pub(super) async fn flush(out: &mut String, tx: &tokio::sync::mpsc::Sender<Bytes>) -> bool {
    if out.is_empty() {
        return true;
    }
    tx.send(Bytes::from(std::mem::take(out))).await.is_ok()
}

/// Events a stream reads from the store at a time: a long run is streamed page by page,
/// never read whole into memory.
const PAGE: u64 = 256;

/// The most a stream gathers before it sends: with the channel's few chunks, a client
/// that stops reading holds about a megabyte here, however long the run.
pub(super) const CHUNK: usize = 64 * 1024;

/// The next page of a run's stored events after `after` (and before `before`).
async fn next_page(
    store: &dyn Store,
    tenant_id: &str,
    run_id: &str,
    after: u64,
    before: Option<u64>,
) -> Result<Vec<RunEvent>, StoreError> {
    let end = after.saturating_add(PAGE + 1);
    let end = before.map_or(end, |before| before.min(end));
    if end <= after.saturating_add(1) {
        return Ok(Vec::new());
    }
    store.events(tenant_id, run_id, after, Some(end)).await
}

/// The stored events of one run, sent to one client.
struct Backlog<'a> {
    store: &'a dyn Store,
    tenant_id: &'a str,
    run_id: &'a str,
    tx: &'a tokio::sync::mpsc::Sender<Bytes>,
}

impl Backlog<'_> {
    /// Sends every stored event after `*last`, a page at a time, moving `*last` on; false
    /// once the client is gone.
    async fn send_after(
        &self,
        last: &mut u64,
        progress: &mut Progress,
        out: &mut String,
    ) -> Result<bool, StoreError> {
        loop {
            let page = next_page(self.store, self.tenant_id, self.run_id, *last, None).await?;
            let Some(final_event) = page.last() else {
                return Ok(true);
            };
            *last = final_event.sequence;
            for event in &page {
                progress.see(event);
                push_frame(out, event);
                if out.len() >= CHUNK && !flush(out, self.tx).await {
                    return Ok(false);
                }
            }
            if !flush(out, self.tx).await {
                return Ok(false);
            }
        }
    }
}

async fn pump(
    store: &dyn Store,
    receiver: &mut broadcast::Receiver<Arc<RunEvent>>,
    tenant_id: &str,
    run_id: &str,
    after: u64,
    tx: &tokio::sync::mpsc::Sender<Bytes>,
) -> Result<(), StoreError> {
    // The receiver subscribed before the backlog is read, so nothing committed in between
    // is missed; sequences filter out what the backlog already delivered.
    let mut progress = Progress::default();
    let mut out = String::new();
    // The run's state so far decides whether the stream may end, even when resuming late.
    let mut seen = 0;
    loop {
        let page = next_page(
            store,
            tenant_id,
            run_id,
            seen,
            Some(after.saturating_add(1)),
        )
        .await?;
        let Some(last) = page.last() else { break };
        seen = last.sequence;
        page.iter().for_each(|event| progress.see(event));
    }
    let backlog = Backlog {
        store,
        tenant_id,
        run_id,
        tx,
    };
    let mut last = after;
    if !backlog
        .send_after(&mut last, &mut progress, &mut out)
        .await?
    {
        return Ok(());
    }
    while !progress.done() {
        let first = match tokio::time::timeout(HEARTBEAT, receiver.recv()).await {
            Err(_) => {
                out.push_str(": heartbeat\n\n");
                if !flush(&mut out, tx).await {
                    return Ok(());
                }
                continue;
            }
            Ok(received) => received,
        };
        let mut received = vec![first];
        // Everything already queued goes out with it.
        loop {
            match receiver.try_recv() {
                Ok(event) => received.push(Ok(event)),
                Err(broadcast::error::TryRecvError::Lagged(skipped)) => {
                    received.push(Err(broadcast::error::RecvError::Lagged(skipped)))
                }
                Err(_) => break,
            }
        }
        for next in received {
            match next {
                Ok(event) if event.sequence <= last => {}
                Ok(event) if Some(event.sequence) == last.checked_add(1) => {
                    progress.see(&event);
                    last = event.sequence;
                    push_frame(&mut out, &event);
                    if out.len() >= CHUNK && !flush(&mut out, tx).await {
                        return Ok(());
                    }
                }
                // A gap (another writer's events reached us out of order) or a lagging
                // receiver: the store has everything, in order.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    if !backlog
                        .send_after(&mut last, &mut progress, &mut out)
                        .await?
                    {
                        return Ok(());
                    }
                }
                Err(broadcast::error::RecvError::Closed) => {
                    flush(&mut out, tx).await;
                    return Ok(());
                }
            }
        }
        if !flush(&mut out, tx).await {
            return Ok(());
        }
    }
    // Said before the stream closes, so a client does not take the close for a drop and
    // reconnect (a hidden tab has not applied the run's end yet).
    out.push_str(RUN_OVER);
    flush(&mut out, tx).await;
    Ok(())
}

/// The frame that ends a run's stream: the run is over and no ask waits.
pub const RUN_OVER: &str = "event: end\ndata: the run is over\n\n";

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use app::protocol::agui::asks::{InterruptSource, ask_from_interrupt};
    use app::protocol::ask::{AskKind, AskState};
    use app::protocol::channel::{Channel, EventBody, RunEvent, RunOutcome, RunRef};

    use super::Progress;

    fn seen(bodies: Vec<EventBody>) -> Progress {
        let run = Arc::new(RunRef::new("acme", "th", "r1"));
        let mut progress = Progress::default();
        for (sequence, body) in bodies.into_iter().enumerate() {
            progress.see(&RunEvent {
                run: run.clone(),
                sequence: sequence as u64 + 1,
                channel: Channel::System,
                body,
                ts: 1,
                upstream: None,
            });
        }
        progress
    }

    fn opened(id: &str) -> EventBody {
        let interrupt =
            serde_json::json!({"id": id, "reason": "confirmation", "message": "Go on?"});
        EventBody::AskOpened {
            ask: Box::new(ask_from_interrupt(&interrupt, InterruptSource::Outcome).unwrap()),
        }
    }

    fn closed(id: &str, state: AskState) -> EventBody {
        EventBody::AskClosed {
            ask_id: id.into(),
            ask_kind: AskKind::Approval,
            state: Box::new(state),
        }
    }

    fn paused() -> EventBody {
        EventBody::RunFinished {
            outcome: RunOutcome::Interrupted {
                ask_ids: vec!["a".into(), "b".into()],
            },
        }
    }

    #[test]
    fn a_stream_ends_only_once_the_run_is_over_and_no_ask_waits() {
        let started = || EventBody::RunStarted {
            protocol_version: None,
        };
        assert!(!seen(vec![started(), opened("a"), opened("b"), paused()]).done());
        let answered = seen(vec![
            started(),
            opened("a"),
            opened("b"),
            paused(),
            closed("a", AskState::Expired),
            closed("b", AskState::Expired),
        ]);
        assert!(answered.done());
    }

    #[test]
    fn an_ask_the_console_reopened_keeps_the_stream_open() {
        let progress = seen(vec![
            opened("a"),
            opened("b"),
            paused(),
            closed("a", AskState::Expired),
            closed("a", AskState::Pending),
            closed("b", AskState::Expired),
        ]);
        assert!(!progress.done(), "ask a waits again");
        // A second close of one ask, or an ask opened again after its answer, moves nothing.
        let progress = seen(vec![
            opened("a"),
            paused(),
            closed("a", AskState::Expired),
            closed("a", AskState::Expired),
            opened("a"),
        ]);
        assert!(progress.done());
    }

    #[tokio::test]
    async fn a_client_that_stops_reading_holds_a_few_small_chunks_not_the_run() {
        use crate::store::NewRun;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("store.db").display());
        let store = crate::store::open(&url).await.unwrap();
        let thread = store.create_thread("default", "th", None, 1).await.unwrap();
        store
            .create_run(&NewRun {
                id: "long".into(),
                tenant_id: "default".into(),
                thread_id: thread.id,
                agent: "demo".into(),
                input: serde_json::json!({}),
                created_at_ms: 1,
            })
            .await
            .unwrap();
        // 4,000 events of about 2 KB: 8 MB of frames.
        let delta = "x".repeat(2_000);
        for _ in 0..8 {
            let drafts = (0..500)
                .map(|_| {
                    app::protocol::channel::EventDraft::new(
                        EventBody::TextDelta {
                            message_id: "m".into(),
                            delta: delta.clone(),
                        },
                        None,
                        None,
                    )
                })
                .collect();
            store
                .append("default", "long", &[], drafts, 2)
                .await
                .unwrap();
        }
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let sending = {
            let store = store.clone();
            tokio::spawn(async move {
                let backlog = super::Backlog {
                    store: &*store,
                    tenant_id: "default",
                    run_id: "long",
                    tx: &tx,
                };
                let (mut last, mut out) = (0, String::new());
                backlog
                    .send_after(&mut last, &mut Progress::default(), &mut out)
                    .await
                    .unwrap();
                last
            })
        };
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert!(!sending.is_finished(), "the sender waits for the client");
        let mut held = Vec::new();
        while let Ok(chunk) = rx.try_recv() {
            held.push(chunk);
        }
        let sizes: Vec<usize> = held.iter().map(|chunk| chunk.len()).collect();
        assert_eq!(sizes.len(), 4, "{sizes:?}");
        assert!(
            sizes.iter().all(|&bytes| bytes < super::CHUNK + 4_096),
            "{sizes:?}"
        );
        // Read on, the client gets every event once, in order.
        let mut ids = Vec::new();
        let mut take = |chunk: &[u8]| {
            let text = std::str::from_utf8(chunk).unwrap();
            ids.extend(
                text.lines()
                    .filter_map(|line| line.strip_prefix("id: "))
                    .map(|id| id.parse::<u64>().unwrap()),
            );
        };
        held.iter().for_each(|chunk| take(chunk));
        let reading = async {
            while let Some(chunk) = rx.recv().await {
                take(&chunk);
            }
        };
        let (last, ()) = tokio::join!(sending, reading);
        assert_eq!(last.unwrap(), 4_000);
        assert_eq!(ids, (1..=4_000).collect::<Vec<u64>>());
    }

    #[test]
    fn a_run_that_fails_with_asks_open_ends_its_stream() {
        let failed = EventBody::RunFailed {
            message: "cut off".into(),
            code: None,
        };
        assert!(seen(vec![opened("a"), failed.clone()]).done());
        // A failure reported after the run paused leaves its asks waiting.
        assert!(!seen(vec![opened("a"), paused(), failed]).done());
    }
}
