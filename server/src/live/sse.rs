//! A run's events as Server-Sent Events: the stored backlog page by page, then live
//! events as they commit, with heartbeats; resumable from any sequence (`Last-Event-ID`).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use app::protocol::channel::{EventBody, RunEvent};
use axum::body::Bytes;
use tokio::sync::broadcast;

use super::Live;
use crate::store::{Store, StoreError};

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
) -> axum::response::Response {
    let (subscribing, releasing, run) = (live.clone(), live.clone(), run_id.clone());
    serve(
        live,
        "event stream",
        access_ends,
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
pub(super) fn serve<Fut>(
    live: Live,
    stream: &'static str,
    access_ends: impl std::future::Future<Output = ()> + Send + 'static,
    pump: impl FnOnce(tokio::sync::mpsc::Sender<Bytes>) -> Fut,
    released: impl FnOnce() + Send + 'static,
) -> axum::response::Response
where
    Fut: std::future::Future<Output = Result<(), StoreError>> + Send + 'static,
{
    use axum::response::IntoResponse;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(16);
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
pub(super) async fn flush(out: &mut String, tx: &tokio::sync::mpsc::Sender<Bytes>) -> bool {
    if out.is_empty() {
        return true;
    }
    tx.send(Bytes::from(std::mem::take(out))).await.is_ok()
}

/// Events a stream reads from the store at a time: a long run is streamed page by page,
/// never read whole into memory.
const PAGE: u64 = 1000;

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
        let page = next_page(store, tenant_id, run_id, seen, Some(after + 1)).await?;
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
                Ok(event) if event.sequence == last + 1 => {
                    progress.see(&event);
                    last = event.sequence;
                    push_frame(&mut out, &event);
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
    Ok(())
}
