//! Live fan-out: stored events are published per run after their transaction commits,
//! and served as Server-Sent Events that resume from any sequence without a gap or a
//! duplicate.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::protocol::channel::{EventBody, RunEvent};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
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
        let run_id = first.run_id.to_string();
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

fn frame(event: &RunEvent) -> Event {
    let data = serde_json::to_string(event).unwrap_or_else(|error| {
        format!(
            "{{\"error\":\"event {} could not be encoded: {error}\"}}",
            event.sequence
        )
    });
    Event::default().id(event.sequence.to_string()).data(data)
}

/// The SSE stream of a run's events after `after`: the stored backlog, then live events,
/// with heartbeats; it ends once the run is over and no ask is pending.
pub fn event_stream(
    store: Arc<dyn Store>,
    live: Live,
    tenant_id: String,
    run_id: String,
    after: u64,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let stream = async_stream(store, live, tenant_id, run_id, after);
    Sse::new(stream).keep_alive(
        KeepAlive::new()
            .interval(Duration::from_secs(10))
            .text("heartbeat"),
    )
}

fn async_stream(
    store: Arc<dyn Store>,
    live: Live,
    tenant_id: String,
    run_id: String,
    after: u64,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Event>(64);
    tokio::spawn(async move {
        if let Err(error) = pump(&*store, &live, &tenant_id, &run_id, after, &tx).await {
            tracing::warn!(%run_id, %error, "live stream stopped");
            let _ = tx
                .send(
                    Event::default()
                        .event("error")
                        .data(format!("the event stream failed: {error}")),
                )
                .await;
        }
    });
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx).map(|next| next.map(Ok)))
}

async fn pump(
    store: &dyn Store,
    live: &Live,
    tenant_id: &str,
    run_id: &str,
    after: u64,
    tx: &tokio::sync::mpsc::Sender<Event>,
) -> Result<(), StoreError> {
    // Subscribe before reading the backlog, so nothing committed in between is missed;
    // sequences filter out what the backlog already delivered.
    let mut receiver = live.subscribe(run_id);
    let mut progress = Progress::default();
    let mut last = after;
    // The run's state so far decides whether the stream may end, even when resuming late.
    for event in store.events(tenant_id, run_id, 0, Some(after + 1)).await? {
        progress.see(&event);
    }
    for event in store.events(tenant_id, run_id, after, None).await? {
        progress.see(&event);
        last = event.sequence;
        if tx.send(frame(&event)).await.is_err() {
            return Ok(());
        }
    }
    while !progress.done() {
        match receiver.recv().await {
            Ok(event) if event.sequence <= last => {}
            Ok(event) if event.sequence == last + 1 => {
                progress.see(&event);
                last = event.sequence;
                if tx.send(frame(&event)).await.is_err() {
                    return Ok(());
                }
            }
            // A gap (events committed by another writer reached us out of order) or a
            // lagging receiver: the store has everything, in order.
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                for event in store.events(tenant_id, run_id, last, None).await? {
                    progress.see(&event);
                    last = event.sequence;
                    if tx.send(frame(&event)).await.is_err() {
                        return Ok(());
                    }
                }
            }
            Err(broadcast::error::RecvError::Closed) => return Ok(()),
        }
    }
    Ok(())
}
