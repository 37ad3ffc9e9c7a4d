//! A turn of the demo gateway: the frames it sends for its session, the asks it raises in
//! either form and waits on, and the interrupt that ends it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Mutex, oneshot};

use super::{Out, Shared, event, write};

/// Waits for the answer to an ask (or gives up after a minute, like Hermes' timeouts;
/// `AGENT_OS_DEMO_ASK_TIMEOUT_MS` sets another limit).
async fn wait(receiver: oneshot::Receiver<Value>) -> Option<Value> {
    let limit = std::env::var("AGENT_OS_DEMO_ASK_TIMEOUT_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .unwrap_or(60_000);
    tokio::time::timeout(Duration::from_millis(limit), receiver)
        .await
        .ok()?
        .ok()
}

/// One prompt's turn in a session, and the ask form its prompt chose.
pub(super) struct Turn {
    pub(super) out: Out,
    pub(super) shared: Arc<Mutex<Shared>>,
    pub(super) session: String,
    /// The newer ask form: server requests answered by JSON-RPC responses.
    pub(super) newer: bool,
    /// The session's interrupts sent before this turn's prompt: any later one stops it.
    stops_before: u64,
    /// Ended by an interrupt while it waited on an answer: it says nothing more.
    ended: AtomicBool,
}

impl Turn {
    pub(super) fn new(
        out: Out,
        shared: Arc<Mutex<Shared>>,
        session: String,
        stops_before: u64,
        newer: bool,
    ) -> Turn {
        Turn {
            out,
            shared,
            session,
            newer,
            stops_before,
            ended: AtomicBool::new(false),
        }
    }

    pub(super) async fn event(&self, kind: &str, payload: Value) {
        if self.ended.load(Ordering::SeqCst) {
            return;
        }
        event(&self.out, &self.session, kind, payload).await;
    }

    pub(super) async fn say(&self, text: &str) {
        for word in text.split_inclusive(' ') {
            self.event("message.delta", json!({"text": word})).await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    pub(super) async fn interrupted(&self) -> bool {
        self.shared
            .lock()
            .await
            .interrupts
            .get(&self.session)
            .is_some_and(|sent| *sent > self.stops_before)
    }

    pub(super) async fn complete(&self, text: &str, status: &str) {
        self.event(
            "message.complete",
            json!({"text": text, "status": status, "usage": {"total": 10}}),
        )
        .await;
    }

    /// Raises an ask in the chosen form; returns the answer (older: the respond params,
    /// newer: the JSON-RPC result).
    pub(super) async fn ask(
        &self,
        older_kind: &str,
        newer_method: &str,
        mut payload: Value,
    ) -> Option<Value> {
        let (sender, receiver) = oneshot::channel();
        let id = {
            let mut shared = self.shared.lock().await;
            shared.next += 1;
            if self.newer {
                format!("srq-{:012x}", shared.next)
            } else {
                format!("req-{}", shared.next)
            }
        };
        if self.newer {
            self.shared.lock().await.waiting.insert(id.clone(), sender);
            payload["session_id"] = json!(self.session);
            write(
                &self.out,
                json!({"jsonrpc": "2.0", "id": id, "method": newer_method, "params": payload}),
            )
            .await;
        } else if older_kind == "approval.request" {
            self.shared
                .lock()
                .await
                .approvals
                .push((self.session.clone(), sender));
            self.event(older_kind, payload).await;
        } else {
            self.shared.lock().await.waiting.insert(id.clone(), sender);
            payload["request_id"] = json!(id);
            self.event(older_kind, payload).await;
        }
        // An interrupt ends the turn at once, as the gateway ends a turn stopped while it
        // waits on the user: the session takes its next prompt.
        let answer = tokio::select! {
            answer = wait(receiver) => answer,
            () = self.until_interrupted() => {
                self.complete("", "interrupted").await;
                self.ended.store(true, Ordering::SeqCst);
                None
            }
        };
        let mut shared = self.shared.lock().await;
        shared.approvals.retain(|(_, waiter)| !waiter.is_closed());
        shared.waiting.retain(|_, waiter| !waiter.is_closed());
        answer
    }

    async fn until_interrupted(&self) {
        while !self.interrupted().await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
