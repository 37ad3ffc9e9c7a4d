//! Live fan-out: stored events are published per run after their transaction commits,
//! and served as Server-Sent Events that resume from any sequence without a gap or a
//! duplicate.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::protocol::channel::{EventBody, RunEvent};
use axum::body::Bytes;
use tokio::sync::broadcast;

use crate::store::{Store, StoreError};

/// How many events a slow subscriber may fall behind before it re-reads the store.
const CHANNEL_CAPACITY: usize = 1024;

/// Per-run broadcast channels.
#[derive(Clone, Default)]
pub struct Live {
    runs: Arc<Mutex<HashMap<String, broadcast::Sender<Arc<RunEvent>>>>>,
}

impl Live {
    pub fn subscribe(&self, run_id: &str) -> broadcast::Receiver<Arc<RunEvent>> {
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        runs.entry(run_id.to_owned())
            .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
            .subscribe()
    }

    /// Hands committed events to every subscriber of their run.
    pub fn publish(&self, events: &[RunEvent]) {
        let Some(first) = events.first() else {
            return;
        };
        let mut runs = self
            .runs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let run_id = first.run_id().to_string();
        if let Some(sender) = runs.get(&run_id) {
            for event in events {
                // No receiver is not an error: nobody is watching this run right now.
                let _ = sender.send(Arc::new(event.clone()));
            }
            if sender.receiver_count() == 0 {
                runs.remove(&run_id);
            }
        }
    }
}

/// Whether a stream of this run can end: its run is over and no ask waits.
#[derive(Default)]
struct Progress {
    terminal: bool,
    open_asks: i64,
}

impl Progress {
    fn see(&mut self, event: &RunEvent) {
        match &event.body {
            EventBody::RunFinished { .. } | EventBody::RunFailed { .. } => self.terminal = true,
            EventBody::RunStarted { .. } => self.terminal = false,
            EventBody::AskOpened { .. } => self.open_asks += 1,
            EventBody::AskClosed { .. } => self.open_asks -= 1,
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.terminal && self.open_asks <= 0
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

const HEARTBEAT: Duration = Duration::from_secs(10);

/// The SSE response for a run's events after `after`: the stored backlog, then live
/// events, with heartbeat comments; it ends once the run is over and no ask is pending.
/// Whatever is ready goes out in one write, so a busy run costs few syscalls.
pub fn event_stream(
    store: Arc<dyn Store>,
    live: Live,
    tenant_id: String,
    run_id: String,
    after: u64,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        if let Err(error) = pump(&*store, &live, &tenant_id, &run_id, after, &tx).await {
            tracing::warn!(%run_id, %error, "live stream stopped");
            let _ = tx
                .send(Bytes::from(format!(
                    "event: error\ndata: the event stream failed: {error}\n\n"
                )))
                .await;
        }
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|next| next.map(Ok::<_, Infallible>))
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

/// Sends what `out` holds as one chunk; false once the client is gone.
async fn flush(out: &mut String, tx: &tokio::sync::mpsc::Sender<Bytes>) -> bool {
    if out.is_empty() {
        return true;
    }
    tx.send(Bytes::from(std::mem::take(out))).await.is_ok()
}

async fn pump(
    store: &dyn Store,
    live: &Live,
    tenant_id: &str,
    run_id: &str,
    after: u64,
    tx: &tokio::sync::mpsc::Sender<Bytes>,
) -> Result<(), StoreError> {
    // Subscribe before reading the backlog, so nothing committed in between is missed;
    // sequences filter out what the backlog already delivered.
    let mut receiver = live.subscribe(run_id);
    let mut progress = Progress::default();
    let mut last = after;
    let mut out = String::new();
    // The run's state so far decides whether the stream may end, even when resuming late.
    for event in store.events(tenant_id, run_id, 0, Some(after + 1)).await? {
        progress.see(&event);
    }
    for event in store.events(tenant_id, run_id, after, None).await? {
        progress.see(&event);
        last = event.sequence;
        push_frame(&mut out, &event);
        if out.len() > 64 * 1024 && !flush(&mut out, tx).await {
            return Ok(());
        }
    }
    if !flush(&mut out, tx).await {
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
                Ok(event) if event.sequence == last + 1 => {
                    progress.see(&event);
                    last = event.sequence;
                    push_frame(&mut out, &event);
                }
                // A gap (another writer's events reached us out of order) or a lagging
                // receiver: the store has everything, in order.
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    for event in store.events(tenant_id, run_id, last, None).await? {
                        progress.see(&event);
                        last = event.sequence;
                        push_frame(&mut out, &event);
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
    Ok(())
}
