//! Runs: starts them, drives an agent's stream into the store (durable first, then live),
//! cancels them, and takes receipts — the first valid one per ask wins, and the answer
//! reaches the agent exactly once.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use app::error::ApiError;
use app::projection::history::{latest_state, messages_from_views};
use app::projection::{RunView, ViewPolicy};
use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::ask::{AskOrigin, AskState, Component};
use app::protocol::channel::{EventBody, EventDraft, Level, RunOutcome};
use app::protocol::limits::excerpt;
use app::protocol::receipts::{
    ReceiptEnvelope, ValidatedAnswer, agui_resume, custom_interrupt_resume, hermes_answer,
    resolved_state, validate,
};
use app::protocol::sse::{SseDecoder, SseFrames};
use app::protocol::status::RunStatus;
use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::agents::{AgentKind, AgentSpec, AgentTimeouts, Agents};
use crate::gateway::{HermesGateway, undelivered};
use crate::live::Live;
use crate::recorder::Recorder;
use crate::store::{AskRecord, NewRun, Resolution, RunRecord, Store, StoreError, UpstreamEvent};
use crate::workspace::now_ms;

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

/// What became of a receipt.
#[derive(Debug)]
pub enum ReceiptOutcome {
    /// This receipt answered the ask.
    Accepted(Box<AskRecord>),
    /// Someone answered first (or the ask expired): here is how it was closed.
    AlreadyClosed(Box<AskRecord>),
}

/// Options of a new run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Decline the protocol diagnosis: apply every event as it comes.
    pub skip_verification: bool,
}

pub struct Runs {
    store: Arc<dyn Store>,
    live: Live,
    recorder: Recorder,
    agents: Agents,
    gateways: tokio::sync::Mutex<HashMap<String, Arc<HermesGateway>>>,
    http: reqwest::Client,
    timeouts: AgentTimeouts,
    active: Mutex<HashMap<String, tokio::task::AbortHandle>>,
    /// Answers waiting for the rest of their run's interrupts. Passwords and secrets
    /// exist only here (and in the request to the agent), never in the store.
    held: Mutex<HashMap<String, ValidatedAnswer>>,
}

impl Runs {
    pub fn new(
        store: Arc<dyn Store>,
        live: Live,
        agents: Agents,
        timeouts: AgentTimeouts,
    ) -> Arc<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .build()
            .unwrap_or_else(|error| {
                tracing::error!(%error, "cannot configure the HTTP client; using the defaults");
                reqwest::Client::new()
            });
        Arc::new(Self {
            timeouts,
            recorder: Recorder::new(store.clone(), live.clone()),
            store,
            live,
            agents,
            gateways: tokio::sync::Mutex::new(HashMap::new()),
            http,
            active: Mutex::new(HashMap::new()),
            held: Mutex::new(HashMap::new()),
        })
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn live(&self) -> &Live {
        &self.live
    }

    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    async fn record(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
    ) -> Result<(), StoreError> {
        self.recorder
            .record(tenant_id, run_id, upstream, drafts)
            .await
    }

    /// The running gateway process of a Hermes agent, started (again) when needed.
    async fn gateway(&self, agent: &AgentSpec) -> Result<Arc<HermesGateway>, ApiError> {
        let AgentKind::Hermes { target } = &agent.kind else {
            return Err(ApiError::Internal(format!(
                "agent {:?} is not a Hermes gateway",
                agent.name
            )));
        };
        let mut gateways = self.gateways.lock().await;
        if let Some(gateway) = gateways.get(&agent.name)
            && gateway.is_alive()
        {
            return Ok(Arc::clone(gateway));
        }
        let gateway = HermesGateway::spawn(
            &agent.name,
            target,
            self.recorder.clone(),
            self.store.clone(),
        )
        .await
        .map_err(ApiError::Conflict)?;
        gateways.insert(agent.name.clone(), Arc::clone(&gateway));
        Ok(gateway)
    }

    /// The agent a thread talks to, binding the default one on first use.
    async fn thread_agent(&self, tenant_id: &str, thread_id: &str) -> Result<AgentSpec, ApiError> {
        if self.store.get_thread(tenant_id, thread_id).await?.is_none() {
            return Err(ApiError::NotFound(format!(
                "thread {thread_id:?} does not exist"
            )));
        }
        let bound = self.store.thread_agent(tenant_id, thread_id).await?;
        match bound {
            Some(name) => self.agents.get(&name).cloned().ok_or_else(|| {
                ApiError::Conflict(format!(
                    "thread {thread_id:?} is bound to agent {name:?}, which is not configured"
                ))
            }),
            None => {
                let agent = self.agents.default_agent().cloned().ok_or_else(|| {
                    ApiError::Conflict(
                        "no agent is configured: start the server with --agent".into(),
                    )
                })?;
                self.store
                    .bind_thread_agent(tenant_id, thread_id, &agent.name)
                    .await?;
                Ok(agent)
            }
        }
    }

    /// The views of a thread's runs so far, oldest first.
    async fn thread_views(
        &self,
        tenant_id: &str,
        thread_id: &str,
    ) -> Result<Vec<RunView>, ApiError> {
        let mut views = Vec::new();
        for run in self.store.list_runs(tenant_id, thread_id).await? {
            let events = self.store.events(tenant_id, &run.id, 0, None).await?;
            views.push(RunView::from_events(ViewPolicy::default(), &events));
        }
        Ok(views)
    }

    /// A user message: starts a run of the thread's agent carrying the thread so far.
    pub async fn send_message(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        text: &str,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ApiError::BadRequest("the message is empty".into()));
        }
        let agent = self.thread_agent(tenant_id, thread_id).await?;
        if self.has_active_run(tenant_id, thread_id).await? {
            return Err(ApiError::Conflict(format!(
                "thread {thread_id:?} already has a run in progress; stop it or wait for it"
            )));
        }
        let run_id = uuid::Uuid::new_v4().to_string();
        let message_id = format!("user-{run_id}");
        let first = vec![EventDraft::new(
            EventBody::UserMessage {
                message_id: message_id.clone(),
                text: text.to_owned(),
            },
            Some(now_ms()),
            None,
        )];
        if let AgentKind::Hermes { .. } = agent.kind {
            return self
                .start_hermes_turn(tenant_id, thread_id, &run_id, &agent, text, first)
                .await;
        }
        let views = self.thread_views(tenant_id, thread_id).await?;
        let mut messages = messages_from_views(&views);
        messages.push(json!({ "id": message_id, "role": "user", "content": text }));
        let input = self.run_input(
            &agent,
            thread_id,
            &run_id,
            None,
            messages,
            latest_state(&views),
        );
        self.start(tenant_id, thread_id, &run_id, agent, input, first, options)
            .await
    }

    /// A Hermes turn: the gateway keeps the conversation; the prompt is all it needs.
    async fn start_hermes_turn(
        &self,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        agent: &AgentSpec,
        text: &str,
        first: Vec<EventDraft>,
    ) -> Result<RunRecord, ApiError> {
        let gateway = self.gateway(agent).await?;
        let run = self
            .store
            .create_run(&NewRun {
                id: run_id.to_owned(),
                tenant_id: tenant_id.to_owned(),
                thread_id: thread_id.to_owned(),
                agent: agent.name.clone(),
                input: json!({ "prompt": text }),
                created_at_ms: now_ms(),
            })
            .await?;
        self.record(tenant_id, run_id, &[], first).await?;
        if let Err(message) = gateway.start_turn(tenant_id, thread_id, run_id, text).await {
            let failed = EventDraft::new(
                EventBody::RunFailed {
                    message,
                    code: Some("gateway".into()),
                },
                Some(now_ms()),
                None,
            );
            self.record(tenant_id, run_id, &[], vec![failed]).await?;
        }
        Ok(run)
    }

    async fn has_active_run(&self, tenant_id: &str, thread_id: &str) -> Result<bool, ApiError> {
        let runs = self.store.list_runs(tenant_id, thread_id).await?;
        Ok(runs.iter().any(|run| run.status == RunStatus::Running))
    }

    fn run_input(
        &self,
        agent: &AgentSpec,
        thread_id: &str,
        run_id: &str,
        parent_run_id: Option<&str>,
        messages: Vec<Value>,
        state: Value,
    ) -> Value {
        let tools = match &agent.kind {
            AgentKind::AgUi { tools, .. } => tools.clone(),
            AgentKind::Hermes { .. } => Vec::new(),
        };
        let mut input = json!({
            "threadId": thread_id,
            "runId": run_id,
            "protocolVersion": "1.0",
            "messages": messages,
            "state": state,
            "tools": tools,
            "context": [],
            "forwardedProps": {},
        });
        if let Some(parent) = parent_run_id {
            input["parentRunId"] = json!(parent);
        }
        input
    }

    #[allow(clippy::too_many_arguments)]
    async fn start(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        agent: AgentSpec,
        input: Value,
        first: Vec<EventDraft>,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        self.start_recorded(
            tenant_id, thread_id, run_id, agent, input, None, first, options,
        )
        .await
    }

    /// Starts a run; `recorded_input`, when given, is what the store keeps of the request
    /// instead of `input` (which may carry a secret for the agent).
    #[allow(clippy::too_many_arguments)]
    async fn start_recorded(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        agent: AgentSpec,
        input: Value,
        recorded_input: Option<Value>,
        first: Vec<EventDraft>,
        options: RunOptions,
    ) -> Result<RunRecord, ApiError> {
        let AgentKind::AgUi { url, .. } = &agent.kind else {
            return Err(ApiError::Internal(format!(
                "agent {:?} is not an AG-UI agent",
                agent.name
            )));
        };
        let run = self
            .store
            .create_run(&NewRun {
                id: run_id.to_owned(),
                tenant_id: tenant_id.to_owned(),
                thread_id: thread_id.to_owned(),
                agent: agent.name.clone(),
                input: recorded_input.unwrap_or_else(|| input.clone()),
                created_at_ms: now_ms(),
            })
            .await?;
        self.record(tenant_id, run_id, &[], first).await?;
        let runs = Arc::clone(self);
        let (tenant, run_key, url) = (tenant_id.to_owned(), run_id.to_owned(), url.clone());
        let task = tokio::spawn(async move {
            runs.drive_agui(&tenant, &run_key, &url, input, options)
                .await;
            runs.forget(&run_key);
        });
        self.remember(run_id, task.abort_handle());
        Ok(run)
    }

    fn remember(&self, run_id: &str, handle: tokio::task::AbortHandle) {
        if let Ok(mut active) = self.active.lock() {
            active.insert(run_id.to_owned(), handle);
        }
    }

    fn forget(&self, run_id: &str) {
        if let Ok(mut active) = self.active.lock() {
            active.remove(run_id);
        }
    }

    /// Reads one AG-UI response into the store. Never panics and never hangs on a
    /// broken agent: every way it can end becomes an event.
    async fn drive_agui(
        &self,
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
        let outcome = self
            .stream_agui(tenant_id, run_id, url, &input, config)
            .await;
        if let Err(message) = outcome {
            let failed = EventDraft::new(
                EventBody::RunFailed {
                    message,
                    code: Some("agent_unreachable".into()),
                },
                Some(now_ms()),
                None,
            );
            if let Err(error) = self.record(tenant_id, run_id, &[], vec![failed]).await {
                tracing::error!(%run_id, %error, "could not record the run's failure");
            }
        }
    }

    async fn stream_agui(
        &self,
        tenant_id: &str,
        run_id: &str,
        url: &str,
        input: &Value,
        config: AgUiConfig,
    ) -> Result<(), String> {
        let request = self
            .http
            .post(url)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(input)
            .send();
        let response = tokio::time::timeout(self.timeouts.first_byte, request)
            .await
            .map_err(|_| {
                format!(
                    "the agent at {url} did not answer within {} s",
                    self.timeouts.first_byte.as_secs_f64()
                )
            })?
            .map_err(|error| format!("the agent at {url} is unreachable: {error}"))?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(format!(
                "the agent answered HTTP {status}: {}",
                excerpt(&body, 300)
            ));
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
                chunk = tokio::time::timeout(self.timeouts.idle, body.next()), if reading && has_room(held_bytes, drafts.len()) => {
                    match chunk {
                        Ok(Some(Ok(bytes))) => decoder.feed(&bytes, &mut frames),
                        Ok(Some(Err(error))) => {
                            broken = Some(format!("the agent's connection broke: {error}"));
                            reading = false;
                        }
                        Ok(None) => reading = false,
                        Err(_) => {
                            broken = Some(format!(
                                "the agent sent nothing for {} s; the console stopped waiting",
                                self.timeouts.idle.as_secs_f64()
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
                    stored.map_err(|error| format!("the run could not be stored: {error}"))?;
                }
            }
            if in_flight.is_none() && !(upstream.is_empty() && drafts.is_empty()) {
                let batch_upstream = std::mem::take(&mut upstream);
                held_bytes = 0;
                let batch_drafts = std::mem::take(&mut drafts);
                in_flight = Some(Box::pin(async move {
                    self.record(tenant_id, run_id, &batch_upstream, batch_drafts)
                        .await
                }));
            }
            if !reading && in_flight.is_none() {
                return Ok(());
            }
        }
    }

    /// Stops a running run: drops the agent's stream (the agent sees the connection
    /// close) and records the cancellation.
    pub async fn cancel(&self, tenant_id: &str, run_id: &str) -> Result<RunRecord, ApiError> {
        let run = self
            .store
            .get_run(tenant_id, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))?;
        if run.status != RunStatus::Running {
            return Err(ApiError::Conflict(format!(
                "run {run_id:?} is not running (it is {})",
                run.status
            )));
        }
        if let Some(agent) = self.agents.get(&run.agent)
            && matches!(agent.kind, AgentKind::Hermes { .. })
        {
            let gateway = self.gateway(agent).await?;
            // The gateway ends the turn itself (status "interrupted"); only if it does
            // not is the cancellation recorded here.
            if gateway.interrupt(run_id).await.unwrap_or(false) {
                return self
                    .store
                    .get_run(tenant_id, run_id)
                    .await?
                    .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")));
            }
        }
        let handle = self
            .active
            .lock()
            .ok()
            .and_then(|mut active| active.remove(run_id));
        if let Some(handle) = handle {
            handle.abort();
        }
        self.record(
            tenant_id,
            run_id,
            &[],
            vec![
                EventDraft::new(
                    EventBody::Notice {
                        level: Level::Warning,
                        text: "Stopped by the operator".into(),
                        source: "console".into(),
                    },
                    Some(now_ms()),
                    None,
                ),
                EventDraft::new(
                    EventBody::RunFinished {
                        outcome: RunOutcome::Cancelled,
                    },
                    Some(now_ms()),
                    None,
                ),
            ],
        )
        .await?;
        self.store
            .get_run(tenant_id, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))
    }

    /// A receipt for the ask `key`. Validated against the stored ask; the first valid
    /// receipt closes it atomically and its answer goes to the agent once.
    pub async fn answer(
        self: &Arc<Self>,
        tenant_id: &str,
        key: &str,
        actor: &str,
        envelope: &ReceiptEnvelope,
    ) -> Result<ReceiptOutcome, ApiError> {
        let record = self
            .store
            .get_ask(tenant_id, key)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("ask {key:?} does not exist")))?;
        let redacted_envelope = |data: &Value| {
            let mut receipt = serde_json::to_value(&envelope.receipt).unwrap_or(Value::Null);
            receipt["data"] = data.clone();
            json!({ "channel": envelope.channel, "receipt": receipt })
        };
        if !record.ask.state.is_pending() {
            self.store
                .record_refused_receipt(
                    tenant_id,
                    key,
                    actor,
                    "late",
                    &redacted_envelope(&json!("not kept")),
                    now_ms(),
                )
                .await?;
            return Ok(ReceiptOutcome::AlreadyClosed(Box::new(record)));
        }
        let answer = match validate(&record.ask, &envelope.receipt) {
            Ok(answer) => answer,
            Err(error) => {
                self.store
                    .record_refused_receipt(
                        tenant_id,
                        key,
                        actor,
                        "invalid",
                        &redacted_envelope(&json!("not kept")),
                        now_ms(),
                    )
                    .await?;
                return Err(ApiError::BadRequest(error.to_string()));
            }
        };
        let mut state = resolved_state(&answer);
        if let AskState::Resolved { answer: recorded } = &mut state {
            recorded.actor = Some(actor.to_owned());
        }
        let resolution = self
            .store
            .close_ask(
                tenant_id,
                key,
                actor,
                state,
                &redacted_envelope(&answer.recorded.data),
                now_ms(),
            )
            .await?;
        match resolution {
            Resolution::AlreadyClosed(current) => Ok(ReceiptOutcome::AlreadyClosed(current)),
            Resolution::Won(event) => {
                self.live.publish(std::slice::from_ref(&event));
                self.deliver(tenant_id, &record, answer).await?;
                let updated = self
                    .store
                    .get_ask(tenant_id, key)
                    .await?
                    .ok_or_else(|| ApiError::NotFound(format!("ask {key:?} does not exist")))?;
                Ok(ReceiptOutcome::Accepted(Box::new(updated)))
            }
        }
    }

    /// Sends an accepted answer on to the agent, in the form its protocol wants.
    async fn deliver(
        self: &Arc<Self>,
        tenant_id: &str,
        record: &AskRecord,
        answer: ValidatedAnswer,
    ) -> Result<(), ApiError> {
        match &record.ask.origin {
            AskOrigin::AgUiInterrupt { .. }
            | AskOrigin::AgUiCustomInterrupt
            | AskOrigin::AgUiFrontendTool { .. } => {
                if let Ok(mut held) = self.held.lock() {
                    held.insert(record.key.clone(), answer);
                }
                self.resume_when_answered(tenant_id, &record.run_id).await
            }
            AskOrigin::HermesEvent { .. } | AskOrigin::HermesRequest { .. } => {
                let run = self
                    .store
                    .get_run(tenant_id, &record.run_id)
                    .await?
                    .ok_or_else(|| {
                        ApiError::NotFound(format!("run {:?} does not exist", record.run_id))
                    })?;
                let sent = match (
                    self.agents.get(&run.agent),
                    hermes_answer(&record.ask, &answer),
                ) {
                    (Some(agent), Some(mapped)) => match self.gateway(agent).await {
                        Ok(gateway) => gateway.answer(&record.run_id, &record.ask.id, mapped).await,
                        Err(error) => Err(error.to_string()),
                    },
                    (None, _) => Err(format!("agent {:?} is not configured", run.agent)),
                    (_, None) => Err("the answer has no Hermes form".into()),
                };
                if let Err(error) = sent {
                    self.record(tenant_id, &record.run_id, &[], vec![undelivered(&error)])
                        .await?;
                }
                Ok(())
            }
        }
    }

    /// Once every ask of a paused AG-UI run is closed, one resume run answers them all.
    async fn resume_when_answered(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<(), ApiError> {
        let asks = self.store.run_asks(tenant_id, run_id).await?;
        if asks.iter().any(|record| record.ask.state.is_pending()) {
            return Ok(());
        }
        if !self.store.claim_resume(tenant_id, run_id).await? {
            return Ok(());
        }
        let paused = self
            .store
            .get_run(tenant_id, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))?;
        let agent = self.thread_agent(tenant_id, &paused.thread_id).await?;
        let answers: BTreeMap<String, ValidatedAnswer> = asks
            .iter()
            .map(|record| (record.ask.id.clone(), self.answer_for(record)))
            .collect();
        let new_run_id = uuid::Uuid::new_v4().to_string();
        let views = self.thread_views(tenant_id, &paused.thread_id).await?;
        let mut input = self.run_input(
            &agent,
            &paused.thread_id,
            &new_run_id,
            Some(run_id),
            messages_from_views(&views),
            latest_state(&views),
        );
        let interrupts: Vec<&app::protocol::ask::Ask> = asks
            .iter()
            .map(|record| &record.ask)
            .filter(|ask| matches!(ask.origin, AskOrigin::AgUiInterrupt { .. }))
            .collect();
        let mut recorded_input = None;
        if !interrupts.is_empty() {
            let entries = agui_resume(&interrupts, &answers)
                .map_err(|error| ApiError::Conflict(error.to_string()))?;
            input["resume"] = serde_json::to_value(&entries).unwrap_or(Value::Null);
            // What is stored of the request: passwords and secrets replaced.
            let mut redacted = input.clone();
            for (entry, ask) in redacted["resume"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(&interrupts)
            {
                if let Some(answer) = answers.get(&ask.id)
                    && matches!(
                        ask.component,
                        Component::SudoPrompt | Component::SecretPrompt
                    )
                {
                    entry["payload"] = answer.recorded.data.clone();
                }
            }
            recorded_input = Some(redacted);
        }
        if let Some(custom) = asks
            .iter()
            .find(|record| matches!(record.ask.origin, AskOrigin::AgUiCustomInterrupt))
            && let Some(answer) = answers.get(&custom.ask.id)
        {
            input["forwardedProps"] =
                json!({ "command": { "resume": custom_interrupt_resume(&custom.ask, answer) } });
        }
        let summary = asks
            .iter()
            .filter_map(|record| match &record.ask.state {
                AskState::Resolved { answer } => {
                    Some(format!("{} — {}", answer.summary, record.ask.title))
                }
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("; ");
        let first = vec![EventDraft::new(
            EventBody::Notice {
                level: Level::Info,
                text: format!("Resuming with the answers: {summary}"),
                source: "console".into(),
            },
            Some(now_ms()),
            None,
        )];
        self.start_recorded(
            tenant_id,
            &paused.thread_id,
            &new_run_id,
            agent,
            input,
            recorded_input,
            first,
            RunOptions::default(),
        )
        .await
        .map(|_| ())
    }

    /// The validated answer for a closed ask: the one held in memory (with any secret),
    /// or, after a restart, rebuilt from the record (a secret then arrives empty).
    fn answer_for(&self, record: &AskRecord) -> ValidatedAnswer {
        if let Some(answer) = self
            .held
            .lock()
            .ok()
            .and_then(|mut held| held.remove(&record.key))
        {
            return answer;
        }
        let (action, data) = match &record.ask.state {
            AskState::Resolved { answer } => {
                let data = match record.ask.component {
                    Component::SudoPrompt => json!({ "password": "" }),
                    Component::SecretPrompt => json!({ "value": "" }),
                    _ => answer.data.clone(),
                };
                (answer.action.clone(), data)
            }
            _ => ("cancel".to_owned(), Value::Null),
        };
        let recorded = match &record.ask.state {
            AskState::Resolved { answer } => answer.clone(),
            _ => app::protocol::ask::RecordedAnswer {
                action: action.clone(),
                data: Value::Null,
                summary: "Not answered".into(),
                actor: None,
                at: None,
            },
        };
        ValidatedAnswer {
            ask_id: record.ask.id.clone(),
            action,
            data,
            recorded,
        }
    }

    /// After a restart: runs that were streaming lost their agent connection.
    pub async fn recover(&self) -> Result<usize, StoreError> {
        let stale = self.store.running_runs().await?;
        for run in &stale {
            let failed = EventDraft::new(
                EventBody::RunFailed {
                    message: "the server restarted while this run was streaming; the agent's stream was lost".into(),
                    code: Some("server_restart".into()),
                },
                Some(now_ms()),
                None,
            );
            self.record(&run.tenant_id, &run.id, &[], vec![failed])
                .await?;
        }
        Ok(stale.len())
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
