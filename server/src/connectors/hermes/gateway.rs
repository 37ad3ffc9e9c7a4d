//! Hermes gateways, reached over stdio or a WebSocket (`transport`): frames in are
//! routed by session to the run they belong to and normalized there; answers out are the
//! `*.respond` calls or JSON-RPC replies the core maps receipts to.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use app::protocol::channel::{EventBody, EventDraft};
use app::protocol::hermes::{HermesNormalizer, is_supported_request, unsupported_request_reply};
use app::protocol::receipts::GatewayAnswer;
use serde_json::{Value, json};
use tokio::process::Child;
use tokio::sync::{Mutex, mpsc, oneshot};

mod silence;
mod transport;

pub use transport::{PASSED_ENV, TENANT_ENV};

use super::turns::{LiveTurns, event_type, stopped_turn_reply};
use crate::recorder::Recorder;
use crate::store::Store;

/// The run a session's frames belong to while its turn lasts.
struct Route {
    tenant_id: String,
    run_id: String,
    normalizer: HermesNormalizer,
    done: Option<oneshot::Sender<()>>,
    /// Routed while a stopped turn of the session had not ended: that turn's frames are
    /// skipped until its `message.complete`.
    after_stopped_turn: bool,
    /// When the session last said anything (or its last open ask was answered).
    heard: Instant,
}

/// The JSON-RPC error code of a call naming a session the gateway does not know (never
/// had, or reclaimed when idle).
const SESSION_NOT_FOUND: i64 = 4001;

/// A call's JSON-RPC error as text: its code, then its message.
fn rpc_error(error: &Value) -> String {
    format!(
        "error {}: {}",
        error.get("code").cloned().unwrap_or(Value::Null),
        error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message")
    )
}

/// Whether a call failed because the gateway does not know its session.
fn session_not_found(error: &str) -> bool {
    error.starts_with(&format!("error {SESSION_NOT_FOUND}:"))
}

/// Whether these events end their run.
fn ends_run(drafts: &[EventDraft]) -> bool {
    drafts.iter().any(|draft| {
        matches!(
            draft.body,
            EventBody::RunFinished { .. } | EventBody::RunFailed { .. }
        )
    })
}

/// A call written to the gateway, waiting for its reply.
struct Sent {
    id: u64,
    receiver: oneshot::Receiver<Result<Value, String>>,
}

/// The most runs remembered as stopped before their prompt went out: a stop for a run
/// that never launches is forgotten once this many wait.
const STOPPED_EARLY_KEPT: usize = 1024;

/// Frames queued in either direction before the sender waits: a gateway that floods the
/// console, or stops reading, holds a bounded amount of memory here.
const QUEUE: usize = 256;

pub struct HermesGateway {
    name: String,
    /// Frames to send; a writer task owns the transport.
    out: mpsc::Sender<String>,
    child: Mutex<Option<Child>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
    sessions: Mutex<HashMap<(String, String), String>>,
    routes: Mutex<HashMap<String, Route>>,
    /// Runs stopped while their turn was still launching (opening the session): their
    /// prompt is never sent. Guarded together with `routes`.
    stopped_early: std::sync::Mutex<HashSet<String>>,
    turns: LiveTurns,
    recorder: Recorder,
    store: Arc<dyn Store>,
    alive: std::sync::atomic::AtomicBool,
}

impl HermesGateway {
    /// The gateway over a transport: frames to send go to `out`, frames received come
    /// from `incoming`.
    fn start(
        name: &str,
        out: mpsc::Sender<String>,
        incoming: mpsc::Receiver<String>,
        child: Option<Child>,
        recorder: Recorder,
        store: Arc<dyn Store>,
    ) -> Arc<Self> {
        let gateway = Arc::new(Self {
            name: name.to_owned(),
            out,
            child: Mutex::new(child),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            sessions: Mutex::new(HashMap::new()),
            routes: Mutex::new(HashMap::new()),
            stopped_early: std::sync::Mutex::new(HashSet::new()),
            turns: LiveTurns::default(),
            recorder,
            store,
            alive: std::sync::atomic::AtomicBool::new(true),
        });
        let reader = Arc::clone(&gateway);
        tokio::spawn(async move { reader.read(incoming).await });
        gateway
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    async fn write(&self, frame: &Value) -> Result<(), String> {
        self.out
            .send(frame.to_string())
            .await
            .map_err(|_| format!("the gateway {:?} is gone", self.name))
    }

    /// Calls `method` and waits for its result (or its JSON-RPC error, as text).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let sent = self.send_request(method, params).await?;
        self.reply_to(sent, method).await
    }

    /// Writes a call to `method`; its reply is awaited with [`Self::reply_to`].
    async fn send_request(&self, method: &str, params: Value) -> Result<Sent, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (sender, receiver) = oneshot::channel();
        self.pending.lock().await.insert(id, sender);
        if let Err(error) = self
            .write(&app::protocol::hermes::request_frame(id, method, params))
            .await
        {
            self.pending.lock().await.remove(&id);
            return Err(error);
        }
        Ok(Sent { id, receiver })
    }

    async fn reply_to(&self, sent: Sent, method: &str) -> Result<Value, String> {
        let Sent { id, receiver } = sent;
        match tokio::time::timeout(Duration::from_secs(30), receiver).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(format!(
                "the gateway {:?} exited before answering {method}",
                self.name
            )),
            Err(_) => {
                // An answer that comes later has no one waiting for it.
                self.pending.lock().await.remove(&id);
                Err(format!(
                    "the gateway {:?} did not answer {method} within 30 s",
                    self.name
                ))
            }
        }
    }

    async fn read(self: Arc<Self>, mut incoming: mpsc::Receiver<String>) {
        while let Some(line) = incoming.recv().await {
            if line.trim().is_empty() {
                continue;
            }
            let frame: Value = match serde_json::from_str(&line) {
                Ok(frame) => frame,
                Err(error) => {
                    tracing::warn!(gateway = %self.name, %error, "unreadable frame from the gateway");
                    continue;
                }
            };
            self.dispatch(frame, &line).await;
        }
        self.alive.store(false, Ordering::SeqCst);
        self.turns.clear();
        // Whoever waits for a reply will not get one; every open turn ends failed.
        self.pending.lock().await.clear();
        let routes: Vec<Route> = self
            .routes
            .lock()
            .await
            .drain()
            .map(|(_, route)| route)
            .collect();
        for mut route in routes {
            let mut drafts = Vec::new();
            route.normalizer.finish(&mut drafts);
            // A turn whose prompt went out but that had not begun (the agent was still
            // being built) ends failed too.
            if !ends_run(&drafts) {
                route.normalizer.fail(
                    "the gateway exited before the turn began",
                    "gateway_exited",
                    &mut drafts,
                );
            }
            self.end_route(route, drafts).await;
        }
        if let Some(child) = self.child.lock().await.as_mut() {
            let _ = child.wait().await;
        }
        tracing::warn!(gateway = %self.name, "the Hermes gateway exited");
    }

    /// Records a route's last events (its run's end) and wakes whoever waits for it.
    async fn end_route(&self, mut route: Route, drafts: Vec<EventDraft>) {
        if let Err(error) = self
            .recorder
            .record(&route.tenant_id, &route.run_id, &[], drafts)
            .await
        {
            tracing::error!(%error, run_id = %route.run_id, "could not record the end of a Hermes turn");
        }
        if let Some(done) = route.done.take() {
            let _ = done.send(());
        }
    }

    async fn dispatch(&self, frame: Value, line: &str) {
        let method = frame.get("method").and_then(Value::as_str);
        let id = frame.get("id");
        if method.is_none() {
            if let Some(id) = id.and_then(Value::as_u64) {
                // Under the routes' lock, which the prompt's sender holds until the
                // prompt is noted; read in order with the frames, the next of which may
                // be the turn's first.
                let mut routes = self.routes.lock().await;
                if let Some(session) = self.turns.prompt_answered(id, &frame)
                    && let Some(route) = routes.get_mut(&session)
                {
                    route.after_stopped_turn = false;
                }
            }
            if let Some(id) = id.and_then(Value::as_u64)
                && let Some(waiter) = self.pending.lock().await.remove(&id)
            {
                let result = match frame.get("error") {
                    Some(error) => Err(rpc_error(error)),
                    None => Ok(frame.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = waiter.send(result);
            }
            return;
        }
        if let (Some(method), Some(Value::String(rpc_id))) = (method, id)
            && !is_supported_request(method)
        {
            let _ = self.write(&unsupported_request_reply(rpc_id, method)).await;
        }
        let session = frame
            .pointer("/params/session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let event = event_type(&frame).map(str::to_owned);
        if event.as_deref() == Some("session.reclaimed") {
            self.forget_session(&session).await;
        }
        // Under the routes' lock, as a new route reads it: a turn's end is never seen
        // between a route's check and the frame it concerns.
        let mut routes = self.routes.lock().await;
        self.turns.see(&session, event.as_deref());
        let Some(route) = routes.get_mut(&session) else {
            return;
        };
        route.heard = Instant::now();
        if route.after_stopped_turn {
            if event.as_deref() == Some("message.complete") {
                route.after_stopped_turn = false;
            }
            // (A request this console does not handle was answered above.)
            if let (Some(method), Some(Value::String(rpc_id))) = (method, id)
                && is_supported_request(method)
            {
                let _ = self.write(&stopped_turn_reply(rpc_id)).await;
            }
            tracing::debug!(gateway = %self.name, run_id = %route.run_id, "skipped a frame of the session's stopped turn");
            return;
        }
        let position = route.normalizer.upstream_count();
        let mut drafts = Vec::new();
        route.normalizer.arriving_at(crate::clock::now_ms());
        route.normalizer.push_value(frame, &mut drafts);
        let finished = ends_run(&drafts);
        let (tenant_id, run_id) = (route.tenant_id.clone(), route.run_id.clone());
        let upstream = [crate::store::UpstreamEvent {
            position,
            body: line.to_owned(),
        }];
        if let Err(error) = self
            .recorder
            .record(&tenant_id, &run_id, &upstream, drafts)
            .await
        {
            tracing::error!(%run_id, %error, "could not store a Hermes frame");
        }
        if finished
            && let Some(mut route) = routes.remove(&session)
            && let Some(done) = route.done.take()
        {
            let _ = done.send(());
        }
    }

    /// The gateway session of a thread: the live one, else the thread's stored session
    /// resumed (after a restart of either side), else a new one.
    async fn session(&self, tenant_id: &str, thread_id: &str) -> Result<String, String> {
        let key = (tenant_id.to_owned(), thread_id.to_owned());
        if let Some(session) = self.sessions.lock().await.get(&key) {
            return Ok(session.clone());
        }
        let stored = self
            .store
            .thread_session(tenant_id, thread_id)
            .await
            .map_err(|error| app::error::ApiError::from(error).to_string())?;
        let opened = match &stored {
            Some(stored) => {
                self.request(
                    "session.resume",
                    json!({ "session_id": stored, "cols": 100 }),
                )
                .await
            }
            None => Err(String::new()),
        };
        let opened = match opened {
            Ok(resumed) => resumed,
            // Nothing stored, or the gateway no longer knows it: a new session.
            Err(error) if stored.is_none() || session_not_found(&error) => {
                self.request("session.create", json!({ "cols": 100, "cwd": "." }))
                    .await?
            }
            // Any other failure (a slow or unavailable session store) leaves the thread's
            // session as it is: a new one would cut the thread off its conversation.
            Err(error) => {
                return Err(format!(
                    "the gateway could not resume the thread's session: {error}"
                ));
            }
        };
        let session = opened
            .get("session_id")
            .and_then(Value::as_str)
            .ok_or("the gateway returned no session_id")?
            .to_owned();
        if let Some(durable) = opened.get("stored_session_id").and_then(Value::as_str)
            && stored.as_deref() != Some(durable)
        {
            self.store
                .set_thread_session(tenant_id, thread_id, durable)
                .await
                .map_err(|error| app::error::ApiError::from(error).to_string())?;
        }
        self.sessions.lock().await.insert(key, session.clone());
        Ok(session)
    }

    /// Submits a prompt as the turn of run `run_id`; frames of the session go to it. A
    /// run stopped while its session opened sends nothing: its stop is already recorded.
    pub async fn start_turn(
        &self,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        text: &str,
    ) -> Result<(), String> {
        let session = self.session(tenant_id, thread_id).await?;
        let submitted = match self.submit(tenant_id, &session, run_id, text).await {
            // The gateway no longer knows the live session (it reclaimed it while idle):
            // the prompt never ran, so the thread's stored session is resumed and the
            // prompt sent to it, once.
            Err(error) if session_not_found(&error) => {
                self.forget_session(&session).await;
                let session = self.session(tenant_id, thread_id).await?;
                self.submit(tenant_id, &session, run_id, text).await
            }
            submitted => submitted,
        };
        submitted.map_err(|error| format!("the gateway refused the prompt: {error}"))
    }

    /// Routes `session` to run `run_id` and submits its prompt; unrouted again if the
    /// gateway does not take it.
    async fn submit(
        &self,
        tenant_id: &str,
        session: &str,
        run_id: &str,
        text: &str,
    ) -> Result<(), String> {
        let submitted = {
            // Routed and written under the routes' lock: a stop finds either no route (and
            // is remembered here) or one whose prompt is already ahead of its interrupt.
            let mut routes = self.routes.lock().await;
            if self.stopped_early().remove(run_id) {
                return Ok(());
            }
            routes.insert(
                session.to_owned(),
                Route {
                    tenant_id: tenant_id.to_owned(),
                    run_id: run_id.to_owned(),
                    normalizer: HermesNormalizer::new(),
                    done: None,
                    after_stopped_turn: self.turns.is_live(session),
                    heard: Instant::now(),
                },
            );
            let sent = self
                .send_request(
                    "prompt.submit",
                    json!({ "session_id": session, "text": text }),
                )
                .await;
            // Live from its prompt on: a turn stopped before its `message.start` is
            // still ahead of the next prompt.
            if let Ok(sent) = &sent {
                self.turns.prompt_sent(sent.id, session);
            }
            sent
        };
        // Never auto-retried: a lost prompt is reported, not resent (it might run twice).
        let replied = match submitted {
            Ok(sent) => self.reply_to(sent, "prompt.submit").await,
            Err(error) => Err(error),
        };
        match replied {
            Ok(_) => Ok(()),
            Err(error) => {
                self.unroute(session, run_id).await;
                Err(error)
            }
        }
    }

    /// Forgets the live session `live` of whichever thread had it: the thread's next turn
    /// resumes its stored session.
    async fn forget_session(&self, live: &str) {
        self.sessions
            .lock()
            .await
            .retain(|_, session| session != live);
    }

    /// Stops routing `session`'s frames to run `run_id`, and only to it: the session may
    /// serve the thread's next run by now.
    async fn unroute(&self, session: &str, run_id: &str) {
        let mut routes = self.routes.lock().await;
        if routes
            .get(session)
            .is_some_and(|route| route.run_id == run_id)
        {
            routes.remove(session);
        }
    }

    fn stopped_early(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.stopped_early
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends an accepted answer and stops the run's normalizer from expiring that ask.
    pub async fn answer(
        &self,
        run_id: &str,
        ask_id: &str,
        answer: GatewayAnswer,
    ) -> Result<(), String> {
        if let Some(route) = self
            .routes
            .lock()
            .await
            .values_mut()
            .find(|route| route.run_id == run_id)
        {
            route.normalizer.mark_closed(ask_id);
            // The turn goes on from here: its silence counts from the answer.
            route.heard = Instant::now();
        }
        match answer {
            GatewayAnswer::HermesCall { method, params } => {
                let result = self.request(&method, params).await?;
                // Hermes answers a request it no longer waits for (timed out, withdrawn)
                // with `resolved: 0` or `status: "expired"`, not an error.
                let expired = result.get("resolved").and_then(Value::as_u64) == Some(0)
                    || result.get("status").and_then(Value::as_str) == Some("expired");
                if expired {
                    return Err(format!(
                        "the gateway no longer waited for it ({method} answered {result})"
                    ));
                }
                Ok(())
            }
            GatewayAnswer::HermesReply { id, result } => {
                self.write(&json!({ "jsonrpc": "2.0", "id": id, "result": result }))
                    .await
            }
            GatewayAnswer::AgUiToolMessage { .. } => {
                Err("an AG-UI answer cannot go to a Hermes gateway".into())
            }
        }
    }

    /// Interrupts a run's turn; returns once the gateway ended it (or after a grace).
    pub async fn interrupt(&self, run_id: &str) -> Result<bool, String> {
        let (session, receiver) = {
            let mut routes = self.routes.lock().await;
            let Some((session, route)) =
                routes.iter_mut().find(|(_, route)| route.run_id == run_id)
            else {
                // Still launching (or its turn already gone): no prompt goes out for it.
                let mut stopped = self.stopped_early();
                if stopped.len() >= STOPPED_EARLY_KEPT {
                    stopped.clear();
                }
                stopped.insert(run_id.to_owned());
                return Ok(false);
            };
            let (sender, receiver) = oneshot::channel();
            route.done = Some(sender);
            (session.clone(), receiver)
        };
        if let Err(error) = self
            .request("session.interrupt", json!({ "session_id": session }))
            .await
        {
            // The console records the stop itself; the turn's frames go nowhere now.
            self.unroute(&session, run_id).await;
            return Err(error);
        }
        let ended = tokio::time::timeout(Duration::from_secs(5), receiver)
            .await
            .is_ok();
        if !ended {
            self.unroute(&session, run_id).await;
        }
        Ok(ended)
    }
}
